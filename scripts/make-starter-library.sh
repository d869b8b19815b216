#!/bin/sh
# Rebuilds media/starter, the stock content a fresh Reelsmith imports at first start.
# Videos: short cuts of openly licensed footage (SRC, default /work/shared/media), re-encoded small
# (H.264 640 px wide, CRF 30, AAC when the source has sound). Music: scripts/make-starter-music.js
# (songs written here as scores and played by FluidSynth, released as CC0).
set -eu
SRC=${1:-/work/shared/media}
OUT=$(cd "$(dirname "$0")/.." && pwd)/media/starter
rm -rf "$OUT" && mkdir -p "$OUT"

INTEL='Source: Intel IoT devkit sample-videos, https://github.com/intel-iot-devkit/sample-videos
Licence: Creative Commons Attribution 4.0 International (CC BY 4.0), https://creativecommons.org/licenses/by/4.0/
Attribution: Intel Corporation. Changes: cut to a short excerpt and re-encoded smaller by Reelsmith.'
BBB='Source: Big Buck Bunny (c) copyright 2008, Blender Foundation, https://peach.blender.org/
Licence: Creative Commons Attribution 3.0 (CC BY 3.0), https://creativecommons.org/licenses/by/3.0/
Changes: cut to a short excerpt and re-encoded smaller by Reelsmith.'

clip() { # category name source start duration licence
  mkdir -p "$OUT/$1"
  ffmpeg -nostdin -v error -y -ss "$4" -t "$5" -i "$SRC/$3" -vf "scale=640:-2,fps=25" -c:v libx264 -preset medium -crf 30 \
    -pix_fmt yuv420p -c:a aac -b:a 64k -ac 2 -movflags +faststart "$OUT/$1/$2.mp4"
  printf '%s\nExcerpt of %s from %ss, %ss long.\n' "$6" "$3" "$4" "$5" > "$OUT/$1/$2.mp4.LICENSE.txt"
}
clip traffic road-traffic-1 car-detection.mp4 0 8 "$INTEL"
clip traffic road-traffic-2 car-detection.mp4 15 8 "$INTEL"
clip objects bottles-on-table-1 bottle-detection.mp4 2 7 "$INTEL"
clip objects bottles-on-table-2 bottle-detection.mp4 22 7 "$INTEL"
clip people office-walk-in-1 one-by-one-person-detection.mp4 10 8 "$INTEL"
clip people office-walk-in-2 one-by-one-person-detection.mp4 60 8 "$INTEL"
clip people signing-walk walk.mkv 0 3 "$INTEL"
clip people signing-again again.mkv 0 2.6 "$INTEL"
clip animation bunny-meadow-1 big_buck_bunny_0_30.webm 0 8 "$BBB"
clip animation bunny-meadow-2 big_buck_bunny_0_30.webm 18 8 "$BBB"

# Music: six songs of 2-3 minutes, composed as scores and played by FluidSynth (CC0).
node "$(dirname "$0")/make-starter-music.js" "$OUT"
du -sh "$OUT"

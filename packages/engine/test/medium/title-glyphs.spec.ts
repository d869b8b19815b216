import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { prepareFonts } from '../../src/fonts';
import { filterValue } from '../../src/render-args';
import { parseSettings } from '../../src/settings';
import { titleScript } from '../../src/title';

describe('title glyphs', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'engine-glyphs-'));
  const fontEnv = prepareFonts(dir);
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** Bright pixels of the title drawn alone on black, as the render draws it (same script and fonts). */
  const titlePixels = (text: string) => {
    const ass = path.join(dir, 'title.ass');
    fs.writeFileSync(ass, titleScript(parseSettings({ title_config: { text, position: 'center' } }).title_config, 640, 360, 3));
    // Not makeTestMedia: one frame to a pipe, with the bundled fonts' environment.
    const frame = execFileSync(
      'ffmpeg',
      [
        '-v',
        'error',
        '-f',
        'lavfi',
        '-i',
        'color=black:s=640x360:d=2',
        '-vf',
        `trim=start=1.5,subtitles=filename=${filterValue(ass)},format=gray`,
      ].concat(['-frames:v', '1', '-f', 'rawvideo', 'pipe:1']),
      { env: { ...process.env, ...fontEnv } },
    );
    return frame.filter((v) => v > 128).length;
  };

  it('draws emoji, Hebrew and Arabic with the bundled fonts, not as missing-glyph boxes', () => {
    // Characters of the supplementary private-use plane have no glyph in any font we or the system
    // ship (DejaVu Sans, which Chromium pulls in, draws some of the BMP private-use area):
    // what a missing glyph looks like.
    const missing = (n: number) => titlePixels(String.fromCodePoint(...Array.from({ length: n }, (_, i) => 0x100000 + i)));
    for (const text of ['🎉🎉🎉', 'שלום', 'مرحبا']) {
      const chars = [...text].length;
      expect([text, titlePixels(text) > 2 * missing(chars)]).toEqual([text, true]);
    }
  });
});

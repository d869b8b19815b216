import { planEdit } from '../../src/plan';
import type { MediaInfo } from '../../src/probe';
import { mapLimit } from '../../src/render';
import { buildRenderArgs, frameFilter, type X264Preset } from '../../src/render-args';
import { buildChunkArgs, buildJoinArgs, concatList, planBatches } from '../../src/render-batch-args';
import { buildClipSoundArgs, buildJoinSoundArgs, buildMusicTrackArgs, musicStartSec, reelSamples } from '../../src/render-audio-args';
import { parseSettings } from '../../src/settings';
import { assLiteral, titleScript } from '../../src/title';

/** The plan of clips of these durations without music, beat mapping or Intelligence: fixed 2.5 s segments at 30 fps. */
const plainPlan = (...durations: number[]) =>
  planEdit({ clips: durations.map((d) => ({ durationSec: d })), pacing: 'standard', beatMapping: false, intelligence: false, fps: 30 });

describe('titles render literally', () => {
  it('escapes ASS override blocks and escapes', () => {
    expect(assLiteral('a{\\b1}b')).toBe('a\\{\\\u2060b1\\}b');
    expect(assLiteral('50% "q": c:\\N\\h')).toBe('50% "q": c:\\\u2060N\\\u2060h');
    expect(assLiteral('two\nlines')).toBe('two lines');
  });

  it('places the title and maps Arial and Helvetica to Arimo', () => {
    const s = parseSettings({ title_config: { text: 'Hi', font: 'Helvetica-Bold.ttf', position: 'bottom', font_size: 72 } });
    const ass = titleScript(s.title_config, 1920, 1080, 30);
    expect(ass).toContain('Style: Title,Arimo,72,');
    expect(ass).toMatch(/,2,\d+,\d+,\d+,1$/m); // alignment 2 = bottom centre
    expect(ass).toContain('Dialogue: 0,0:00:00.00,0:00:04.00,Title');
  });
});

describe('ffmpeg arguments', () => {
  const info = (w: number, h: number, audio = true): MediaInfo => ({
    path: `/m/${w}x${h}.mp4`,
    sizeBytes: 1,
    durationSec: 10,
    formatName: 'mov',
    video: { codec: 'h264', width: w, height: h, codedWidth: w, codedHeight: h, rotation: 0, sar: 1, fps: 30, variableFrameRate: false },
    audio: audio ? { codec: 'aac', channels: 2, sampleRate: 48000 } : undefined,
  });

  it('letterboxes with bars, or fills by cropping', () => {
    expect(frameFilter({ width: 640, height: 480 }, { width: 1920, height: 1080 }, true)).toBe(
      'scale=1440:1080:flags=bicubic,setsar=1,pad=1920:1080:240:0:color=black',
    );
    expect(frameFilter({ width: 640, height: 480 }, { width: 1920, height: 1080 }, false)).toBe(
      'scale=1920:1440:flags=bicubic,setsar=1,crop=1920:1080',
    );
    expect(frameFilter({ width: 1080, height: 1920 }, { width: 1920, height: 1080 }, true)).toMatch(/^scale=608:1080/);
  });

  it('seeks each input to its segment, guards every input, and encodes H.264/AAC with fast start', () => {
    const plan = plainPlan(10, 10);
    const { args, frames } = buildRenderArgs({
      clips: [info(1280, 720), info(640, 480, false)],
      plan,
      settings: parseSettings({}),
      output: '/o/out.mp4',
    });
    const inputs = args.flatMap((a, i) => (a === '-i' ? [i] : []));
    expect(inputs.length).toBe(plan.segments.length);
    for (const i of inputs) {
      expect(args.slice(i - 6, i)).toEqual(expect.arrayContaining(['-protocol_whitelist', 'file,pipe', '-format_whitelist']));
      expect(args[i + 1]).toMatch(/^file:\//);
    }
    expect(args.filter((a) => a === '-ss').length).toBe(plan.segments.length);
    const joined = args.join(' ');
    for (const flag of ['-c:v libx264', '-c:a aac', '-movflags +faststart', '-fps_mode cfr', '-pix_fmt yuv420p', '-r 30'])
      expect(joined).toContain(flag);
    expect(joined).toContain('anullsrc'); // the silent clip gets silence
    expect(joined).toContain(`concat=n=${plan.segments.length}:v=1:a=1`);
    expect(frames).toBe(600);
    // The thumbnail is a second output of the same process: one frame of the finished picture.
    const withThumb = buildRenderArgs({
      clips: [info(1280, 720), info(640, 480, false)],
      plan,
      settings: parseSettings({}),
      output: '/o/out.mp4',
      thumbnail: { path: '/t/thumb.jpg', atSec: 2 },
    }).args.join(' ');
    expect(withThumb).toContain('split=2[vout][vth]');
    expect(withThumb).toContain('[vth]trim=start_frame=60:end_frame=61,scale=640:-2[thumb]');
    expect(withThumb).toMatch(/-map \[thumb\] -frames:v 1 .* file:\/t\/thumb\.jpg$/);
  });
});

describe('bounded concurrency', () => {
  it('runs at most `limit` calls at once, keeps input order, and reports the first failure in input order', async () => {
    let running = 0;
    let peak = 0;
    const delays = [30, 5, 20, 1, 10, 2];
    const out = await mapLimit(delays, 2, async (d) => {
      running++;
      peak = Math.max(peak, running);
      await new Promise((r) => setTimeout(r, d));
      running--;
      return d * 2;
    });
    expect(out).toEqual(delays.map((d) => d * 2));
    expect(peak).toBe(2);
    // Item 1 fails late, item 3 early: the error of item 1 wins, as a sequential loop would give.
    const failing = mapLimit([0, 1, 2, 3], 4, async (i) => {
      await new Promise((r) => setTimeout(r, i === 1 ? 30 : 1));
      if (i === 1 || i === 3) throw new Error(`bad ${i}`);
      return i;
    });
    await expect(failing).rejects.toThrow('bad 1');
  });
});

describe('long reels in batches', () => {
  const info = (w: number, h: number, durationSec: number, audio = true): MediaInfo => ({
    path: `/m/${w}x${h}-${durationSec}.mp4`,
    sizeBytes: 1,
    durationSec,
    formatName: 'mov',
    video: { codec: 'h264', width: w, height: h, codedWidth: w, codedHeight: h, rotation: 0, sar: 1, fps: 30, variableFrameRate: false },
    audio: audio ? { codec: 'aac', channels: 2, sampleRate: 48000 } : undefined,
  });
  // A paid user's 12-minute clip without music: 288 segments of 2.5 s.
  const longPlan = (minutes: number) => plainPlan(minutes * 60);
  const inputsOf = (args: string[]) => args.filter((a) => a === '-i').length;
  const bytesOf = (args: string[]) => args.reduce((s, a) => s + Buffer.byteLength(a) + 1, 0);

  it('splits a long plan into consecutive batches of at most 16 segments that cover every frame once; a short plan stays one batch', () => {
    const plan = longPlan(12);
    const clips = [info(1920, 1080, 720)];
    expect(plan.segments.length).toBe(288);
    const batches = planBatches(plan, clips);
    expect(batches.length).toBe(18);
    let frame = 0;
    let seg = 0;
    for (const b of batches) {
      expect(b.first).toBe(seg);
      expect(b.end - b.first).toBeLessThanOrEqual(16);
      expect(b.startFrame).toBe(frame);
      frame += b.frames;
      seg = b.end;
    }
    expect(seg).toBe(288);
    expect(frame).toBe(720 * 30);
    const short = plainPlan(30);
    expect(planBatches(short, [info(1920, 1080, 30)])).toEqual([{ first: 0, end: short.segments.length, startFrame: 0, frames: 900 }]);
    // 4K sources hold four times the pictures per decoder: a quarter as many per batch.
    expect(Math.max(...planBatches(plan, [info(3840, 2160, 720)]).map((b) => b.end - b.first))).toBe(4);
    expect(planBatches(plan, clips, { maxSegments: 5 }).every((b) => b.end - b.first <= 5)).toBe(true);
  });

  it("keeps every command line of a 60-minute reel as small as a short reel's: a bounded number of inputs, lists in files", () => {
    const settings = parseSettings({});
    const plan = longPlan(60);
    const clips = [info(1920, 1080, 3600, false)];
    const batches = planBatches(plan, clips);
    const totalFrames = batches.reduce((s, b) => s + b.frames, 0);
    expect(totalFrames).toBe(3600 * 30);
    const chunks = batches.map((batch, k) =>
      buildChunkArgs({
        clips,
        plan,
        settings,
        batch,
        totalFrames,
        video: `/t/c${k}.mp4`,
        title: { assFile: '/t/title.ass' },
      }),
    );
    for (const c of chunks) {
      expect(inputsOf(c.args)).toBeLessThanOrEqual(16);
      expect(bytesOf(c.args)).toBeLessThan(64 * 1024);
    }
    const join = buildJoinArgs({ fps: 30, totalFrames, videoList: '/t/video.txt', audio: '/t/sound.wav', output: '/o/out.mp4' });
    expect(inputsOf(join.args)).toBe(2);
    // The sound of the whole reel: sound-only processes of 64 segments, then one join of the pieces.
    const pieces = planBatches(plan, clips, { maxSegments: 64, maxPixels: Infinity });
    for (const piece of pieces) {
      const a = buildClipSoundArgs({ clips, plan, batch: piece, output: '/t/s.wav' }).args;
      expect(bytesOf(a)).toBeLessThan(64 * 1024);
    }
    expect(bytesOf(join.args)).toBeLessThan(4096);
    expect(join.durationSec).toBe(3600);
  });

  it("encodes each chunk video-only on the reel's clock: title and fade-in in the first, fade-out in the last, no sound", () => {
    const settings = parseSettings({});
    const plan = longPlan(12);
    const clips = [info(1920, 1080, 720)];
    const batches = planBatches(plan, clips);
    const totalFrames = 720 * 30;
    const chunk = (k: number) =>
      buildChunkArgs({
        clips,
        plan,
        settings,
        batch: batches[k]!,
        totalFrames,
        video: `/t/c${k}.mp4`,
        title: { assFile: '/t/title.ass' },
        thumbnail: { path: '/t/thumb.jpg', atSec: 360 },
      });
    const first = chunk(0).args.join(' ');
    const middle = chunk(5).args.join(' ');
    const last = chunk(batches.length - 1).args.join(' ');
    expect(first).toContain("settb=1/30,setpts=N+0,subtitles=filename='/t/title.ass',fade=t=in:st=0:d=2,setpts=PTS-STARTPTS");
    expect(first).not.toContain('fade=t=out');
    expect(middle).not.toMatch(/subtitles|fade=/);
    // Frames 20400..21600 of the reel: the fade-out starts at 718 s on the reel clock.
    expect(last).toContain(`setpts=N+${batches.at(-1)!.startFrame},fade=t=out:st=718:d=2`);
    for (const c of [first, middle, last]) {
      expect(c).toMatch(/-map \[vout\] -an -c:v libx264 .*-g 60 -flags \+cgop -f mp4 \/t\/c\d+\.mp4/);
      expect(c).toContain(`concat=n=16:v=1:a=0[vc]`);
      expect(c).not.toMatch(/\[a\d+\]|\[aout\]|pcm_s16le|-c:a/);
    }
    // The thumbnail (frame 10800) comes from the one chunk that holds it, by its frame in that chunk.
    const holder = batches.findIndex((b) => b.startFrame <= 10800 && 10800 < b.startFrame + b.frames);
    const withThumb = batches.map((_, k) => chunk(k).args.includes('file:/t/thumb.jpg'));
    expect(withThumb.filter(Boolean).length).toBe(1);
    expect(withThumb[holder]).toBe(true);
    const k = 10800 - batches[holder]!.startFrame;
    expect(chunk(holder).args.join(' ')).toContain(`[vth]trim=start_frame=${k}:end_frame=${k + 1},scale=640:-2[thumb]`);
  });

  it('encodes each chunk with the threads and preset asked for (RENDER_THREADS, RENDER_PRESET), else as the encoder chooses', () => {
    const settings = parseSettings({});
    const plan = longPlan(2);
    const clips = [info(1920, 1080, 120)];
    const batch = planBatches(plan, clips)[0]!;
    const args = (threads?: number, preset?: X264Preset) =>
      buildChunkArgs({ clips, plan, settings, batch, totalFrames: 3600, video: '/t/c.mp4', threads, preset }).args.join(' ');
    expect(args(1)).toContain('-c:v libx264 -threads 1 -preset veryfast');
    expect(args()).toContain('-c:v libx264 -preset veryfast');
    // RENDER_PRESET
    expect(args(undefined, 'ultrafast')).toContain('-c:v libx264 -preset ultrafast');
  });

  it('joins by copying the picture and encoding the one sound track made beforehand; moov first', () => {
    const join = buildJoinArgs({ fps: 30, totalFrames: 21600, videoList: '/t/video.txt', audio: '/t/sound.wav', output: '/o/out.mp4' });
    const joined = join.args.join(' ');
    expect(joined).toContain(
      '-protocol_whitelist file -f concat -i file:/t/video.txt -protocol_whitelist file -f wav -i file:/t/sound.wav',
    );
    for (const flag of ['-map 0:v', '-map 1:a', '-c:v copy', '-c:a aac', '-movflags +faststart']) expect(joined).toContain(flag);
    // Nothing filters the picture or the sound here: both are final.
    expect(joined).not.toMatch(/filter|afade|-vf|-af/);
    expect(join.durationSec).toBe(720);
  });

  it("makes the reel's whole sound track once: the music window or the clips' sound, sample-exact, with the reel's fades", () => {
    const settings = parseSettings({});
    const plan = longPlan(12);
    const song = { ...info(1, 1, 800), video: undefined, path: '/m/song.mp3' };
    expect(reelSamples(21600, 30)).toBe(34_560_000);
    const music = buildMusicTrackArgs({ music: song, plan, settings, totalFrames: 21600, output: '/t/sound.wav' }).args.join(' ');
    expect(music).toMatch(/-t 721 -protocol_whitelist file,pipe -format_whitelist \S+ -i file:\/m\/song\.mp3/);
    expect(music).not.toContain('-ss');
    expect(music).toContain('apad,atrim=end_sample=34560000,afade=t=in:st=0:d=2,afade=t=out:st=718:d=2[aout]');
    expect(music).toContain('-c:a pcm_s16le -ar 48000 -ac 2 -f wav /t/sound.wav');
    // A plan with a music window starts the song there (absent: at 0).
    expect(musicStartSec(plan)).toBe(0);
    const windowed = { ...plan, musicStart: 42.5 };
    expect(musicStartSec(windowed)).toBe(42.5);
    expect(buildMusicTrackArgs({ music: song, plan: windowed, settings, totalFrames: 21600, output: '/t/s.wav' }).args.join(' ')).toContain(
      '-ss 42.5 -t 721 ',
    );
    const noFades = buildMusicTrackArgs({
      music: song,
      plan,
      settings: parseSettings({ enable_fades: false }),
      totalFrames: 21600,
      output: '/t/s.wav',
    });
    expect(noFades.args.join(' ')).toContain('atrim=end_sample=34560000[aout]');

    // Without music: pieces of clip sound, silence for a silent clip (not even opened), each
    // segment exactly its frames' samples; the join of the pieces fades and cuts the whole.
    const mixed = plainPlan(10, 10);
    const two = [info(1920, 1080, 10), info(1280, 720, 10, false)];
    const all = { first: 0, end: mixed.segments.length, startFrame: 0, frames: 600 };
    const piece = buildClipSoundArgs({ clips: two, plan: mixed, batch: all, output: '/t/p.wav' }).args;
    expect(inputsOf(piece)).toBe(mixed.segments.filter((s) => s.clip === 0).length);
    const graph = piece[piece.indexOf('-filter_complex') + 1]!;
    expect(graph).toContain('anullsrc=r=48000:cl=stereo,atrim=end_sample=120000');
    expect(graph).toContain(`concat=n=${mixed.segments.length}:v=0:a=1[aout]`);
    expect(graph).not.toMatch(/\[\d+:v\]/);
    const whole = buildJoinSoundArgs({ settings, fps: 30, totalFrames: 600, list: '/t/sound.txt', output: '/t/sound.wav' }).args.join(' ');
    expect(whole).toContain('-protocol_whitelist file -f concat -i file:/t/sound.txt');
    expect(whole).toContain('atrim=end_sample=960000,afade=t=in:st=0:d=2,afade=t=out:st=18:d=2[aout]');
  });

  it('lists chunks by plain names with their exact durations', () => {
    expect(
      concatList([
        { file: 'chunk-0000.mp4', durationSec: 60 },
        { file: 'chunk-0001.mp4', durationSec: 1 / 3 },
      ]),
    ).toBe("file 'chunk-0000.mp4'\nduration 60\nfile 'chunk-0001.mp4'\nduration 0.333333\n");
    expect(() => concatList([{ file: "x'.mp4", durationSec: 1 }])).toThrow();
  });
});

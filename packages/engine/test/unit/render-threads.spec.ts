import { planEdit } from '../../src/plan';
import type { MediaInfo } from '../../src/probe';
import { buildRenderArgs } from '../../src/render-args';
import { buildChunkArgs, planBatches } from '../../src/render-batch-args';
import { parseSettings } from '../../src/settings';
import { analysisLanes } from '../../src/render';
import { sparsePassArgs } from '../../src/clip-analysis';

// RENDER_THREADS is a render's thread budget: with RENDER_WORKERS=2 RENDER_THREADS=1 (as bench:scale runs `npm start`)
// two workers on two cores should act as two one-core machines, so decoders and filters must stay
// inside it too, not only x264.
describe('the render thread budget (RENDER_THREADS)', () => {
  const clip: MediaInfo = {
    path: '/m/clip.mp4',
    sizeBytes: 1,
    durationSec: 600,
    formatName: 'mov',
    video: {
      codec: 'h264',
      width: 1920,
      height: 1080,
      codedWidth: 1920,
      codedHeight: 1080,
      rotation: 0,
      sar: 1,
      fps: 30,
      variableFrameRate: false,
    },
    audio: { codec: 'aac', channels: 2, sampleRate: 48000 },
  };
  const settings = parseSettings({});
  const plan = (seconds: number) =>
    planEdit({ clips: [{ durationSec: seconds }], pacing: 'standard', beatMapping: false, intelligence: false, fps: 30 });

  /** The value each `-threads` takes before an `-i` (the decoders), and the global filter options before the first input. */
  const threadsOf = (args: string[]) => {
    const firstInput = args.indexOf('-i');
    const decoders: string[] = [];
    let pending: string | undefined;
    args.forEach((a, i) => {
      if (a === '-threads' && i < args.indexOf('-c:v')) pending = args[i + 1];
      if (a === '-i' && pending !== undefined) decoders.push(pending);
      if (a === '-i') pending = undefined;
    });
    const global = (name: string) => {
      const at = args.indexOf(name);
      return at >= 0 && at < firstInput ? args[at + 1] : undefined;
    };
    const encoder =
      args[args.indexOf('-c:v') + 1] === 'libx264' && args[args.indexOf('-c:v') + 2] === '-threads'
        ? args[args.indexOf('-c:v') + 3]
        : undefined;
    return {
      inputs: args.filter((a) => a === '-i').length,
      decoders,
      filterComplex: global('-filter_complex_threads'),
      filter: global('-filter_threads'),
      encoder,
    };
  };

  it('bounds every decoder, the filter graph and the encoder of a chunk to one thread when told one', () => {
    const p = plan(120);
    const batch = planBatches(p, [clip])[0]!;
    const t = threadsOf(buildChunkArgs({ clips: [clip], plan: p, settings, batch, totalFrames: 3600, video: '/t/c.mp4', threads: 1 }).args);
    expect(t.inputs).toBeGreaterThan(1);
    expect(t.decoders).toEqual(Array(t.inputs).fill('1'));
    expect(t).toMatchObject({ filterComplex: '1', filter: '1', encoder: '1' });
  });

  it('gives a single-pass render the same bounds, and leaves two decoder threads and ffmpeg’s own choice when unset', () => {
    const p = plan(20);
    const one = threadsOf(buildRenderArgs({ clips: [clip], plan: p, settings, output: '/o/r.mp4', threads: 1 }).args);
    expect(one.decoders).toEqual(Array(one.inputs).fill('1'));
    expect(one).toMatchObject({ filterComplex: '1', filter: '1', encoder: '1' });

    const four = threadsOf(buildRenderArgs({ clips: [clip], plan: p, settings, output: '/o/r.mp4', threads: 4 }).args);
    expect(four.decoders).toEqual(Array(four.inputs).fill('2'));
    expect(four).toMatchObject({ filterComplex: '4', filter: '4', encoder: '4' });

    const unset = threadsOf(buildRenderArgs({ clips: [clip], plan: p, settings, output: '/o/r.mp4' }).args);
    expect(unset.decoders).toEqual(Array(unset.inputs).fill('2'));
    expect(unset).toMatchObject({ filterComplex: undefined, filter: undefined, encoder: undefined });
  });

  it('bounds the clip analysis too: its decoders side by side never use more threads than the budget', () => {
    for (const threads of [1, 2, 3, 4, 6, 8, 64]) {
      const { lanes, decoderThreads } = analysisLanes(threads);
      expect([threads, lanes >= 1, lanes * decoderThreads <= threads]).toEqual([threads, true, true]);
    }
    expect(analysisLanes(1)).toEqual({ lanes: 1, decoderThreads: 1 });
    expect(analysisLanes(2)).toEqual({ lanes: 2, decoderThreads: 1 });
    expect(analysisLanes(8)).toEqual({ lanes: 4, decoderThreads: 2 });
    // Each lane's decoder is told its share: the sparse pass's decoding ffmpeg takes -threads N.
    const decode = sparsePassArgs('/m/clip.mp4', '0', 0, 1).decode;
    expect(decode[decode.indexOf('-threads') + 1]).toBe('1');
  });
});

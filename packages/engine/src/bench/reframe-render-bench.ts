/**
 * The render of a reframed reel against its CPU floor, for `npm run bench:reframe`: landscape
 * clips whose subject moves (crossing, stop-and-go, a camera pan, shot cuts) made into a 9:16 reel
 * with subject framing, so every segment is a crop whose x follows the subject frame by frame.
 *
 *  - the engine's render: `renderReel` with the clips' analyses already there, as the render
 *    worker has them from upload time (probing is timed);
 *  - the CPU floor of the same output: the render's own filter graph for the same plan (the same
 *    crop expressions, title and fades) decoded and filtered with no encode, plus the encode of
 *    the 1080x1920 output from its raw frames (written beforehand, not timed).
 * The two run in interleaved rounds and their medians are compared (target <= 1.15x).
 */
import fs from 'node:fs';
import path from 'node:path';
import { probe, type MediaInfo } from '../probe.js';
import { buildRenderArgs } from '../render-args.js';
import { prepareTitle } from '../render-chunks.js';
import { prepare, renderReel } from '../render.js';
import { ASPECTS } from '../settings.js';
import { cpuFloor, median, now } from './render-bench-tools.js';

const SETTINGS = { aspect: '9:16', framing: 'subject', pacing_preset: 'standard' } as const;

export async function renderAgainstFloor(clips: string[], dir: string, rounds = 3): Promise<string[]> {
  const prepared = await prepare({ clips, settings: SETTINGS });
  const { plan, settings } = prepared;
  const out = ASPECTS[settings.aspect];
  const moving = plan.segments.filter((s) => s.framing?.mode === 'subject' && s.framing.camera !== 'stationary').length;
  const output = path.join(dir, 'reframed.mp4');
  const renderOnce = () => renderReel({ clips, output, settings: SETTINGS, analyses: prepared.analyses, tmpRoot: dir });

  const infos: MediaInfo[] = [];
  for (const c of clips) infos.push(await probe(c, 'clip'));
  fs.mkdirSync(path.join(dir, 'title'), { recursive: true });
  const title = prepareTitle(settings, plan, path.join(dir, 'title'));
  const graph = buildRenderArgs({ clips: infos, plan, settings, output: '-', ...(title.title ? { title: title.title } : {}) });
  const decodeArgs = graph.args.slice(0, graph.args.indexOf('-c:v'));
  const raw = path.join(dir, 'reframed.yuv');
  const wav = path.join(dir, 'reframed.wav');
  const { writeRaw, floorOnce } = cpuFloor(decodeArgs, { raw, wav, out: path.join(dir, 'floor.mp4') }, out, title.fontEnv);
  await writeRaw();

  await renderOnce(); // warm-up
  const renders: number[] = [];
  const floors: number[] = [];
  const decodes: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const t = now();
    await renderOnce();
    renders.push(now() - t);
    const fl = await floorOnce();
    decodes.push(fl.decodeFilter);
    floors.push(fl.decodeFilter + fl.encode);
  }
  fs.rmSync(raw, { force: true });
  const f = (x: number) => x.toFixed(2);
  const runs = (xs: number[]) => `(runs: ${xs.map(f).join(', ')})`;
  const ratio = median(renders) / median(floors);
  return [
    `reframed render: ${clips.length} clips of ${infos[0]!.video!.width}x${infos[0]!.video!.height} into a ${f(plan.totalSec)} s reel at ${out.width}x${out.height}, ${plan.segments.length} segments (${moving} with a moving crop), medians of ${rounds} interleaved rounds after a warm-up`,
    `  engine render  ${f(median(renders))} s  ${runs(renders)}`,
    `  CPU floor      ${f(median(floors))} s  (decode+filter ${f(median(decodes))} s + encode)  ${runs(floors)}`,
    `  render / floor ${f(ratio)}x   target <= 1.15  ${ratio <= 1.15 ? 'meets target' : 'MISSES target'}`,
  ];
}

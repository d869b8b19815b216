/**
 * What the reframing bench's two tables share (reframe-bench.ts: generated clips;
 * reframe-real-bench.ts: the starter library's real footage): CPU time from /proc, the crop's
 * corner at a time, and the analysis cost of one clip (today's clip analysis against the subject
 * analysis alone over the same frames).
 */
import fs from 'node:fs';
import { ANALYSIS_H, ANALYSIS_W, analyseClip } from '../clip-analysis.js';
import { execMedia } from '../exec.js';
import { createSubjectAnalyser, type CropKey, type SubjectTrack } from '../reframe/index.js';

/** CPU seconds of this process and of its children that have ended (ffmpeg), from /proc. */
export function cpuNow(): number {
  const own = process.cpuUsage();
  const stat = fs.readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields 16 and 17 of stat (cutime, cstime) are 14 and 15 after the command name and state.
  const children = (Number(fields[13]) + Number(fields[14])) / 100;
  return (own.user + own.system) / 1e6 + children;
}

/** The crop's left and top edges at time t (linear between keys, held before the first and after the last). */
export function cornerAt(path: CropKey[], t: number): { x: number; y: number } {
  if (t <= path[0]!.t) return path[0]!;
  for (let i = 1; i < path.length; i++) {
    const [a, b] = [path[i - 1]!, path[i]!];
    if (t <= b.t) {
      const f = (t - a.t) / (b.t - a.t);
      return { x: a.x + f * (b.x - a.x), y: a.y + f * (b.y - a.y) };
    }
  }
  return path[path.length - 1]!;
}

/** Today's clip analysis (no subjects) and the subject analysis alone over the same frames, CPU seconds. */
export async function analysisCost(file: string, dur: number): Promise<{ today: number; subjects: number; track: SubjectTrack }> {
  let today = Infinity;
  // The best of two runs: the machine is shared, and the slower run measured someone else too.
  for (let round = 0; round < 2; round++) {
    const c0 = cpuNow();
    await analyseClip(file, dur, undefined, undefined, { subjects: false });
    today = Math.min(today, cpuNow() - c0);
  }
  const full = await analyseClip(file, dur);
  // The same frames as the analysis decodes, in memory, fed to the analyser alone.
  const frames: Uint8Array[] = [];
  const size = ANALYSIS_W * ANALYSIS_H;
  let pending = Buffer.alloc(0);
  await execMedia(
    'ffmpeg',
    [
      '-v',
      'error',
      '-nostdin',
      '-skip_loop_filter',
      'all',
      '-skip_frame',
      'noref',
      '-i',
      `file:${file}`,
      '-an',
      '-vf',
      `fps=8,scale=${ANALYSIS_W}:${ANALYSIS_H}:flags=fast_bilinear,format=gray`,
      '-f',
      'rawvideo',
      'pipe:1',
    ],
    {
      timeoutMs: 120_000,
      onStdout: (chunk) => {
        pending = Buffer.concat([pending, chunk]);
        while (pending.length >= size) {
          frames.push(new Uint8Array(pending.subarray(0, size)));
          pending = pending.subarray(size);
        }
      },
    },
  );
  let subjects = Infinity;
  for (let round = 0; round < 2; round++) {
    const c0 = cpuNow();
    const a = createSubjectAnalyser();
    frames.forEach((f, i) => a.push(i / 8, f));
    a.finish(full.scenes);
    subjects = Math.min(subjects, cpuNow() - c0);
  }
  return { today, subjects, track: full.subjects! };
}

/** The analysis columns of a table row: today's clip analysis and the subject analysis (CPU ms), and the share added. */
export function costColumns(cost: { today: number; subjects: number }): string[] {
  return [
    `${(cost.today * 1000).toFixed(0)}`,
    `${(cost.subjects * 1000).toFixed(0)}`,
    `${((cost.subjects / cost.today) * 100).toFixed(0)} %`,
  ];
}

/** A markdown table through `log`: the header row, its rule, the rows. */
export function logTable(log: (s: string) => void, head: string[], rows: string[][]): void {
  log('\n| ' + head.join(' | ') + ' |');
  log('|' + head.map(() => '---').join('|') + '|');
  for (const r of rows) log('| ' + r.join(' | ') + ' |');
}

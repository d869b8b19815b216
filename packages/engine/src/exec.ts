import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EngineError, cancelledError } from './errors.js';

/**
 * A filter graph longer than this goes to ffmpeg in a file (`-filter_complex_script`), not on the
 * command line: Linux refuses a single argument over 128 KiB (E2BIG), and a long reel's crop paths
 * (several keys a second per segment) or many segments reach that.
 */
export const FILTER_ARG_MAX = 32 * 1024;

/**
 * `args` with each `-filter_complex` value longer than `FILTER_ARG_MAX` written to a file of its
 * own in `dir` and named by `-filter_complex_script`; the files to remove once ffmpeg has ended.
 */
export function spillLongFilters(args: readonly string[], dir = os.tmpdir()): { args: string[]; files: string[] } {
  const out = [...args];
  const files: string[] = [];
  for (let i = 0; i + 1 < out.length; i++) {
    if (out[i] !== '-filter_complex' || out[i + 1]!.length <= FILTER_ARG_MAX) continue;
    const file = path.join(dir, `reelsmith-filters-${process.pid}-${crypto.randomBytes(6).toString('hex')}.txt`);
    fs.writeFileSync(file, out[i + 1]!, { mode: 0o600 });
    files.push(file);
    out.splice(i, 2, '-filter_complex_script', `file:${file}`);
  }
  return { args: out, files };
}

/** Whether process `pid` is running (a process of another user counts). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes the filter-graph files of `spillLongFilters` left in `dir` by processes that are gone (a
 * worker killed while its ffmpeg ran never reaches the removal); returns how many. A live
 * process' files are left alone.
 */
export async function sweepFilterScripts(dir = os.tmpdir()): Promise<number> {
  let removed = 0;
  for (const name of await fs.promises.readdir(dir).catch(() => [] as string[])) {
    const owner = /^reelsmith-filters-(\d+)-[0-9a-f]+\.txt$/.exec(name)?.[1];
    if (!owner || processAlive(Number(owner))) continue;
    await fs.promises.rm(path.join(dir, name), { force: true });
    removed++;
  }
  return removed;
}

export interface ExecOptions {
  /**
   * The overall cap: killed (SIGKILL) after this long whatever it is doing; the promise rejects
   * with TIMEOUT naming the cap. Set it generously where `stallMs` judges progress.
   */
  timeoutMs: number;
  /** Names the cap for its error (e.g. "overall cap 741 s, from 18 s of reel, 450 MB of input and 2 threads"). */
  capReason?: string;
  /**
   * The stall limit: killed when the work made no progress this long (TIMEOUT naming the stall).
   * Progress is a new frame or output time in a `-progress` block (or its end), or output on
   * stdout when `onStdout` reads it, or any output at all when neither is used. Unset: no check.
   */
  stallMs?: number;
  /** Called with each `key=value` block ffmpeg writes for `-progress pipe:1`. */
  onProgress?: (fields: Record<string, string>) => void;
  /** Raw stdout (when not used for progress), e.g. decoded samples. */
  onStdout?: (chunk: Buffer) => void;
  signal?: AbortSignal;
  /** Extra environment for the child (e.g. FONTCONFIG_FILE). */
  env?: Record<string, string>;
  /** Each whole line ffmpeg writes to stderr (e.g. the showinfo filter's lines). */
  onStderrLine?: (line: string) => void;
}

export interface ExecResult {
  stderrTail: string;
}

type MediaCommand = 'ffmpeg' | 'ffprobe';

/**
 * The one place ffmpeg and ffprobe are spawned: no shell, a timeout, progress parsed from
 * `-progress`, the end of stderr kept for error messages.
 */
export function execMedia(command: MediaCommand, args: string[], opts: ExecOptions): Promise<ExecResult> {
  return execPipeline([{ command, args }], opts);
}

/**
 * Runs commands as a pipeline, each one's stdout feeding the next one's stdin (the kernel's pipe,
 * no copy through this process); `opts` read the last one's output. The timeout and the abort
 * signal kill every process; the first failure (in pipeline order) rejects.
 */
export function execPipeline(stages: Array<{ command: MediaCommand; args: string[] }>, opts: ExecOptions): Promise<ExecResult> {
  return new Promise((resolve, reject) => {
    // An abort that came before the start counts too (a listener alone would never fire).
    if (opts.signal?.aborted) return reject(cancelledError());
    // The child inherits this process' environment plus any extra variables; nothing is read here.
    // eslint-disable-next-line no-restricted-properties
    const env = opts.env ? { ...process.env, ...opts.env } : undefined;
    const children: ChildProcess[] = [];
    const scripts: string[] = [];
    const stderr: string[] = stages.map(() => '');
    const exits: Array<{ code: number | null; signal: NodeJS.Signals | null } | undefined> = stages.map(() => undefined);
    let settled = false;
    let failed: Error | undefined;
    const running = () => children.filter((_, i) => !exits[i]);
    const finish = (err?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearInterval(stallTimer);
      opts.signal?.removeEventListener('abort', onAbort);
      // ffmpeg reads its filter script when it starts; each has ended or been killed by now.
      for (const f of scripts) fs.rmSync(f, { force: true });
      if (!err) return resolve({ stderrTail: stderr[stderr.length - 1]! });
      // Killed processes are waited for (a second at most), so none outlives the rejection.
      failed = err;
      running().forEach((c) => c.kill('SIGKILL'));
      if (!running().length) return reject(err);
      setTimeout(() => reject(err), 1000).unref();
    };
    const name = stages.at(-1)!.command;
    const timer = setTimeout(
      () =>
        finish(
          new EngineError(
            'TIMEOUT',
            `${name} did not finish within ${Math.round(opts.timeoutMs / 1000)} s (${opts.capReason ?? 'its overall cap'})${opts.stallMs === undefined ? '' : ', though it was still making progress'}`,
          ),
        ),
      opts.timeoutMs,
    );
    // The stall watchdog: checked a few times per limit, it fires when nothing moved for stallMs.
    const watch = progressWatch(opts.stallMs);
    const stallTimer =
      opts.stallMs === undefined
        ? undefined
        : setInterval(
            () => {
              const idleMs = watch.idleMs();
              if (idleMs >= opts.stallMs!)
                finish(
                  new EngineError(
                    'TIMEOUT',
                    `${name} made no progress for ${Math.round(idleMs / 1000)} s (the stall limit is ${Math.round(opts.stallMs! / 1000)} s)${watch.where()}`,
                  ),
                );
            },
            Math.max(50, Math.min(5000, opts.stallMs / 4)),
          );
    const onAbort = () => finish(cancelledError());
    opts.signal?.addEventListener('abort', onAbort);

    const onExit = () => {
      if (exits.some((e) => !e)) return;
      if (failed) return reject(failed);
      // The first stage that failed names the failure (a later one usually only saw its input
      // end), unless it only failed to write to a next stage that had already failed.
      const nonzero = exits.flatMap((e, i) => (e!.code !== 0 ? [i] : []));
      if (!nonzero.length) return finish();
      const bad = nonzero.find((i) => !/broken pipe/i.test(stderr[i]!)) ?? nonzero[0]!;
      const { code, signal } = exits[bad]!;
      finish(new EngineError('RENDER_FAILED', `${stages[bad]!.command} failed (${signal ?? `exit ${code}`}): ${lastLines(stderr[bad]!)}`));
    };
    // A callback that throws fails the run (and stops its processes) instead of the whole process.
    const guard =
      <A extends unknown[]>(fn: (...a: A) => void) =>
      (...a: A) => {
        try {
          fn(...a);
        } catch (e) {
          finish(e instanceof Error ? e : new Error(String(e)));
        }
      };
    for (const [i, stage] of stages.entries()) {
      const last = i === stages.length - 1;
      const stdin = i === 0 ? 'ignore' : children[i - 1]!.stdout!;
      let child: ChildProcess;
      try {
        const spilled = stage.command === 'ffmpeg' ? spillLongFilters(stage.args) : { args: stage.args, files: [] };
        scripts.push(...spilled.files);
        child = spawn(stage.command, spilled.args, { stdio: [stdin, 'pipe', 'pipe'], env });
      } catch (e) {
        // E2BIG, EMFILE...: nothing of this stage runs; the ones before are stopped.
        exits.fill({ code: null, signal: null }, i);
        finish(new EngineError('RENDER_FAILED', `${stage.command} could not start: ${(e as Error).message}`));
        break;
      }
      children.push(child);
      let pendingErr = '';
      child.stderr!.on(
        'data',
        guard((d: Buffer) => {
          const text = d.toString();
          stderr[i] = (stderr[i] + text).slice(-8000);
          if (last && !opts.onStdout && !opts.onProgress) watch.moved();
          if (last && opts.onStderrLine) {
            pendingErr += text;
            const lines = pendingErr.split('\n');
            pendingErr = lines.pop() ?? '';
            for (const line of lines) opts.onStderrLine(line);
          }
        }),
      );
      child.on('error', (e) => finish(new EngineError('RENDER_FAILED', `${stage.command} could not start: ${e.message}`)));
      child.on('close', (code, signal) => {
        if (last && pendingErr && opts.onStderrLine) guard(opts.onStderrLine)(pendingErr);
        exits[i] = { code, signal };
        onExit();
      });
      if (!last) continue;
      let pending = '';
      let fields: Record<string, string> = {};
      child.stdout!.on(
        'data',
        guard((chunk: Buffer) => {
          if (!opts.onProgress) watch.moved();
          if (opts.onStdout) return opts.onStdout(chunk);
          if (!opts.onProgress) return;
          pending += chunk.toString();
          const lines = pending.split('\n');
          pending = lines.pop() ?? '';
          for (const line of lines) {
            const eq = line.indexOf('=');
            if (eq < 0) continue;
            const key = line.slice(0, eq).trim();
            fields[key] = line.slice(eq + 1).trim();
            if (key === 'progress') {
              watch.block(fields);
              opts.onProgress(fields);
              fields = {};
            }
          }
        }),
      );
    }
    // The earlier stages' stdout now belongs to the next process; this one must not read it.
    children.slice(0, -1).forEach((c) => c.stdout!.destroy());
  });
}

export const lastLines = (s: string, n = 3) => s.trim().split('\n').slice(-n).join(' | ');

/**
 * What the stall watchdog knows: when the work last moved. A `-progress` block counts as movement
 * only when its frame count, output time or output size grew (ffmpeg repeats the last values twice
 * a second while stuck), or when it is the last one (`progress=end`: the trailer and faststart).
 */
export function progressWatch(stallMs: number | undefined, now: () => number = Date.now) {
  let at = now();
  let best = { frame: -1, time: -1, size: -1 };
  return {
    moved: () => void (at = now()),
    block(f: Record<string, string>) {
      const seen = { frame: num(f.frame), time: num(f.out_time_us ?? f.out_time_ms), size: num(f.total_size) };
      const grew = seen.frame > best.frame || seen.time > best.time || seen.size > best.size;
      best = { frame: Math.max(best.frame, seen.frame), time: Math.max(best.time, seen.time), size: Math.max(best.size, seen.size) };
      if (grew || f.progress === 'end') at = now();
    },
    idleMs: () => (stallMs === undefined ? 0 : now() - at),
    where: () =>
      best.frame >= 0 || best.time >= 0
        ? `; last at frame ${Math.max(0, best.frame)}, ${(Math.max(0, best.time) / 1e6).toFixed(1)} s of output`
        : '',
  };
}

const num = (v: string | undefined) => {
  const n = Number(v);
  return v !== undefined && v !== 'N/A' && Number.isFinite(n) ? n : -1;
};

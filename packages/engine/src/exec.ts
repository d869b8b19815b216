import { spawn } from 'node:child_process';
import { EngineError } from './errors.js';

export interface ExecOptions {
  /** Killed (SIGKILL) after this long; the promise rejects with TIMEOUT. */
  timeoutMs: number;
  /** Called with each `key=value` block ffmpeg writes for `-progress pipe:1`. */
  onProgress?: (fields: Record<string, string>) => void;
  /** Raw stdout (when not used for progress), e.g. decoded samples. */
  onStdout?: (chunk: Buffer) => void;
  signal?: AbortSignal;
  /** Extra environment for the child (e.g. FONTCONFIG_FILE). */
  env?: Record<string, string>;
}

export interface ExecResult {
  stderrTail: string;
}

/**
 * The one place ffmpeg and ffprobe are spawned: no shell, a timeout, progress parsed from
 * `-progress`, the end of stderr kept for error messages.
 */
export function execMedia(command: 'ffmpeg' | 'ffprobe', args: string[], opts: ExecOptions): Promise<ExecResult> {
  return new Promise((resolve, reject) => {
    // An abort that came before the start counts too (a listener alone would never fire).
    if (opts.signal?.aborted) return reject(new EngineError('CANCELLED', 'render cancelled'));
    // The child inherits this process' environment plus any extra variables; nothing is read here.
    // eslint-disable-next-line no-restricted-properties
    const env = opts.env ? { ...process.env, ...opts.env } : undefined;
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
    let stderr = '';
    let pending = '';
    let fields: Record<string, string> = {};
    let settled = false;
    const finish = (err?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      if (err) reject(err);
      else resolve({ stderrTail: stderr });
    };
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      finish(new EngineError('TIMEOUT', `${command} did not finish within ${Math.round(opts.timeoutMs / 1000)} s`));
    }, opts.timeoutMs);
    const onAbort = () => {
      child.kill('SIGKILL');
      finish(new EngineError('CANCELLED', 'render cancelled'));
    };
    opts.signal?.addEventListener('abort', onAbort);
    child.stdout.on('data', (chunk: Buffer) => {
      if (opts.onStdout) return opts.onStdout(chunk);
      if (!opts.onProgress) return;
      pending += chunk.toString();
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        const i = line.indexOf('=');
        if (i < 0) continue;
        const key = line.slice(0, i).trim();
        fields[key] = line.slice(i + 1).trim();
        if (key === 'progress') {
          opts.onProgress(fields);
          fields = {};
        }
      }
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr = (stderr + d.toString()).slice(-8000);
    });
    child.on('error', (e) => finish(new EngineError('RENDER_FAILED', `${command} could not start: ${e.message}`)));
    child.on('close', (code, signal) => {
      if (code === 0) finish();
      else finish(new EngineError('RENDER_FAILED', `${command} failed (${signal ?? `exit ${code}`}): ${lastLines(stderr)}`));
    });
  });
}

export const lastLines = (s: string, n = 3) => s.trim().split('\n').slice(-n).join(' | ');

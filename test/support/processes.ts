/** The product's processes as the end-to-end specs watch them (from /proc), and waiting for a state. */
import fs from 'node:fs';

/** Every process under `root` (children, grandchildren...), from /proc: pid and command line. */
export function descendants(root: number): Array<{ pid: number; cmd: string }> {
  const parent = new Map<number, number>();
  const cmds = new Map<number, string>();
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      // The parent pid is the second field after the parenthesised command name.
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      parent.set(Number(d), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
      cmds.set(Number(d), fs.readFileSync(`/proc/${d}/cmdline`, 'utf8').replace(/\0/g, ' '));
    } catch {
      // exited meanwhile
    }
  }
  const under = (pid: number): boolean => {
    for (let p = parent.get(pid); p !== undefined && p > 1; p = parent.get(p)) if (p === root) return true;
    return false;
  };
  return [...cmds.entries()].filter(([pid]) => under(pid)).map(([pid, cmd]) => ({ pid, cmd }));
}

/** The ffmpeg processes under `root`. */
export const ffmpegsUnder = (root: number) => descendants(root).filter((p) => /(^|\/)ffmpeg /.test(p.cmd));

/** Polls `f` every 100 ms until it gives a truthy value; throws after `timeoutMs`, naming `what`. */
export async function until<T>(
  what: string,
  f: () => T | null | undefined | false | Promise<T | null | undefined | false>,
  timeoutMs: number,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await f();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

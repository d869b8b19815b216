/**
 * One HTTP byte range (RFC 9110 section 14.1.2) against a file of `size` bytes: the inclusive
 * start and end to send, 'unsatisfiable' for a 416, or null to send the whole file (no header,
 * several ranges, or a unit we do not serve).
 */
export function byteRange(header: string | undefined, size: number): { start: number; end: number } | 'unsatisfiable' | null {
  if (!header) return null;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m) return null;
  const [, a, b] = m;
  if (a === '' && b === '') return null;
  if (a === '') {
    // A suffix: the last b bytes.
    const n = Number(b);
    if (n === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(a);
  if (start >= size) return 'unsatisfiable';
  const end = b === '' ? size - 1 : Math.min(Number(b), size - 1);
  if (end < start) return 'unsatisfiable';
  return { start, end };
}

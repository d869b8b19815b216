import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Every relative link and image in README.md and docs/ must resolve inside the repository: the
 * file exists, a `#anchor` names a heading of that file, and no relative path climbs out of the
 * repository (the spec and the design documents live outside it and are described, not linked).
 */

const REPO = path.resolve(__dirname, '..', '..', '..');

/** The Markdown files the check covers: README.md and everything under docs/. */
function markdownFiles(root: string): string[] {
  const out = [path.join(root, 'README.md')];
  const walk = (dir: string) => {
    if (!fs.existsSync(dir)) return;
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.md')) out.push(p);
    }
  };
  walk(path.join(root, 'docs'));
  return out.filter((f) => fs.existsSync(f));
}

/** The text outside fenced code blocks and inline code spans, line numbers kept. */
function prose(markdown: string): string[] {
  let fence: string | undefined;
  return markdown.split('\n').map((line) => {
    const f = /^\s*(`{3,}|~{3,})/.exec(line);
    if (f) {
      if (!fence) fence = f[1]![0]!;
      else if (f[1]![0] === fence) fence = undefined;
      return '';
    }
    return fence ? '' : line.replace(/(`+)[^`]*?\1/g, '');
  });
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  let fence: string | undefined;
  for (const line of markdown.split('\n')) {
    const f = /^\s*(`{3,}|~{3,})/.exec(line);
    if (f) {
      if (!fence) fence = f[1]![0]!;
      else if (f[1]![0] === fence) fence = undefined;
      continue;
    }
    const h = fence ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!h) continue;
    const text = h[1]!.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
    const base = text
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n ? `${base}-${n}` : base);
  }
  return out;
}

interface Link {
  file: string;
  line: number;
  target: string;
}

/** Inline links and images `[t](x)` / `![a](x "title")`, autolinks `<x>` and references `[r]: x`. */
function links(file: string): Link[] {
  const out: Link[] = [];
  prose(fs.readFileSync(file, 'utf8')).forEach((text, i) => {
    const push = (target: string) => out.push({ file, line: i + 1, target });
    for (const m of text.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)/g)) push(m[1]!);
    for (const m of text.matchAll(/<([a-z][a-z0-9+.-]*:[^>\s]+)>/gi)) push(m[1]!);
    const ref = /^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$/.exec(text);
    if (ref) push(ref[1]!);
  });
  return out;
}

/** What is wrong with each link of the files under `root`, as `file:line: target: problem`. */
function brokenLinks(root: string): string[] {
  const problems: string[] = [];
  const headingCache = new Map<string, Set<string>>();
  const headingsOf = (f: string) => {
    if (!headingCache.has(f)) headingCache.set(f, anchors(fs.readFileSync(f, 'utf8')));
    return headingCache.get(f)!;
  };
  for (const file of markdownFiles(root)) {
    for (const { line, target } of links(file)) {
      const where = `${path.relative(root, file)}:${line}: ${target}`;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto: ...: not a file
      if (!target) {
        problems.push(`${where}: empty link`);
        continue;
      }
      if (target.startsWith('/')) {
        problems.push(`${where}: an absolute path; use a path relative to this file`);
        continue;
      }
      const [rawPath, anchor] = target.split('#', 2) as [string, string | undefined];
      const resolved = rawPath ? path.resolve(path.dirname(file), decodeURIComponent(rawPath)) : file;
      const rel = path.relative(root, resolved);
      if (rel.startsWith('..') || path.isAbsolute(rel)) {
        problems.push(`${where}: leaves the repository`);
        continue;
      }
      if (!fs.existsSync(resolved)) {
        problems.push(`${where}: ${rel} does not exist`);
        continue;
      }
      if (anchor !== undefined && resolved.endsWith('.md') && !headingsOf(resolved).has(anchor.toLowerCase()))
        problems.push(`${where}: ${rel} has no heading #${anchor}`);
    }
  }
  return problems;
}

describe('the link check itself', () => {
  let root: string;
  beforeAll(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-links-'));
    fs.mkdirSync(path.join(root, 'docs', 'images'), { recursive: true });
    fs.writeFileSync(path.join(root, 'docs', 'images', 'a.png'), '');
    fs.writeFileSync(
      path.join(root, 'docs', 'guide.md'),
      [
        '# Guide',
        '## The CLI: `reelsmith-render`',
        '## Mail (identity, billing, marketplace)',
        '## Mail (identity, billing, marketplace)',
        '```md',
        '## Not a heading [broken](nowhere.md)',
        '```',
        'Inline `[code](nowhere.md)` is not a link. Back to [the top](#guide).',
      ].join('\n'),
    );
    fs.writeFileSync(
      path.join(root, 'README.md'),
      [
        '![shot](docs/images/a.png) [guide](docs/guide.md#the-cli-reelsmith-render)',
        '[twice](docs/guide.md#mail-identity-billing-marketplace-1) <https://example.com> [web](https://example.com/x.md)',
        '[gone](docs/missing.md) ![gone](docs/images/b.png "title")',
        '[outside](../shared/spec/product-spec.md) [root](/docs/guide.md)',
        '[bad anchor](docs/guide.md#no-such-heading) [self](#nowhere)',
        '[ref]: docs/also-missing.md',
      ].join('\n'),
    );
  });
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  it('finds missing files and images, missing headings, links out of the repository and absolute paths, and nothing else', () => {
    expect(brokenLinks(root)).toEqual([
      'README.md:3: docs/missing.md: docs/missing.md does not exist',
      'README.md:3: docs/images/b.png: docs/images/b.png does not exist',
      'README.md:4: ../shared/spec/product-spec.md: leaves the repository',
      'README.md:4: /docs/guide.md: an absolute path; use a path relative to this file',
      'README.md:5: docs/guide.md#no-such-heading: docs/guide.md has no heading #no-such-heading',
      'README.md:5: #nowhere: README.md has no heading #nowhere',
      'README.md:6: docs/also-missing.md: docs/also-missing.md does not exist',
    ]);
  });
});

describe('README.md and docs/', () => {
  it('link only to files and headings that exist inside the repository', () => {
    const files = markdownFiles(REPO);
    expect(files.map((f) => path.relative(REPO, f))).toEqual(expect.arrayContaining(['README.md', 'docs/architecture.md']));
    expect(brokenLinks(REPO)).toEqual([]);
  });

  it('keep the README short: at most 200 lines', () => {
    expect(fs.readFileSync(path.join(REPO, 'README.md'), 'utf8').trimEnd().split('\n').length).toBeLessThanOrEqual(200);
  });
});

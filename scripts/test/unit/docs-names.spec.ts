import fs from 'node:fs';
import path from 'node:path';

/**
 * Every code name README.md and docs/ put in backticks must exist: a file path names a file or
 * folder of the repository, a package name a workspace or a dependency, and a camelCase or
 * PascalCase name something the code (or the Helm chart and its alert rules) defines. A renamed
 * function or a moved file fails here instead of sending a reader to a name that is gone.
 *
 * Not checked, on purpose: paths that only exist at run time under DATA_DIR (`data/…`, `run/…`,
 * object-store records), routes and absolute system paths (they start with `/`), MIME types, and
 * anything with a placeholder (`<id>`, `{id}`, `*`, `…`).
 */

const REPO = path.resolve(__dirname, '..', '..', '..');
const SKIP_DIRS = new Set(['node_modules', 'dist', '.git', 'data', 'coverage']);
const SOURCE_ROOTS = ['services', 'packages', 'proto', 'web', 'scripts', 'tools', 'test', 'deploy', 'helm', 'media', 'docs', '.ci'];

/** Records the product writes at run time (object storage), named in the docs but never in the repository. */
const RUNTIME_FILES = new Set(['manifest.json', 'failed.json', 'secrets.json', 'supervisor.json', 'routes.json']);
/** Browser and Node globals the docs name. */
const GLOBALS = new Set(['localStorage', 'sessionStorage', 'showModal', 'setTimeout', 'setInterval', 'AbortController', 'EventSource']);

export interface Repo {
  /** Repository-relative paths of every file and folder. */
  paths: Set<string>;
  basenames: Set<string>;
  /** Workspace package names and every dependency named in a package.json. */
  packages: Set<string>;
  /** Names the code defines (functions, constants, types, members, proto messages) and words of the chart's YAML. */
  names: Set<string>;
}

function walk(dir: string, out: string[]): void {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (SKIP_DIRS.has(e.name)) continue;
    const p = path.join(dir, e.name);
    out.push(p);
    if (e.isDirectory()) walk(p, out);
  }
}

export function readRepo(root: string): Repo {
  const all: string[] = [];
  for (const d of SOURCE_ROOTS) if (fs.existsSync(path.join(root, d))) walk(path.join(root, d), all);
  for (const f of fs.readdirSync(root)) all.push(path.join(root, f));
  const files = all.filter((p) => fs.statSync(p).isFile());
  const paths = new Set(all.map((p) => path.relative(root, p)));
  const packages = new Set<string>();
  const names = new Set<string>();
  for (const f of files) {
    const rel = path.relative(root, f);
    if (path.basename(f) === 'package.json') {
      const pkg = JSON.parse(fs.readFileSync(f, 'utf8')) as Record<string, unknown>;
      if (typeof pkg.name === 'string') packages.add(pkg.name);
      for (const k of ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies']) {
        for (const dep of Object.keys((pkg[k] as Record<string, string> | undefined) ?? {})) packages.add(dep);
      }
    } else if (/\.(ts|tsx|js|mjs|cjs|py|proto)$/.test(f)) {
      const code = fs.readFileSync(f, 'utf8');
      const add = (re: RegExp) => {
        for (const m of code.matchAll(re)) if (m[1]) names.add(m[1]);
      };
      // Names the code imports from its libraries are real names too (`createApi` from RTK Query).
      for (const m of code.matchAll(/import\s+(?:type\s+)?\{([^}]*)\}/g)) {
        for (const n of m[1]!.split(','))
          names.add(
            n
              .trim()
              .replace(/^type\s+/, '')
              .split(/\s+as\s+/)[0]!,
          );
      }
      add(/\b(?:function\*?|const|let|var|class|interface|type|enum|message|service|rpc|def)\s+([A-Za-z_$][\w$]*)/g);
      add(/^\s*(?:(?:public|private|protected|static|async|readonly|get|set)\s+)*([A-Za-z_$][\w$]*)\s*(?:<[^>\n]*>)?\s*\(/gm);
      add(/^\s*(?:readonly\s+)?['"]?([A-Za-z_$][\w$]*)['"]?\??\s*:/gm);
      for (const m of code.matchAll(/export\s*\{([^}]*)\}/g)) {
        for (const n of m[1]!.split(','))
          names.add(
            n
              .trim()
              .split(/\s+as\s+/)
              .pop()!,
          );
      }
    } else if (/\.(ya?ml|tpl)$/.test(f) && (rel.startsWith('helm') || rel.startsWith('deploy'))) {
      for (const m of fs.readFileSync(f, 'utf8').matchAll(/[A-Za-z_][\w]*/g)) names.add(m[0]);
    }
  }
  return { paths, basenames: new Set(files.map((f) => path.basename(f))), packages, names };
}

/** Inline code spans outside fenced blocks, with their line numbers. */
export function codeSpans(markdown: string): { code: string; line: number }[] {
  let fence: string | undefined;
  const out: { code: string; line: number }[] = [];
  markdown.split('\n').forEach((line, i) => {
    const f = /^\s*(`{3,}|~{3,})/.exec(line);
    if (f) {
      if (!fence) fence = f[1]![0]!;
      else if (f[1]![0] === fence) fence = undefined;
      return;
    }
    if (fence) return;
    for (const m of line.matchAll(/(`+)([^`]+?)\1/g)) out.push({ code: m[2]!.trim(), line: i + 1 });
  });
  return out;
}

const FILE_LIKE = /^[\w@.-]+(\/[\w@.-]+)+\/?$|^[\w@.-]+\.(ts|tsx|js|mjs|cjs|md|proto|ya?ml|json|sql|py|sh|onnx)$/;
const NAME_LIKE = /^[a-z][a-z0-9]*[A-Z]\w*$|^[A-Z][a-z0-9]+[A-Z]\w*$/;
const RUNTIME_PREFIX = /^(\.\/)?(data|run|scratch|DATA_DIR|web\/dist)(\/|$)/;
const MIME = /^(video|image|audio|application|text|multipart|font)\//;

function fileExists(repo: Repo, docDir: string, token: string): boolean {
  const t = token.replace(/^\.\//, '').replace(/\/$/, '');
  const candidates = [t, path.normalize(path.join(docDir, t))];
  // A built script is named by its output (`api-read.js` from `api-read.ts`).
  if (/\.js$/.test(t)) candidates.push(t.replace(/\.js$/, '.ts'), t.replace(/\.js$/, '.tsx'));
  for (const c of candidates) {
    if (repo.paths.has(c)) return true;
    if (!c.includes('/') && repo.basenames.has(c)) return true;
    // A path inside some service or package (`domain/media.service.ts`, `src/main.ts`).
    for (const p of repo.paths) if (p.endsWith(`/${c}`)) return true;
  }
  return false;
}

/** The backticked names of one Markdown file that name nothing in the repository. */
export function missingNames(repo: Repo, docPath: string, markdown: string): string[] {
  const docDir = path.dirname(docPath);
  const misses: string[] = [];
  for (const { code, line } of codeSpans(markdown)) {
    const token = code.replace(/\(\)$/, '');
    if (/[\s<>{}*…$=]/.test(token) || /^[A-Z]+\/[A-Z]+$/.test(token) || token.startsWith('/') || token.includes('://') || MIME.test(token))
      continue;
    if (/^@[\w-]+$/.test(token)) continue; // a handle, not a package
    if (token.startsWith('@')) {
      const pkg = token.split('/').slice(0, 2).join('/');
      if (!repo.packages.has(pkg)) misses.push(`${docPath}:${line} package ${token}`);
    } else if (FILE_LIKE.test(token)) {
      if (RUNTIME_PREFIX.test(token) || RUNTIME_FILES.has(path.basename(token))) continue;
      if (!fileExists(repo, docDir, token)) misses.push(`${docPath}:${line} file ${token}`);
    } else if (NAME_LIKE.test(token)) {
      if (!repo.names.has(token) && !GLOBALS.has(token)) misses.push(`${docPath}:${line} name ${token}`);
    }
  }
  return misses;
}

function docFiles(): string[] {
  const out = [path.join(REPO, 'README.md')];
  const all: string[] = [];
  walk(path.join(REPO, 'docs'), all);
  return out.concat(all.filter((f) => f.endsWith('.md')));
}

describe('code names in the docs', () => {
  const repo = readRepo(REPO);

  it('name files, packages and definitions that exist', () => {
    const misses = docFiles().flatMap((f) => missingNames(repo, path.relative(REPO, f), fs.readFileSync(f, 'utf8')));
    expect(misses).toEqual([]);
  });

  it('catches a name that is gone and a file that moved', () => {
    const doc = [
      'The best moment: `packages/engine/src/plan.ts` (`bestWindow`), filters in `render-nowhere.ts`.',
      'Built with `@nobody/nothing`; `chooseWindow` picks; stored under `data/objects`.',
    ].join('\n');
    expect(missingNames(repo, 'docs/example.md', doc)).toEqual([
      'docs/example.md:1 name bestWindow',
      'docs/example.md:1 file render-nowhere.ts',
      'docs/example.md:2 package @nobody/nothing',
    ]);
  });
});

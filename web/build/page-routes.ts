import fs from 'node:fs';
import path from 'node:path';
import type { Plugin, Rollup } from 'vite';
import { PAGES, pagePaths, type PageName } from '../src/shell/routes.ts';

/** The file of the build that lists the app's page paths (read by the gateway to answer 404s). */
export const ROUTES_FILE = 'routes.json';

/** The router, relative to the web app's folder. */
const ROUTER = path.join('src', 'shell', 'router.tsx');

type OutputBundle = Rollup.OutputBundle;
type OutputChunk = Rollup.OutputChunk;
type OutputAsset = Rollup.OutputAsset;

/**
 * The modules the router loads for each page: `name: page(() => import('...'), ...)`, or wrapped
 * in `publicPage(...)`, which loads a style sheet too. Read from the router's source, so the router
 * stays the one place that names them.
 */
export function pageModules(routerSource: string, routerFile: string): Map<PageName, string[]> {
  const found = new Map<PageName, string[]>();
  const publicCss = /publicPage =[\s\S]*?import\('([^']+\.css)'\)/.exec(routerSource)?.[1];
  for (const m of routerSource.matchAll(/(\w+): page\(\s*(publicPage\()?\(\) => import\('([^']+)'\)/g)) {
    if (!(m[1]! in PAGES)) continue;
    const modules = [m[3]!, ...(m[2] && publicCss ? [publicCss] : [])];
    found.set(
      m[1] as PageName,
      modules.map((x) => path.resolve(path.dirname(routerFile), x)),
    );
  }
  return found;
}

/**
 * What a page needs beyond the entry: its chunks, the chunks and CSS they import statically, and
 * style sheets it loads itself; less what index.html loads already. URLs under `base`; `root` is
 * the project folder (the bundle names source files relative to it).
 */
export function pagePreloads(bundle: OutputBundle, modules: string[], root: string, base = '/'): { scripts: string[]; styles: string[] } {
  const chunks = Object.values(bundle).filter((o): o is OutputChunk => o.type === 'chunk');
  const byFile = new Map(chunks.map((c) => [c.fileName, c]));
  const closure = (roots: OutputChunk[]) => {
    const seen = new Set<string>();
    const walk = (c: OutputChunk) => {
      if (seen.has(c.fileName)) return;
      seen.add(c.fileName);
      for (const f of c.imports) {
        const next = byFile.get(f);
        if (next) walk(next);
      }
    };
    roots.forEach(walk);
    return seen;
  };
  const cssOf = (files: Iterable<string>) => [...files].flatMap((f) => [...(byFile.get(f)!.viteMetadata?.importedCss ?? [])]);
  const loaded = closure(chunks.filter((c) => c.isEntry));
  const loadedCss = new Set(cssOf(loaded));
  const pages = chunks.filter((c) => c.facadeModuleId !== null && modules.some((m) => stripExt(m) === stripExt(c.facadeModuleId!)));
  const sheets = Object.values(bundle)
    .filter((o): o is OutputAsset => o.type === 'asset' && o.fileName.endsWith('.css'))
    .filter((a) => a.originalFileNames.some((f) => modules.includes(path.resolve(root, f))))
    .map((a) => a.fileName);
  const files = [...closure(pages)].filter((f) => !loaded.has(f));
  const styles = [...new Set([...cssOf(files), ...sheets])].filter((f) => !loadedCss.has(f));
  return { scripts: files.map((f) => base + f), styles: styles.map((f) => base + f) };
}

const stripExt = (file: string) => file.replace(/\.[cm]?[jt]sx?$/, '');

/**
 * index.html with the page's own chunks preloaded, so they download beside the entry rather than
 * after it, and its own style sheets linked as index.html links the entry's: the browser applies
 * them before the first paint, and the page's import finds them there and does not add them again
 * (adding them then cost a second style pass over the whole page, after the first paint).
 */
export function withPreloads(html: string, p: { scripts: string[]; styles: string[] }): string {
  const links = [
    ...p.scripts.map((s) => `    <link rel="modulepreload" crossorigin href="${s}">`),
    ...p.styles.map((s) => `    <link rel="stylesheet" crossorigin href="${s}">`),
  ];
  return links.length ? html.replace(/\n?\s*<\/head>/, `\n${links.join('\n')}\n  </head>`) : html;
}

/**
 * Vite plugin: writes the router's page paths (src/shell/routes.ts) to dist/routes.json, and for
 * each page a copy of index.html that preloads its code (`pages/<name>.html`, named in
 * routes.json's `html`), which the gateway sends for that page's path.
 */
export function pageRoutes(): Plugin {
  let root = process.cwd();
  let base = '/';
  return {
    name: 'reelsmith:page-routes',
    apply: 'build',
    // After Vite's own HTML plugin has put index.html in the bundle.
    enforce: 'post',
    configResolved(config) {
      root = config.root;
      base = config.base;
    },
    generateBundle(_options, bundle) {
      const index = bundle['index.html'] as OutputAsset | undefined;
      const html: Record<string, string> = {};
      if (index) {
        const source = String(index.source);
        const router = path.join(root, ROUTER);
        for (const [name, modules] of pageModules(fs.readFileSync(router, 'utf8'), router)) {
          const fileName = `pages/${name}.html`;
          this.emitFile({ type: 'asset', fileName, source: withPreloads(source, pagePreloads(bundle, modules, root, base)) });
          html[PAGES[name].path] = fileName;
        }
      }
      this.emitFile({ type: 'asset', fileName: ROUTES_FILE, source: `${JSON.stringify({ pages: pagePaths(), html }, null, 2)}\n` });
    },
  };
}

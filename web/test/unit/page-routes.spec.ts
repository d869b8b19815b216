import fs from 'node:fs';
import path from 'node:path';
import type { Rollup } from 'vite';
import { pageModules, pagePreloads, withPreloads } from '../../build/page-routes';
import { PAGES } from '../../src/shell/routes';

const WEB = path.resolve(__dirname, '..', '..');
const ROUTER = path.join(WEB, 'src', 'shell', 'router.tsx');

describe("each page's own copy of index.html, preloading its code", () => {
  it("finds every page's module in the router, and the public pages' style sheet", () => {
    const modules = pageModules(fs.readFileSync(ROUTER, 'utf8'), ROUTER);
    expect([...modules.keys()].sort()).toEqual(Object.keys(PAGES).sort());
    for (const [name, files] of modules) {
      for (const f of files)
        expect({ name, exists: ['', '.tsx', '.ts'].some((ext) => fs.existsSync(f + ext)) }).toEqual({ name, exists: true });
    }
    const publicCss = path.join(WEB, 'src', 'features', 'public', 'public.css');
    expect(modules.get('about')).toEqual([path.join(WEB, 'src', 'features', 'public', 'AboutPage'), publicCss]);
    expect(modules.get('pricing')).toEqual([path.join(WEB, 'src', 'features', 'pricing', 'PricingPage')]);
  });

  it("preloads the page's chunks and style sheets that the entry does not load already", () => {
    const chunk = (fileName: string, facade: string | null, imports: string[], css: string[] = [], isEntry = false) =>
      ({
        type: 'chunk',
        fileName,
        facadeModuleId: facade,
        imports,
        isEntry,
        viteMetadata: { importedCss: new Set(css), importedAssets: new Set() },
      }) as unknown as Rollup.OutputChunk;
    const asset = (fileName: string, originalFileNames: string[]) =>
      ({ type: 'asset', fileName, originalFileNames }) as unknown as Rollup.OutputAsset;
    const bundle = {
      'assets/index.js': chunk('assets/index.js', `${WEB}/index.html`, ['assets/react.js'], ['assets/index.css'], true),
      'assets/react.js': chunk('assets/react.js', null, []),
      'assets/AboutPage.js': chunk(
        'assets/AboutPage.js',
        `${WEB}/src/features/public/AboutPage.tsx`,
        ['assets/react.js', 'assets/format.js'],
        ['assets/AboutPage.css'],
      ),
      'assets/format.js': chunk('assets/format.js', null, ['assets/react.js'], ['assets/index.css']),
      'assets/Other.js': chunk('assets/Other.js', `${WEB}/src/features/other/Other.tsx`, []),
      'assets/public.css': asset('assets/public.css', ['src/features/public/public.css']),
      'assets/index.css': asset('assets/index.css', ['index.html']),
    } as unknown as Rollup.OutputBundle;
    const p = pagePreloads(bundle, [`${WEB}/src/features/public/AboutPage`, `${WEB}/src/features/public/public.css`], WEB);
    expect(p).toEqual({ scripts: ['/assets/AboutPage.js', '/assets/format.js'], styles: ['/assets/AboutPage.css', '/assets/public.css'] });
    expect(pagePreloads(bundle, [`${WEB}/src/features/none/Page`], WEB)).toEqual({ scripts: [], styles: [] });

    const html = '<html>\n  <head>\n    <title>Reelsmith</title>\n  </head>\n  <body></body>\n</html>';
    expect(withPreloads(html, p)).toBe(
      '<html>\n  <head>\n    <title>Reelsmith</title>\n' +
        '    <link rel="modulepreload" crossorigin href="/assets/AboutPage.js">\n' +
        '    <link rel="modulepreload" crossorigin href="/assets/format.js">\n' +
        '    <link rel="stylesheet" crossorigin href="/assets/AboutPage.css">\n' +
        '    <link rel="stylesheet" crossorigin href="/assets/public.css">\n' +
        '  </head>\n  <body></body>\n</html>',
    );
    expect(withPreloads(html, { scripts: [], styles: [] })).toBe(html);
  });
});

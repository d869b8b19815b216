import fs from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** Hashed build output: its name changes with its content, so a year of caching is safe. */
export const IMMUTABLE = 'public, max-age=31536000, immutable';
/** Everything else (index.html, robots.txt, the favicon) is revalidated on each use (ETag). */
export const REVALIDATE = 'no-cache';
/** Written by the web build (web/build/page-routes.ts): the app's page paths. */
export const ROUTES_FILE = 'routes.json';

/** Paths that are never pages: the API, the socket and the build's assets (their 404s are not the page). */
const NOT_PAGES = /^\/(api|ws|assets)(\/|$)/i;
/** Files of the build that are not served as they are: the page itself, build metadata, compressed copies, source maps, dotfiles. */
const PRIVATE = /(^|\/)\.|\.(map|br|gz)$|^(index\.html|routes\.json)$/;

/**
 * Finds the app's page path (`:name` is one segment) that a path shows, exactly as the web router
 * does (web/src/shell/routes.ts `pageAt`): letter case matters and trailing slashes do not.
 * Undefined: no page.
 */
export function pageFinder(paths: string[]): (pathname: string) => string | undefined {
  const patterns = paths.map((p) => {
    const source =
      p === '/'
        ? '/'
        : p
            .replace(/\/+$/, '')
            .split('/')
            .map((segment) => (segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
            .join('/');
    return { page: p, re: new RegExp(`^${source}$`) };
  });
  return (pathname) => {
    const trimmed = pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname;
    return patterns.find(({ re }) => re.test(trimmed))?.page;
  };
}

export interface PageList {
  pages: string[];
  /** Per page path, the build's copy of index.html that preloads that page's code. */
  html: Record<string, string>;
}

/** The page paths of a build; undefined when the build has no list (every path is then a page). */
export function readPagePaths(webDist: string): PageList | undefined {
  try {
    const { pages, html } = JSON.parse(fs.readFileSync(path.join(webDist, ROUTES_FILE), 'utf8')) as { pages?: unknown; html?: unknown };
    if (!Array.isArray(pages) || !pages.every((p) => typeof p === 'string')) return undefined;
    const files: Record<string, string> = {};
    // Only files of the build's pages/ folder, and only those that exist.
    for (const [page, file] of Object.entries(html && typeof html === 'object' ? html : {}))
      if (typeof file === 'string' && /^pages\/[\w-]+\.html$/.test(file) && fs.existsSync(path.join(webDist, file))) files[page] = file;
    return { pages, html: files };
  } catch {
    return undefined;
  }
}

const pathnameOf = (req: FastifyRequest): string | undefined => {
  try {
    return decodeURIComponent(req.url.split('?')[0]!);
  } catch {
    return undefined; // a malformed escape is no page of ours
  }
};

/**
 * Serves the built web app (`webDist`, from `npm run build`), when there is one: hashed
 * `/assets/*` cached for a year, top-level files (robots.txt, favicon) and every page path with
 * index.html; any other path gets index.html with status 404 (the app shows its not-found page).
 * Each file goes out as its precompressed `.br` or `.gz` copy when the client accepts one.
 * GET routes answer HEAD too. Returns false when there is no build.
 */
export async function serveWebApp(app: FastifyInstance, webDist: string): Promise<boolean> {
  const indexFile = path.join(webDist, 'index.html');
  if (!fs.existsSync(indexFile)) return false;
  const assetsDir = path.join(webDist, 'assets');
  const list = readPagePaths(webDist);
  const findPage = list ? pageFinder(list.pages) : () => '';
  /** The page's own copy of index.html (its code preloaded), else index.html. */
  const htmlOf = (page: string) => list?.html[page] ?? 'index.html';
  const topFiles = new Set(
    fs
      .readdirSync(webDist, { withFileTypes: true })
      .filter((f) => f.isFile() && !PRIVATE.test(f.name))
      .map((f) => f.name),
  );

  await app.register(fastifyStatic, {
    root: webDist,
    serve: false,
    index: false,
    cacheControl: false,
    preCompressed: true,
    setHeaders: (res, file) => {
      res.setHeader('cache-control', file.startsWith(assetsDir + path.sep) ? IMMUTABLE : REVALIDATE);
      res.setHeader('vary', 'Accept-Encoding');
    },
  });

  const sendIndex = async (reply: FastifyReply, status: number, page?: string) => {
    if (status === 200) return reply.sendFile(htmlOf(page ?? ''));
    // A 404 page is sent whole (no conditional 304 of the page it is not).
    return reply
      .code(status)
      .header('cache-control', REVALIDATE)
      .type('text/html; charset=utf-8')
      .send(await fs.promises.readFile(indexFile));
  };

  // The web app's files and pages are not part of the REST API: left out of its OpenAPI document.
  app.get('/assets/*', { schema: { hide: true } }, (req, reply) => {
    const file = (req.params as { '*': string })['*'];
    if (!file || PRIVATE.test(file) || path.normalize(file).startsWith('..')) return reply.callNotFound();
    return reply.sendFile(`assets/${file}`);
  });
  app.get('/*', { schema: { hide: true } }, (req, reply) => {
    const pathname = pathnameOf(req);
    if (pathname === undefined) return sendIndex(reply, 404);
    if (NOT_PAGES.test(pathname)) return reply.callNotFound();
    const name = pathname.slice(1);
    if (topFiles.has(name)) return reply.sendFile(name);
    const page = findPage(pathname);
    return sendIndex(reply, page === undefined ? 404 : 200, page);
  });
  return true;
}

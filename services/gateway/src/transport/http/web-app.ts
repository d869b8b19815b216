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
 * Matches a path against the app's page paths (`:name` is one segment), the way the web router
 * does: a trailing slash and letter case do not matter.
 */
export function pageMatcher(paths: string[]): (pathname: string) => boolean {
  const patterns = paths.map((p) => {
    const source = p
      .replace(/\/+$/, '')
      .split('/')
      .map((segment) => (segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('/');
    return new RegExp(`^${source}/?$`, 'i');
  });
  return (pathname) => patterns.some((re) => re.test(pathname));
}

/** The page paths of a build; undefined when the build has no list (every path is then a page). */
export function readPagePaths(webDist: string): string[] | undefined {
  try {
    const { pages } = JSON.parse(fs.readFileSync(path.join(webDist, ROUTES_FILE), 'utf8')) as { pages?: unknown };
    return Array.isArray(pages) && pages.every((p) => typeof p === 'string') ? pages : undefined;
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
  const isPage = (() => {
    const paths = readPagePaths(webDist);
    return paths ? pageMatcher(paths) : () => true;
  })();
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

  const sendIndex = async (reply: FastifyReply, status: number) => {
    if (status === 200) return reply.sendFile('index.html');
    // A 404 page is sent whole (no conditional 304 of the page it is not).
    return reply
      .code(status)
      .header('cache-control', REVALIDATE)
      .type('text/html; charset=utf-8')
      .send(await fs.promises.readFile(indexFile));
  };

  app.get('/assets/*', (req, reply) => {
    const file = (req.params as { '*': string })['*'];
    if (!file || PRIVATE.test(file) || path.normalize(file).startsWith('..')) return reply.callNotFound();
    return reply.sendFile(`assets/${file}`);
  });
  app.get('/*', (req, reply) => {
    const pathname = pathnameOf(req);
    if (pathname === undefined) return sendIndex(reply, 404);
    if (NOT_PAGES.test(pathname)) return reply.callNotFound();
    const name = pathname.slice(1);
    if (topFiles.has(name)) return reply.sendFile(name);
    return sendIndex(reply, isPage(pathname) ? 200 : 404);
  });
  return true;
}

// One entry per page on purpose: the spec's page table, each with its own path.
/**
 * The web app's pages, in one list: the router builds its table from it, and the build writes the
 * paths to dist/routes.json, from which the gateway answers any other path with the app's page and
 * status 404. `layout` pages sit inside the shared layout (top bar and footer).
 */
export const PAGES = {
  home: { path: '/', layout: true },
  demos: { path: '/demos', layout: true },
  guide: { path: '/guide', layout: true },
  pricing: { path: '/pricing', layout: true },
  reels: { path: '/reels', layout: true },
  library: { path: '/library', layout: true },
  about: { path: '/about', layout: true },
  hallOfFame: { path: '/hall-of-fame', layout: true },
  contact: { path: '/contact', layout: true },
  admin: { path: '/admin', layout: true },
  marketplace: { path: '/footage-marketplace', layout: true },
  verifyEmail: { path: '/verify-email', layout: false },
  resetPassword: { path: '/reset-password', layout: false },
} as const satisfies Record<string, { path: string; layout: boolean }>;

export type PageName = keyof typeof PAGES;

/** Every page's path (`:name` marks a parameter segment), as written to dist/routes.json. */
export const pagePaths = (): string[] => Object.values(PAGES).map((p) => p.path);

const byPath = new Map((Object.keys(PAGES) as PageName[]).map((name) => [PAGES[name].path as string, name]));

/** The page at a path (a trailing slash is ignored; the query and hash are not part of it), or undefined. */
export const pageAt = (pathname: string): PageName | undefined => byPath.get(pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname);

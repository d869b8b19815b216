import type { Plugin } from 'vite';
import { pagePaths } from '../src/app/routes.ts';

/** The file of the build that lists the app's page paths (read by the gateway to answer 404s). */
export const ROUTES_FILE = 'routes.json';

/** Vite plugin: writes the router's page paths (src/app/routes.ts) to dist/routes.json. */
export function pageRoutes(): Plugin {
  return {
    name: 'reelsmith:page-routes',
    apply: 'build',
    generateBundle() {
      this.emitFile({ type: 'asset', fileName: ROUTES_FILE, source: `${JSON.stringify({ pages: pagePaths() }, null, 2)}\n` });
    },
  };
}

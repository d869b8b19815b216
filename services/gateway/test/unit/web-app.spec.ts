import { pageFinder } from '../../src/transport/http/web-app';

describe("matching the web app's page paths", () => {
  const find = pageFinder(['/', '/demos', '/hall-of-fame', '/reels/:id', '/a.b']);
  const isPage = (p: string) => find(p) !== undefined;

  it('matches a page whatever its trailing slashes, as the web router does', () => {
    for (const p of ['/', '/demos', '/demos/', '/demos//', '/hall-of-fame', '/reels/42', '/reels/42/', '/a.b'])
      expect({ p, page: isPage(p) }).toEqual({ p, page: true });
  });

  it('matches nothing else: another letter case, deeper paths, prefixes, a missing parameter, regex characters taken literally', () => {
    for (const p of [
      '/DEMOS',
      '/Demos/',
      '/demo',
      '/demos/x',
      '/demosx',
      '/hall',
      '/reels',
      '/reels/',
      '/reels/1/2',
      '/aXb',
      '//',
      '/robots.txt',
    ])
      expect({ p, page: isPage(p) }).toEqual({ p, page: false });
  });
});

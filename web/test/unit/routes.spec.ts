import { PAGES, pageAt } from '../../src/shell/routes';

describe('pageAt: which page a path shows', () => {
  it('finds every page of the table by its path, with or without a trailing slash', () => {
    for (const [name, { path }] of Object.entries(PAGES)) {
      expect(pageAt(path)).toBe(name);
      if (path !== '/') expect(pageAt(`${path}/`)).toBe(name);
    }
  });

  it('knows no other path: the not-found page shows there', () => {
    for (const path of ['/nope', '/pricing/extra', '/Pricing', '//', '/admin/x', '/reels2']) expect(pageAt(path)).toBeUndefined();
  });
});

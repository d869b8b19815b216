import { CREATOR_CANDIDATES, showcaseCreators, type ShowcaseCreatorPorts } from '../../src/domain/showcase-creators';

const row = (ownerId: string, featuredViews: number) => ({ ownerId, reels: 3, featuredReels: 1, featuredViews });

describe('showcaseCreators: the Hall of Fame creator cards', () => {
  it('lists only accounts with a public name, most viewed first as media-library ranked them, up to the limit', async () => {
    const asked: number[] = [];
    const ports: ShowcaseCreatorPorts = {
      creators: async (limit) => (asked.push(limit), [row('a', 90), row('b', 50), row('c', 20), row('d', 10)]),
      publicNames: async (ids) => new Map(ids.filter((id) => id !== 'b').map((id) => [id, `Name ${id}`])),
    };
    expect(await showcaseCreators(ports, 2)).toEqual([
      { display_name: 'Name a', reels: 3, featured_reels: 1, views: 90 },
      { display_name: 'Name c', reels: 3, featured_reels: 1, views: 20 },
    ]);
    expect(asked).toEqual([CREATOR_CANDIDATES]);
  });

  it('asks identity nothing when the showcase has no creators, and answers none', async () => {
    const ports: ShowcaseCreatorPorts = {
      creators: async () => [],
      publicNames: async () => {
        throw new Error('identity asked for no one');
      },
    };
    expect(await showcaseCreators(ports, 3)).toEqual([]);
  });
});

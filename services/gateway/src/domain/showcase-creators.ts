/** The creators behind the showcase (media-library) and the public names they chose (identity). */
export interface ShowcaseCreatorPorts {
  /** Accounts owning featured reels, most viewed first, with their figures. */
  creators(limit: number): Promise<Array<{ ownerId: string; reels: number; featuredReels: number; featuredViews: number }>>;
  /** The public names of these accounts (those without one are absent). */
  publicNames(userIds: string[]): Promise<Map<string, string>>;
}

export interface ShowcaseCreator {
  display_name: string;
  reels: number;
  featured_reels: number;
  views: number;
}

/** Creators asked of media-library per listing: accounts without a public name are skipped, so more than shown. */
export const CREATOR_CANDIDATES = 50;

/**
 * GET /showcase/creators: the Hall of Fame's creator cards. Up to `limit` accounts behind featured
 * reels that chose a public name, most viewed first; an account without one is never listed, and
 * no e-mail or id leaves this function.
 */
export async function showcaseCreators(ports: ShowcaseCreatorPorts, limit: number): Promise<ShowcaseCreator[]> {
  const creators = await ports.creators(CREATOR_CANDIDATES);
  const names = creators.length ? await ports.publicNames(creators.map((c) => c.ownerId)) : new Map<string, string>();
  return creators
    .filter((c) => names.get(c.ownerId))
    .slice(0, limit)
    .map((c) => ({ display_name: names.get(c.ownerId)!, reels: c.reels, featured_reels: c.featuredReels, views: c.featuredViews }));
}

/** Site search results: the pages found, grouped by the space they are in. */

export interface RankedPage {
  spaceId: string;
  score: number;
}

/** Spaces in the order of their best page, each with its pages in rank order. */
export function groupBySpace<P extends RankedPage>(pages: P[], titles: Map<string, string>) {
  const groups = new Map<string, { type: 'space'; id: string; title: string; score: number; pages: Omit<P, 'spaceId'>[] }>();
  for (const { spaceId, ...page } of pages) {
    let group = groups.get(spaceId);
    if (!group) {
      group = { type: 'space', id: spaceId, title: titles.get(spaceId) ?? '', score: page.score, pages: [] };
      groups.set(spaceId, group);
    }
    group.score = Math.max(group.score, page.score);
    group.pages.push(page);
  }
  return [...groups.values()];
}

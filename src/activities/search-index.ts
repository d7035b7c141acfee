import type { Orm } from '../db/orm.ts';
import { syncSearchIndex } from '../db/search.ts';

/** Activities of the `search-index` workflow. */
export function searchIndexActivities(orm: Orm) {
  return {
    /**
     * Brings the space's search index to its current revision (one transaction). Idempotent: a
     * retry, or a second job for the same space, finds nothing left to do.
     */
    async indexSpaceSearch(spaceId: string): Promise<{ changed: boolean }> {
      return { changed: await orm.em.fork().transactional((em) => syncSearchIndex(em, spaceId)) };
    },
  };
}

export type SearchIndexActivities = ReturnType<typeof searchIndexActivities>;

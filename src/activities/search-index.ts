import { forkEm, transaction, type Orm } from '../db/orm.ts';
import { searchIndexIsCurrent, syncSearchIndex } from '../db/search.ts';
import { stepAside } from '../lib/foreground.ts';
import { heartbeating, throwIfCancelled } from '../lib/heartbeat.ts';

/** Activities of the `search-index` workflow. */
export function searchIndexActivities(orm: Orm) {
  return {
    /**
     * Brings the space's search index to its current revision (one transaction). Idempotent and
     * cheap when there is nothing to do: one read, without a lock or a write, finds the index
     * current (a retry, a second job for the same revision, a late job for an older one).
     * Heartbeats while it writes; a cancelled job writes nothing. Background work: it steps aside
     * for the merges this worker runs meanwhile, which someone waits for (src/lib/foreground.ts).
     */
    async indexSpaceSearch(spaceId: string): Promise<{ changed: boolean }> {
      const em = forkEm(orm);
      if (await searchIndexIsCurrent(em, spaceId)) return { changed: false };
      const changed = await heartbeating(
        () =>
          transaction(em, async (tx) => {
            const written = await syncSearchIndex(tx, spaceId, { pause: stepAside });
            // A cancelled job rolls back here rather than commit.
            throwIfCancelled();
            return written;
          }),
        { stage: 'indexing' },
      );
      return { changed };
    },
  };
}

export type SearchIndexActivities = ReturnType<typeof searchIndexActivities>;

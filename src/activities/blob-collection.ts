import { collectBlob, dueBlobCandidates, type BlobOutcome, type CandidateCursor } from '../db/blobs.ts';
import { forkEm, type Orm } from '../db/orm.ts';
import type { CollectedBlobStore } from '../lib/blob-keys.ts';
import { beat, heartbeating } from '../lib/heartbeat.ts';

export type { CandidateCursor } from '../db/blobs.ts';

/** Candidates read a query; blobs looked at in one activity call at most (then the workflow calls again, from `next`). */
const BATCH = 200;
const BATCHES_PER_CALL = 25;
/** Blobs collected at once, each in its own transaction (a connection of the worker's pool each). */
const AT_ONCE = 4;

export interface CollectBlobsInput {
  /** Where the previous call of this pass stopped; absent: the start of the queue. */
  after?: CandidateCursor;
}

export type BlobCounts = Record<BlobOutcome, number>;

export interface CollectBlobsResult {
  counts: BlobCounts;
  /** Set when candidates remain past this call's share: the workflow calls again from here. */
  next?: CandidateCursor;
}

export const noBlobCounts = (): BlobCounts => ({ collected: 0, referenced: 0, recent: 0, busy: 0, adopted: 0 });

/**
 * Activities of the `blob-collection` workflow (and of the space-deletion workflow after its purge).
 * `graceMs` is BLOB_GRACE: the activity reads it from its own configuration, so a change takes
 * effect at the next worker start without touching schedules or running workflows.
 */
export function blobCollectionActivities(orm: Orm, deps: { blobs: CollectedBlobStore; graceMs: number }) {
  return {
    /**
     * Looks at up to BATCH × BATCHES_PER_CALL due candidates after `after`, collecting each blob no
     * row references (src/db/blobs.ts, `collectBlob`), heartbeating its progress. Idempotent: a
     * retried call finds what it did gone from the queue.
     */
    async collectBlobs(input: CollectBlobsInput): Promise<CollectBlobsResult> {
      const counts = noBlobCounts();
      let after = input.after;
      return heartbeating(
        async () => {
          for (let batch = 0; batch < BATCHES_PER_CALL; batch++) {
            const due = await dueBlobCandidates(forkEm(orm), deps.graceMs, BATCH, after);
            if (due.length === 0) return { counts };
            let next = 0;
            await Promise.all(
              Array.from({ length: Math.min(AT_ONCE, due.length) }, async () => {
                while (next < due.length) {
                  const { sha256 } = due[next++];
                  counts[await collectBlob(forkEm(orm), sha256, deps.graceMs, (hash) => deps.blobs.delete(hash))] += 1;
                }
              }),
            );
            after = due[due.length - 1];
            beat({ phase: 'collecting', ...counts, after });
            if (due.length < BATCH) return { counts };
          }
          return { counts, next: after };
        },
        { phase: 'collecting', after },
      );
    },
  };
}

export type BlobCollectionActivities = ReturnType<typeof blobCollectionActivities>;

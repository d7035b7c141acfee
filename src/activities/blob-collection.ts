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

/** Counts by outcome; `failed`: the store refused to delete (the blob stays queued for the next pass). */
export type BlobCounts = Record<BlobOutcome | 'failed', number>;

export interface CollectBlobsResult {
  counts: BlobCounts;
  /** Set when candidates remain past this call's share: the workflow calls again from here. */
  next?: CandidateCursor;
}

export const noBlobCounts = (): BlobCounts => ({ collected: 0, referenced: 0, recent: 0, busy: 0, adopted: 0, failed: 0 });

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
     * retried call finds what it did gone from the queue. A blob the store fails to delete stays
     * queued and is counted `failed`; a call in which every deletion failed (the store is down or
     * refuses deletes) throws the last error, so the UI shows it and Temporal retries.
     */
    async collectBlobs(input: CollectBlobsInput): Promise<CollectBlobsResult> {
      const counts = noBlobCounts();
      let after = input.after;
      let lastError: unknown;
      const collectOne = async (sha256: string) => {
        try {
          counts[await collectBlob(forkEm(orm), sha256, deps.graceMs, (hash) => deps.blobs.delete(hash))] += 1;
        } catch (error) {
          counts.failed += 1;
          lastError = error;
        }
      };
      const settled = (next?: CandidateCursor): CollectBlobsResult => {
        if (counts.failed > 0 && counts.collected === 0) throw lastError;
        return next ? { counts, next } : { counts };
      };
      return heartbeating(
        async () => {
          for (let batch = 0; batch < BATCHES_PER_CALL; batch++) {
            const due = await dueBlobCandidates(forkEm(orm), deps.graceMs, BATCH, after);
            if (due.length === 0) return settled();
            let next = 0;
            await Promise.all(
              Array.from({ length: Math.min(AT_ONCE, due.length) }, async () => {
                while (next < due.length) await collectOne(due[next++].sha256);
              }),
            );
            after = due[due.length - 1];
            beat({ phase: 'collecting', ...counts, after });
            if (due.length < BATCH) return settled();
          }
          return settled(after);
        },
        { phase: 'collecting', after },
      );
    },
  };
}

export type BlobCollectionActivities = ReturnType<typeof blobCollectionActivities>;

import { continueAsNew, defineQuery, log, proxyActivities, setHandler } from '@temporalio/workflow';
import type { BlobCollectionActivities, BlobCounts, CandidateCursor } from '../activities/blob-collection.ts';

export interface BlobCollectionInput {
  /** Counts of the runs before this one, when a long pass continued as new. */
  totals?: BlobCounts;
  /** Where the pass stands, when it continued as new. */
  after?: CandidateCursor;
}

/** What the pass has done so far (the Temporal UI's query tab): counts by outcome. */
export const progressQuery = defineQuery<BlobCounts>('progress');

const { collectBlobs } = proxyActivities<BlobCollectionActivities>({
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '1 minute',
  retry: { initialInterval: '5s', backoffCoefficient: 2, maximumInterval: '10m' },
});

/** Activity calls one run makes before it continues as new, to keep its history short. */
const CALLS_PER_RUN = 100;

export function addCounts(totals: BlobCounts, counts: BlobCounts): BlobCounts {
  return {
    collected: totals.collected + counts.collected,
    referenced: totals.referenced + counts.referenced,
    recent: totals.recent + counts.recent,
    busy: totals.busy + counts.busy,
    adopted: totals.adopted + counts.adopted,
    failed: (totals.failed ?? 0) + (counts.failed ?? 0),
  };
}

/**
 * One pass over the blob-collection queue (src/db/blobs.ts): every candidate past BLOB_GRACE is
 * looked at once, and each blob no row references is deleted from the store. Started every
 * BLOB_COLLECT_EVERY by the `blob-collection/<task queue>` schedule (src/temporal/blob-collection.ts),
 * and by a space deletion after its purge. Answers the counts by outcome.
 */
export async function blobCollection(input: BlobCollectionInput = {}): Promise<BlobCounts> {
  let totals = input.totals ?? { collected: 0, referenced: 0, recent: 0, busy: 0, adopted: 0, failed: 0 };
  let after = input.after;
  setHandler(progressQuery, () => totals);
  for (let call = 0; call < CALLS_PER_RUN; call++) {
    const result = await collectBlobs({ after });
    totals = addCounts(totals, result.counts);
    if (!result.next) {
      log.info('Blob collection finished', { ...totals });
      return totals;
    }
    after = result.next;
  }
  return continueAsNew<typeof blobCollection>({ totals, after });
}

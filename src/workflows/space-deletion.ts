import { condition, defineQuery, defineSignal, log, patched, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { BlobCollectionActivities } from '../activities/blob-collection.ts';
import type { SpaceDeletionActivities } from '../activities/space-deletion.ts';

export interface SpaceDeletionInput {
  spaceId: string;
  organizationId: string;
  /** The space's `deletedAt` when this deletion was requested (ISO 8601); the purge only removes that deletion. */
  deletedAt: string;
  retentionMs: number;
}

export interface SpaceDeletionStatus {
  state: 'waiting' | 'restored' | 'purging' | 'purged' | 'already-gone';
  purgeAt: string;
}

/** Restores the space (the API sends it after restoring; an operator may send it from the UI). */
export const restoreSignal = defineSignal('restore');
/** Skips the rest of the retention and purges now (for operators). */
export const purgeNowSignal = defineSignal('purge-now');
export const statusQuery = defineQuery<SpaceDeletionStatus>('status');

const { purgeDeletedSpace, restoreDeletedSpace } = proxyActivities<SpaceDeletionActivities>({
  startToCloseTimeout: '5 minutes',
  retry: { initialInterval: '5s', backoffCoefficient: 2, maximumInterval: '10m' },
});

const { collectBlobs } = proxyActivities<BlobCollectionActivities>({
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '1 minute',
  retry: { initialInterval: '5s', backoffCoefficient: 2, maximumInterval: '10m' },
});

/** Deletions started before this change end at the purge; later ones also collect the blobs the purge freed. */
export const PURGE_COLLECTS_BLOBS = 'purge-collects-blobs';

/**
 * Keeps a deleted space restorable for the retention period, then purges it for good, and deletes
 * the blobs only it referenced (docs/operations.md, "Deleting blobs").
 * A `restore` signal ends the wait without purging. The purge itself is guarded by `deletedAt`,
 * so a restore racing the timer, a retry or a reset from the UI never removes a restored space.
 */
export async function spaceDeletion(input: SpaceDeletionInput): Promise<SpaceDeletionStatus> {
  const purgeAt = new Date(Date.parse(input.deletedAt) + input.retentionMs).toISOString();
  let state: SpaceDeletionStatus['state'] = 'waiting';
  let restored = false;
  let purgeNow = false;
  setHandler(restoreSignal, () => {
    restored = true;
  });
  setHandler(purgeNowSignal, () => {
    purgeNow = true;
  });
  setHandler(statusQuery, () => ({ state, purgeAt }));

  const remaining = Math.max(0, Date.parse(purgeAt) - Date.now());
  await condition(() => restored || purgeNow, remaining);
  if (restored) {
    // A no-op when the API restored it already; restores it when the signal came from an operator.
    await restoreDeletedSpace({ spaceId: input.spaceId, deletedAt: input.deletedAt });
    state = 'restored';
    log.info('Space restored before the purge', { spaceId: input.spaceId });
    return { state, purgeAt };
  }
  state = 'purging';
  const purged = await purgeDeletedSpace({ spaceId: input.spaceId, deletedAt: input.deletedAt });
  if (purged && patched(PURGE_COLLECTS_BLOBS)) {
    // The purge queued its blobs as unreferenced since the deletion, so with a retention longer
    // than BLOB_GRACE they are due now: the ones no other row references go with the space.
    let after;
    do after = (await collectBlobs({ after })).next;
    while (after);
  }
  state = purged ? 'purged' : 'already-gone';
  log.info('Space deletion finished', { spaceId: input.spaceId, state, workflowId: workflowInfo().workflowId });
  return { state, purgeAt };
}

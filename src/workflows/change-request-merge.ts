import { patched, proxyActivities } from '@temporalio/workflow';
import type { ChangeRequestMergeActivities, ChangeRequestJob, MergeOutcome } from '../activities/change-request-merge.ts';
import { searchIndex, startSearchIndex } from './search-index.ts';

const { mergeChangeRequest, updateChangeRequest } = proxyActivities<ChangeRequestMergeActivities>({
  startToCloseTimeout: '2 minutes',
  // The activities heartbeat every few seconds: a worker that dies mid-merge is noticed after this, not after 2 minutes.
  heartbeatTimeout: '20 seconds',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '30s', maximumAttempts: 10 },
});

/**
 * Patch: the merge activity starts the `search-index` job of its revision itself, once committed,
 * which saves this workflow a child start and a workflow task. Histories recorded before it start
 * the job here, as a child (a second start of the same job is a no-op).
 */
const MERGE_ACTIVITY_STARTS_SEARCH_INDEX = 'merge-activity-starts-search-index';

/**
 * Merges a change request into its space (one transaction in the activity; retries are safe); the
 * activity then starts the `search-index` job for the new revision, and the merge answers without
 * waiting for it.
 */
export async function changeRequestMerge(job: ChangeRequestJob): Promise<MergeOutcome> {
  const outcome = await mergeChangeRequest(job);
  if (outcome.result === 'merge' && !patched(MERGE_ACTIVITY_STARTS_SEARCH_INDEX)) await startSearchIndex(job.spaceId, outcome.revision);
  return outcome;
}

/** Pulls the space's primary content into a change request. */
export async function changeRequestUpdate(job: ChangeRequestJob): Promise<MergeOutcome> {
  return updateChangeRequest(job);
}

// A worker bundled from this module alone runs the job it starts too.
export { searchIndex };

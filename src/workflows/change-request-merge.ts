import { proxyActivities } from '@temporalio/workflow';
import type { ChangeRequestMergeActivities, ChangeRequestJob, MergeOutcome } from '../activities/change-request-merge.ts';
import { searchIndex, startSearchIndex } from './search-index.ts';

const { mergeChangeRequest, updateChangeRequest } = proxyActivities<ChangeRequestMergeActivities>({
  startToCloseTimeout: '2 minutes',
  // The activities heartbeat every few seconds: a worker that dies mid-merge is noticed after this, not after 2 minutes.
  heartbeatTimeout: '20 seconds',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '30s', maximumAttempts: 10 },
});

/**
 * Merges a change request into its space (one transaction in the activity; retries are safe),
 * then starts the `search-index` job for the new revision and answers without waiting for it.
 */
export async function changeRequestMerge(job: ChangeRequestJob): Promise<MergeOutcome> {
  const outcome = await mergeChangeRequest(job);
  if (outcome.result === 'merge') await startSearchIndex(job.spaceId, outcome.revision);
  return outcome;
}

/** Pulls the space's primary content into a change request. */
export async function changeRequestUpdate(job: ChangeRequestJob): Promise<MergeOutcome> {
  return updateChangeRequest(job);
}

// A worker bundled from this module alone runs the job it starts too.
export { searchIndex };

import { proxyActivities } from '@temporalio/workflow';
import type { ChangeRequestMergeActivities, ChangeRequestJob, MergeOutcome } from '../activities/change-request-merge.ts';

const { mergeChangeRequest, updateChangeRequest } = proxyActivities<ChangeRequestMergeActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '30s', maximumAttempts: 10 },
});

/** Merges a change request into its space (one transaction in the activity; retries are safe). */
export async function changeRequestMerge(job: ChangeRequestJob): Promise<MergeOutcome> {
  return mergeChangeRequest(job);
}

/** Pulls the space's primary content into a change request. */
export async function changeRequestUpdate(job: ChangeRequestJob): Promise<MergeOutcome> {
  return updateChangeRequest(job);
}

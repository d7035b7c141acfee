import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { ParentClosePolicy, proxyActivities, startChild, workflowInfo } from '@temporalio/workflow';
import type { ChangeRequestMergeActivities, ChangeRequestJob, MergeOutcome } from '../activities/change-request-merge.ts';
import { JOB_KIND, ORGANIZATION_ID, SPACE_ID } from './search-attributes.ts';
import { searchIndex, searchIndexWorkflowId } from './search-index.ts';

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

async function startSearchIndex(spaceId: string, revisionId: string): Promise<void> {
  const organizationId = workflowInfo().typedSearchAttributes.get(ORGANIZATION_ID);
  try {
    await startChild(searchIndex, {
      workflowId: searchIndexWorkflowId(spaceId, revisionId),
      args: [spaceId],
      parentClosePolicy: ParentClosePolicy.ABANDON,
      workflowExecutionTimeout: '1 hour',
      typedSearchAttributes: [
        ...(organizationId === undefined ? [] : [{ key: ORGANIZATION_ID, value: organizationId }]),
        { key: SPACE_ID, value: spaceId },
        { key: JOB_KIND, value: 'search-index' },
      ],
    });
  } catch (error) {
    // A merge asked again for a merged change request: that revision's index job exists already.
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}

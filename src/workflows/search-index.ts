import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { ParentClosePolicy, proxyActivities, startChild, workflowInfo } from '@temporalio/workflow';
import { JOB_KIND, ORGANIZATION_ID, SPACE_ID } from './search-attributes.ts';
import type { SearchIndexActivities } from '../activities/search-index.ts';

const { indexSpaceSearch } = proxyActivities<SearchIndexActivities>({
  startToCloseTimeout: '10 minutes',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 20 },
});

/** `search-index/<spaceId>/<revisionId>`: one index job per revision a merge made. */
export const searchIndexWorkflowId = (spaceId: string, revisionId: string) => `search-index/${spaceId}/${revisionId}`;

/**
 * Brings a space's search index up to its current revision after a merge, outside the merge's
 * transaction, so the merge answers without waiting for the index (search catches up within
 * moments). Started by the merge workflow and left running when it ends.
 */
export async function searchIndex(spaceId: string): Promise<{ changed: boolean }> {
  return indexSpaceSearch(spaceId);
}

/**
 * From a workflow that made `revisionId` the space's content: starts the `search-index` job for it
 * and goes on without waiting (the job outlives its parent). Asked twice for one revision, it
 * starts one job. This is the one way the search index follows content.
 */
export async function startSearchIndex(spaceId: string, revisionId: string): Promise<void> {
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
    // Asked again for the same revision (a retried merge): its index job exists already.
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}

import { WorkflowExecutionAlreadyStartedError, WorkflowIdReusePolicy } from '@temporalio/common';
import { ParentClosePolicy, proxyActivities, startChild, workflowInfo } from '@temporalio/workflow';
import { JOB_KIND, ORGANIZATION_ID, SPACE_ID } from './search-attributes.ts';
import type { SearchIndexActivities } from '../activities/search-index.ts';

const { indexSpaceSearch } = proxyActivities<SearchIndexActivities>({
  startToCloseTimeout: '10 minutes',
  // The activity heartbeats while it writes a large index: a lost worker is noticed after this.
  heartbeatTimeout: '30 seconds',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 20 },
});

/** `search-index/<spaceId>/<revisionId>`: one index job per revision a merge or an import made. */
export const searchIndexWorkflowId = (spaceId: string, revisionId: string) => `search-index/${spaceId}/${revisionId}`;

/**
 * Brings a space's search index up to its current revision after a merge or an import, outside
 * their transactions, so they answer without waiting for the index (search catches up within
 * moments). Started by the merge and import workflows and left running when they end. The index
 * goes to the space's current revision, whichever revision the job was started for: a job that
 * comes late for an older revision finds the index current, or brings it to the newest, never back.
 */
export async function searchIndex(spaceId: string): Promise<{ changed: boolean }> {
  return indexSpaceSearch(spaceId);
}

/**
 * From a workflow that made `revisionId` the space's content: starts the `search-index` job for it
 * and goes on without waiting (the job outlives its parent). Asked twice for one revision, it
 * starts one job, also when the first has finished already (unless that one failed: then it runs
 * again). This is the one way the search index follows content. `taskQueue`: where the job runs,
 * when not on the parent's own queue.
 */
export async function startSearchIndex(spaceId: string, revisionId: string, taskQueue?: string): Promise<void> {
  const organizationId = workflowInfo().typedSearchAttributes.get(ORGANIZATION_ID);
  try {
    await startChild(searchIndex, {
      ...(taskQueue === undefined ? {} : { taskQueue }),
      workflowId: searchIndexWorkflowId(spaceId, revisionId),
      args: [spaceId],
      parentClosePolicy: ParentClosePolicy.ABANDON,
      workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY,
      workflowExecutionTimeout: '1 hour',
      typedSearchAttributes: [
        ...(organizationId === undefined ? [] : [{ key: ORGANIZATION_ID, value: organizationId }]),
        { key: SPACE_ID, value: spaceId },
        { key: JOB_KIND, value: 'search-index' },
      ],
    });
  } catch (error) {
    // Asked again for the same revision (a retried merge, an import delivered twice): its index job exists already.
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}

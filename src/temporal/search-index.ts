import { Context } from '@temporalio/activity';
import { WorkflowExecutionAlreadyStartedError, WorkflowIdReusePolicy, type Client } from '@temporalio/client';
import { searchIndex, searchIndexWorkflowId } from '../workflows/search-index.ts';
import { JOB_KIND, ORGANIZATION_ID, SPACE_ID } from '../workflows/search-attributes.ts';
import { heavyTaskQueue } from '../domain/task-queues.ts';

/**
 * The `search-index` job: the one way a space's search index follows its content. The git-sync
 * and content-import workflows start it as an abandoned child (`startSearchIndex` in
 * src/workflows/search-index.ts); the merge activity starts it here once its transaction has
 * committed, with the worker's client (`startSearchIndexFromActivity`), which saves its workflow
 * two round trips; the API starts it here for content it writes itself (a new or duplicated
 * space), once that content is committed. Operators find its runs in the Temporal UI
 * under `WorkflowId STARTS_WITH "search-index/<spaceId>"`.
 */
export { searchIndexWorkflowId };

export interface SearchIndexJob {
  organizationId: string;
  spaceId: string;
  /** The revision the caller made current; names the run, the job indexes whatever is current. */
  revisionId: string;
}

/** Starts the index job for a revision the API committed; a second start for it is a no-op. */
export async function startSpaceSearchIndex(client: Client, taskQueue: string, job: SearchIndexJob): Promise<void> {
  try {
    await client.workflow.start(searchIndex, {
      taskQueue,
      workflowId: searchIndexWorkflowId(job.spaceId, job.revisionId),
      args: [job.spaceId],
      workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY,
      workflowExecutionTimeout: '1 hour',
      typedSearchAttributes: [
        { key: ORGANIZATION_ID, value: job.organizationId },
        { key: SPACE_ID, value: job.spaceId },
        { key: JOB_KIND, value: 'search-index' },
      ],
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}

/**
 * From an activity whose committed transaction made `job.revisionId` current: starts the index
 * job with the worker's client, on the heavy jobs' queue beside the activity's
 * (src/domain/task-queues.ts). Idempotent, so a retried activity starts it again safely; outside
 * an activity (called directly, as in tests) it does nothing.
 */
export async function startSearchIndexFromActivity(job: SearchIndexJob): Promise<void> {
  let context: Context;
  try {
    context = Context.current();
  } catch {
    return;
  }
  await startSpaceSearchIndex(context.client, heavyTaskQueue(context.info.taskQueue), job);
}

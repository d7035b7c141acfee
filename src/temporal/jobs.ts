import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { spaceDeletion, restoreSignal, type SpaceDeletionInput } from '../workflows/space-deletion.ts';
import { changeRequestMerge, changeRequestUpdate } from '../workflows/change-requests.ts';
import type { ChangeRequestJob, MergeOutcome } from '../activities/change-requests.ts';
import { JOB_KIND, ORGANIZATION_ID, SPACE_ID } from '../workflows/search-attributes.ts';

/**
 * Starting and steering workflows from the API. Workflow ids say what and which, so an operator
 * finds a job by name in the Temporal UI; search attributes and memo say whose.
 */

export const spaceDeletionWorkflowId = (spaceId: string) => `space-deletion/${spaceId}`;

export async function startSpaceDeletion(
  client: Client,
  taskQueue: string,
  input: SpaceDeletionInput,
  requestedBy: string,
): Promise<void> {
  await client.workflow.start(spaceDeletion, {
    taskQueue,
    workflowId: spaceDeletionWorkflowId(input.spaceId),
    args: [input],
    // A new deletion of the same space replaces a finished or superseded one.
    workflowIdReusePolicy: 'ALLOW_DUPLICATE',
    workflowIdConflictPolicy: 'TERMINATE_EXISTING',
    typedSearchAttributes: [
      { key: ORGANIZATION_ID, value: input.organizationId },
      { key: SPACE_ID, value: input.spaceId },
      { key: JOB_KIND, value: 'space-deletion' },
    ],
    memo: { requestedBy, deletedAt: input.deletedAt },
  });
}

/** Tells a waiting deletion that its space was restored; a finished or missing one is fine. */
export async function signalSpaceRestored(client: Client, spaceId: string): Promise<void> {
  try {
    await client.workflow.getHandle(spaceDeletionWorkflowId(spaceId)).signal(restoreSignal);
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return;
    throw error;
  }
}

/**
 * Runs a change-request merge or update and waits for its outcome. One workflow id per change
 * request and kind: a second request while one runs joins it instead of starting another.
 */
export async function runChangeRequestJob(
  client: Client,
  taskQueue: string,
  kind: 'merge' | 'update',
  job: ChangeRequestJob & { organizationId: string },
): Promise<MergeOutcome> {
  const { organizationId, ...input } = job;
  return client.workflow.execute(kind === 'merge' ? changeRequestMerge : changeRequestUpdate, {
    taskQueue,
    workflowId: `change-request-${kind}/${job.spaceId}/${job.changeRequestId}`,
    args: [input],
    workflowIdReusePolicy: 'ALLOW_DUPLICATE',
    workflowIdConflictPolicy: 'USE_EXISTING',
    workflowExecutionTimeout: '10 minutes',
    typedSearchAttributes: [
      { key: ORGANIZATION_ID, value: organizationId },
      { key: SPACE_ID, value: job.spaceId },
      { key: JOB_KIND, value: `change-request-${kind}` },
    ],
    memo: { requestedBy: job.userId, changeRequestId: job.changeRequestId },
  });
}

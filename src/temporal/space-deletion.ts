import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { spaceDeletion, restoreSignal, type SpaceDeletionInput } from '../workflows/space-deletion.ts';
import { JOB_KIND, ORGANIZATION_ID, SPACE_ID } from '../workflows/search-attributes.ts';

/**
 * Starting and steering space deletions from the API. The workflow id says what and which
 * (`space-deletion/<spaceId>`), so an operator finds it by name in the Temporal UI; search
 * attributes and memo say whose.
 */

export const spaceDeletionWorkflowId = (spaceId: string) => `space-deletion/${spaceId}`;

export async function startSpaceDeletion(client: Client, taskQueue: string, input: SpaceDeletionInput, requestedBy: string): Promise<void> {
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

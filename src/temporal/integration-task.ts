import type { Client } from '@temporalio/client';
import { integrationTask, integrationTaskWorkflowId, type IntegrationTaskInput } from '../workflows/integration-task.ts';
import { JOB_KIND, ORGANIZATION_ID } from '../workflows/search-attributes.ts';

/**
 * The `integration-task` job: a task an integration queued (queueIntegrationTask), run after its
 * delay as GitBook's `task` event. Operators find a task under `WorkflowId =
 * "integration-task/<taskId>"`, all of them under `DocsJobKind = "integration-task"` (with
 * `DocsOrganizationId`, the organization of the installation or of the integration's owner); one
 * still waiting shows its timer, and cancelling it drops the task.
 */
export const INTEGRATION_TASK_KIND = 'integration-task';

export { integrationTaskWorkflowId };

export async function queueIntegrationTask(
  client: Client,
  taskQueue: string,
  input: IntegrationTaskInput & { organizationId: string },
): Promise<void> {
  const { organizationId, ...task } = input;
  await client.workflow.start(integrationTask, {
    taskQueue,
    workflowId: integrationTaskWorkflowId(task.taskId),
    args: [task],
    typedSearchAttributes: [
      { key: ORGANIZATION_ID, value: organizationId },
      { key: JOB_KIND, value: INTEGRATION_TASK_KIND },
    ],
  });
}

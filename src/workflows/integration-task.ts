import { proxyActivities, sleep } from '@temporalio/workflow';
import type { IntegrationTaskActivities } from '../activities/integration-task.ts';

/**
 * The task's event: tried again from 1 s, doubling, at most every 10 minutes, 8 attempts (about 20
 * minutes) while the script answers 5xx, 408 or 429 or is stopped by its limits; a 4xx, or a script
 * that cannot start, fails the job at once.
 */
const { runIntegrationTask } = proxyActivities<IntegrationTaskActivities>({
  startToCloseTimeout: '5 minutes',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '10 minutes', maximumAttempts: 8 },
});

/** A task an integration queued (queueIntegrationTask). */
export interface IntegrationTaskInput {
  taskId: string;
  integrationName: string;
  /** The installation whose token queued it: the task runs with its environment. None: the integration's own. */
  installationId?: string;
  /** The integration's payload, as it gave it (GitBook's `task`). */
  task: Record<string, unknown>;
  /** Seconds to wait before running it (0 to 86,400). */
  scheduleSeconds: number;
}

/** `integration-task/<taskId>`: one job per task. */
export const integrationTaskWorkflowId = (taskId: string) => `integration-task/${taskId}`;

/**
 * A durable timer of up to a day, then GitBook's `task` event delivered to the integration's
 * script: the wait survives restarts of the worker and of Temporal, and an operator sees (and can
 * cancel) a task still waiting in the Temporal UI.
 */
export async function integrationTask(input: IntegrationTaskInput): Promise<{ status: number }> {
  if (input.scheduleSeconds > 0) await sleep(input.scheduleSeconds * 1000);
  return runIntegrationTask(input);
}

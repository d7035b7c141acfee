import { ApplicationFailure } from '@temporalio/common';
import { dispatchTarget } from '../api/integrations/environment.ts';
import { forkEm, type Orm } from '../db/orm.ts';
import { deliveryVerdict } from '../domain/integration-events.ts';
import { IntegrationSandboxError, type IntegrationSandbox } from '../lib/integration-sandbox.ts';
import type { SecretBox } from '../lib/secrets.ts';
import type { IntegrationTaskInput } from '../workflows/integration-task.ts';

/** How long the installation token a task's script is given works. */
const TASK_TOKEN_TTL_MS = 15 * 60_000;

/** Activities of the `integration-task` workflow. */
export function integrationTaskActivities(
  orm: Orm,
  deps: { sandbox: IntegrationSandbox; publicUrl: string; secrets: () => Promise<SecretBox> },
) {
  return {
    /**
     * Delivers GitBook's `task` event (`task`: the payload queued) to the integration's script with
     * the environment of the installation that queued it. A 2xx ends the job; a 5xx, 408, 429 or a
     * script stopped by its limits is tried again; a 4xx or a script that cannot start, or an
     * integration or installation gone, fails it without trying again.
     */
    async runIntegrationTask(input: IntegrationTaskInput): Promise<{ status: number }> {
      const target = await dispatchTarget(
        forkEm(orm),
        { integrationName: input.integrationName, ...(input.installationId ? { installationId: input.installationId } : {}) },
        { publicUrl: deps.publicUrl, secrets: deps.secrets, tokenTtlMs: TASK_TOKEN_TTL_MS },
      );
      if (!target) {
        throw ApplicationFailure.nonRetryable(`The integration ${input.integrationName} or its installation is gone`, 'TaskTargetGone');
      }
      const event = {
        type: 'task',
        eventId: input.taskId,
        ...(input.installationId ? { installationId: input.installationId } : {}),
        task: input.task,
      };
      let status: number;
      try {
        status = (await deps.sandbox.dispatch(target.script, event, target.environment)).status;
      } catch (error) {
        if (!(error instanceof IntegrationSandboxError)) throw error;
        if (deliveryVerdict({ sandboxError: error.code }) === 'failed') throw ApplicationFailure.nonRetryable(error.message, error.code);
        throw ApplicationFailure.retryable(error.message, error.code);
      }
      const verdict = deliveryVerdict({ status });
      if (verdict === 'retry') throw ApplicationFailure.retryable(`The task's script answered ${status}`, 'TaskRetry');
      if (verdict === 'failed') throw ApplicationFailure.nonRetryable(`The task's script refused it with ${status}`, 'TaskRefused');
      return { status };
    },
  };
}

export type IntegrationTaskActivities = ReturnType<typeof integrationTaskActivities>;

import type { Client, WorkflowStartOptions } from '@temporalio/client';
import type { Workflow, WorkflowResultType } from '@temporalio/common';
import { unavailable } from '../api/errors.ts';

/** How long a request waits for a job it started before answering 503. */
export const JOB_WAIT_MS = 60_000;

export type AwaitJobOptions<W extends Workflow> = WorkflowStartOptions<W> & {
  /** Answered with 503 when the job has not finished within `waitMs`; say that asking again is fine. */
  pendingMessage: string;
  waitMs?: number;
};

/**
 * Starts a job and waits up to `waitMs` for its result, else throws 503 (`unavailable`). The
 * workflow id names the job, and a request for a running job joins it (USE_EXISTING) instead of
 * starting another: asking again after a 503 waits for the same run. Once that run has finished,
 * a new request starts a new run (ALLOW_DUPLICATE), which the idempotent activities answer at once.
 */
export async function startAndAwait<W extends Workflow>(
  client: Client,
  workflow: W,
  options: AwaitJobOptions<W>,
): Promise<WorkflowResultType<W>> {
  const { pendingMessage, waitMs = JOB_WAIT_MS, ...start } = options;
  const run = client.workflow.execute(workflow, {
    ...(start as WorkflowStartOptions<W>),
    workflowIdReusePolicy: 'ALLOW_DUPLICATE',
    workflowIdConflictPolicy: 'USE_EXISTING',
  });
  let timer: NodeJS.Timeout | undefined;
  const pending = new Promise<never>((_, fail) => {
    timer = setTimeout(() => fail(unavailable(pendingMessage)), waitMs);
  });
  return Promise.race([run, pending]).finally(() => clearTimeout(timer));
}

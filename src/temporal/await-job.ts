import type { Client, WorkflowStartOptions } from '@temporalio/client';
import type { Workflow, WorkflowResultType } from '@temporalio/common';
import { unavailable } from '../api/errors.ts';

/** How long a request waits for a job it started before answering 503. */
export const JOB_WAIT_MS = 60_000;

export type AwaitJobOptions<W extends Workflow> = WorkflowStartOptions<W> & {
  /** Answered with 503 when the job has not finished within `waitMs`; say that asking again is fine. */
  pendingMessage: string;
  waitMs?: number;
  /**
   * The workflow id of a job the result says this job started and left running (the search index
   * of an import), which the answer waits for too, within the same `waitMs`: so that the answer
   * still means its effect is visible. Best effort: the result is answered whether that job
   * finished, failed, or is still running at the deadline.
   */
  followUp?: (result: WorkflowResultType<W>) => string | null;
};

/** `work`'s outcome, or `late()`'s once `ms` have passed: the one timer race of every wait for a job. */
function within<T>(work: Promise<T>, ms: number, late: () => T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<T>((resolve, reject) => {
    timer = setTimeout(() => {
      try {
        resolve(late());
      } catch (error) {
        reject(error);
      }
    }, ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

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
  const { pendingMessage, waitMs = JOB_WAIT_MS, followUp, ...start } = options;
  const until = Date.now() + waitMs;
  const run = client.workflow.execute(workflow, {
    ...(start as WorkflowStartOptions<W>),
    workflowIdReusePolicy: 'ALLOW_DUPLICATE',
    workflowIdConflictPolicy: 'USE_EXISTING',
  });
  const result = await within(run, waitMs, () => {
    throw unavailable(pendingMessage);
  });
  const next = followUp?.(result);
  if (next) {
    const settled = client.workflow
      .getHandle(next)
      .result()
      .then(
        () => undefined,
        () => undefined,
      );
    await within(settled, Math.max(0, until - Date.now()), () => undefined);
  }
  return result;
}

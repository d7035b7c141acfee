import type { Client } from '@temporalio/client';
import { changeRequestMerge, changeRequestUpdate } from '../workflows/change-request-merge.ts';
import type { ChangeRequestJob, MergeOutcome } from '../activities/change-request-merge.ts';
import { JOB_KIND, ORGANIZATION_ID, SPACE_ID } from '../workflows/search-attributes.ts';
import { JOB_WAIT_MS, startAndAwait } from './await-job.ts';

/** `change-request-merge/<spaceId>/<changeRequestId>` and `change-request-update/…`: one run per change request and kind at a time. */
export const changeRequestJobWorkflowId = (kind: 'merge' | 'update', spaceId: string, changeRequestId: string) =>
  `change-request-${kind}/${spaceId}/${changeRequestId}`;

/**
 * Runs a change-request merge or update and waits up to `waitMs` for its outcome, else answers
 * 503. A second request while one runs joins it instead of starting another (see `startAndAwait`).
 */
export async function runChangeRequestJob(
  client: Client,
  taskQueue: string,
  kind: 'merge' | 'update',
  job: ChangeRequestJob & { organizationId: string },
  waitMs = JOB_WAIT_MS,
): Promise<MergeOutcome> {
  const { organizationId, ...input } = job;
  return startAndAwait(client, kind === 'merge' ? changeRequestMerge : changeRequestUpdate, {
    taskQueue,
    workflowId: changeRequestJobWorkflowId(kind, job.spaceId, job.changeRequestId),
    args: [input],
    workflowExecutionTimeout: '10 minutes',
    typedSearchAttributes: [
      { key: ORGANIZATION_ID, value: organizationId },
      { key: SPACE_ID, value: job.spaceId },
      { key: JOB_KIND, value: `change-request-${kind}` },
    ],
    memo: { requestedBy: job.userId, changeRequestId: job.changeRequestId },
    waitMs,
    pendingMessage: `The ${kind} is queued but did not finish within ${waitMs / 1000} s; ask again for its result`,
  });
}

import type { Client } from '@temporalio/client';
import { gitSync, gitSyncRequestSignal } from '../workflows/git-sync.ts';
import { JOB_KIND, ORGANIZATION_ID, SPACE_ID } from '../workflows/search-attributes.ts';

/**
 * How the API hands Git Sync requests to the space's `git-sync/<spaceId>` workflow: signal-with-
 * start, so the first request starts it and later ones join the queue of the running one. The
 * signal carries the request id, its timestamp and whether an API client asked for it (a request
 * with a `requestedBy`; a webhook push has none), which the workflow takes without settling;
 * parameters and sealed credentials stay in the database. Operators list a space's syncs with
 * `DocsSpaceId = "<id>" AND DocsJobKind = "git-sync"`.
 */

export const GIT_SYNC_KIND = 'git-sync';
export const gitSyncWorkflowId = (spaceId: string) => `git-sync/${spaceId}`;

export async function enqueueGitSync(
  client: Client,
  taskQueue: string,
  input: {
    spaceId: string;
    organizationId: string;
    requestId: string;
    requestedAt: Date;
    kind: 'import' | 'export';
    requestedBy: string | null;
  },
): Promise<void> {
  await client.workflow.signalWithStart(gitSync, {
    taskQueue,
    workflowId: gitSyncWorkflowId(input.spaceId),
    args: [{ spaceId: input.spaceId, organizationId: input.organizationId }],
    signal: gitSyncRequestSignal,
    signalArgs: [
      { requestId: input.requestId, requestedAt: input.requestedAt.getTime(), ...(input.requestedBy !== null ? { client: true } : {}) },
    ],
    typedSearchAttributes: [
      { key: ORGANIZATION_ID, value: input.organizationId },
      { key: SPACE_ID, value: input.spaceId },
      { key: JOB_KIND, value: GIT_SYNC_KIND },
    ],
    memo: { firstRequest: input.requestId, kind: input.kind, requestedBy: input.requestedBy ?? 'webhook' },
  });
}

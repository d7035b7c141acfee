import {
  finishGitSyncRequest,
  lockGitSync,
  lockQueuedRequest,
  spaceRevisionOf,
  updateGitSync,
  type GitSyncRequestRow,
} from '../db/git-sync.ts';
import { raiseSpaceEvent, type RaisedFor } from '../db/integration-events.ts';
import { forkEm, transaction, type Orm } from '../db/orm.ts';
import { announceIntegrationEventsFromActivity } from '../temporal/integration-events.ts';

/** How a Git Sync request ended, as the activities answer the workflow (and the request row records it). */
export interface GitSyncOutcome {
  state: 'applied' | 'unchanged' | 'skipped' | 'failed' | 'conflict';
  revisionId?: string;
  commit?: string;
  code?: string;
  message?: string;
  changeRequestId?: string;
  /** Set when the request made this revision the space's content: the search index is to follow it. */
  spaceRevision?: string;
}

/** An import whose commit is read and stored: `bundle` names the blob that `applyGitSyncImport` writes from. */
export interface StagedImport {
  state: 'staged';
  bundle: string;
  commit: string;
}

export const fail = (code: string, message: string): GitSyncOutcome => ({ state: 'failed', code, message });

/** The outcome a finished request recorded (a retry after it finished answers this). */
export function outcomeOf(request: GitSyncRequestRow): GitSyncOutcome {
  const movedSpace = request.kind === 'import' && request.state === 'applied' && request.params.standalone !== true;
  return {
    state: request.state === 'queued' ? 'failed' : request.state,
    ...(request.revision_id ? { revisionId: request.revision_id } : {}),
    ...(request.commit ? { commit: request.commit } : {}),
    ...(request.detail?.code ? { code: request.detail.code } : {}),
    ...(request.detail?.message ? { message: request.detail.message } : {}),
    ...(request.detail?.changeRequestId ? { changeRequestId: request.detail.changeRequestId } : {}),
    ...(movedSpace && request.revision_id ? { spaceRevision: request.revision_id } : {}),
  };
}

/**
 * Records a readable failure on the request and on the space's sync state (once: a finished request
 * is left as it is). A failed import tells the integrations that follow the space's Git Sync
 * (`space_gitsync_completed`, state `failure`, with the space's revision, which did not move, and
 * the commit when it was read).
 */
export async function recordFailure(orm: Orm, request: GitSyncRequestRow, code: string, message: string): Promise<GitSyncOutcome> {
  const raised = await transaction(forkEm(orm), async (tx): Promise<RaisedFor[]> => {
    if (!(await lockQueuedRequest(tx, request.id))) return [];
    await lockGitSync(tx, request.space_id);
    await updateGitSync(tx, request.space_id, {
      status: 'failed',
      last_operation: request.kind,
      last_sync_error: { code, message, at: new Date().toISOString() },
    });
    await finishGitSyncRequest(tx, request.id, 'failed', { detail: { code, message } });
    if (request.kind !== 'import') return [];
    const space = await spaceRevisionOf(tx, request.space_id);
    if (!space || space.deleted_at) return [];
    return raiseSpaceEvent(tx, request.space_id, 'space_gitsync_completed', {
      state: 'failure',
      revisionId: space.revision_id,
      commitId: request.commit ?? '',
    });
  });
  // A start lost here (the worker stopping) is made by the integration events' sweep.
  if (raised.length > 0) await announceIntegrationEventsFromActivity(raised);
  return fail(code, message);
}

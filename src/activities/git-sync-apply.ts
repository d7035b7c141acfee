import { jobIntent, recordAudit } from '../db/audit.ts';
import { JOB_ACTIONS } from '../domain/audit.ts';
import { loadFiles, loadPageMap, loadReusableContentTexts, writeRevision } from '../db/content.ts';
import {
  finishGitSyncRequest,
  insertChangeRequest,
  loadGitSyncRequest,
  lockGitSync,
  lockQueuedRequest,
  lockSpace,
  setRevisionGit,
  setSpaceRevision,
  updateGitSync,
} from '../db/git-sync.ts';
import { forkEm, transaction, type Orm } from '../db/orm.ts';
import { recordChangeRequestEdit } from '../db/reviews.ts';
import {
  appliedAt,
  conflictMessage,
  conflictSubject,
  decideImport,
  importRoute,
  needsContent,
  sameReusableContents,
  type ImportDecision,
  type RevisionPlan,
} from '../domain/git/import-decision.ts';
import { newId } from '../domain/ids.ts';
import type { BlobStore } from '../lib/blob-store.ts';
import { beat } from '../lib/heartbeat.ts';
import { outcomeOf, type GitSyncOutcome } from './git-sync-outcome.ts';
import { publishImportedRedirects } from './git-sync-redirects.ts';
import { raiseSpaceEvent, type RaisedFor } from '../db/integration-events.ts';
import { announceIntegrationEventsFromActivity } from '../temporal/integration-events.ts';
import type { GitImportBundle } from './git-sync-stage.ts';

/**
 * The apply of an import: one transaction that writes what the stage read (the bundle) into the
 * space, and the request's outcome with it. It reads nothing from the repository, so a retry
 * never fetches again; a finished request is never applied twice (a retry after the commit
 * answers the recorded outcome). What to write is decided by domain/git/import-decision.ts.
 */

/** The bundle a stage stored; null when the blob store does not have it. */
export async function readBundle(blobs: BlobStore, sha: string): Promise<GitImportBundle | null> {
  const raw = await blobs.get(sha);
  return raw && (JSON.parse(raw.toString('utf8')) as GitImportBundle);
}

export async function applyImport(orm: Orm, bundle: GitImportBundle): Promise<GitSyncOutcome> {
  const { requestId, commit, message } = bundle;
  // Integration events an applied commit raises, delivered once its transaction has committed.
  const raised: RaisedFor[] = [];
  const outcome = await transaction(forkEm(orm), async (tx): Promise<GitSyncOutcome> => {
    const request = await lockQueuedRequest(tx, requestId);
    if (!request) return outcomeOf((await loadGitSyncRequest(tx, requestId))!);
    const spaceId = request.space_id;
    const state = await lockGitSync(tx, spaceId);
    const space = await lockSpace(tx, spaceId);
    const requestedAt = new Date(request.requested_at);
    const at = appliedAt(state.last_applied_at, requestedAt);
    if (!space || space.deleted_at) {
      const text = 'The space no longer exists';
      await updateGitSync(tx, spaceId, {
        status: 'failed',
        last_operation: 'import',
        last_sync_error: { code: 'SPACE_GONE', message: text, at: new Date().toISOString() },
      });
      await finishGitSyncRequest(tx, requestId, 'failed', { detail: { code: 'SPACE_GONE', message: text } });
      return { state: 'failed', code: 'SPACE_GONE', message: text };
    }
    const route = importRoute({
      requestedAt,
      force: request.params.force === true,
      standalone: request.params.standalone === true,
      commit,
      lastAppliedAt: state.last_applied_at,
      lastCommit: state.last_commit,
      lastRevision: state.last_revision,
      spaceRevision: space.revision_id,
    });

    if (route.kind === 'out-of-order') {
      await finishGitSyncRequest(tx, requestId, 'skipped', { detail: { code: 'OUT_OF_ORDER', message: 'A later sync was applied first' } });
      return { state: 'skipped', code: 'OUT_OF_ORDER' };
    }
    if (route.kind === 'same-commit') {
      // The same push again (or the commit an export produced): nothing to change.
      await updateGitSync(tx, spaceId, { status: 'ok', last_operation: 'import', last_applied_at: at, last_sync_error: null });
      await finishGitSyncRequest(tx, requestId, 'unchanged', { revisionId: state.last_revision, commit });
      return { state: 'unchanged', commit, ...(state.last_revision ? { revisionId: state.last_revision } : {}) };
    }
    if (!needsContent(route) || bundle.content === null) {
      // Only if the sync state moved between stage and apply, which one request at a time per space rules out.
      throw new Error(`Request ${requestId} was staged without content, and its commit is no longer the one last synced`);
    }
    const theirs = bundle.content;
    beat({ phase: 'writing', pages: Object.keys(theirs.pages).length, files: theirs.files.length });
    const ours = { pages: await loadPageMap(tx, space.revision_id, true), files: await loadFiles(tx, space.revision_id) };
    const base =
      route.kind === 'three-way'
        ? { pages: await loadPageMap(tx, route.base, true), fileIds: (await loadFiles(tx, route.base)).map((f) => f.id) }
        : undefined;
    let decision: ImportDecision = decideImport(route, { ours, theirs, base });
    // Reusable contents are the commit's (`.gitbook/includes/`): a commit that changes only them still writes a revision.
    const includes = theirs.reusableContents;
    if (
      decision.kind === 'unchanged' &&
      includes &&
      !sameReusableContents(await loadReusableContentTexts(tx, space.revision_id), includes)
    ) {
      decision = { kind: 'write', revision: { pages: ours.pages, removedFiles: [] }, synced: null, moveSpace: true };
    }

    const gitMeta = {
      oid: commit,
      message,
      ref: request.params.ref,
      createdByService: false,
      ...(request.params.repoCommitURL ? { url: `${request.params.repoCommitURL}${commit}` } : {}),
    };
    /** A revision on top of the space's content with the commit's files added. */
    const write = async (plan: RevisionPlan, changeRequestId?: string) => {
      const revisionId = await writeRevision(tx, {
        spaceId,
        parents: [space.revision_id],
        type: 'edits',
        ...(changeRequestId ? { changeRequestId } : {}),
        base: { revisionId: space.revision_id, pages: ours.pages },
        pages: plan.pages,
        addedFiles: theirs.files,
        removedFiles: plan.removedFiles,
        ...(includes ? { reusableContents: includes } : {}),
      });
      await setRevisionGit(tx, revisionId, gitMeta);
      // The audit event of what the import wrote, in its transaction: by whoever asked for it (`system` for a push).
      await recordAudit(
        tx,
        jobIntent({
          action: JOB_ACTIONS.gitSyncImport.action,
          userId: request.requested_by,
          organizationId: space.organization_id,
          target: changeRequestId ? { type: 'change-request', id: changeRequestId } : { type: 'space', id: spaceId },
          fallbackCorrelationId: `git-sync/${requestId}`,
          payload: { spaceId, revision: revisionId, commit },
        }),
      );
      return revisionId;
    };

    if (decision.kind === 'conflict') {
      const changeRequestId = newId();
      const revisionId = await write(decision.changeRequest, changeRequestId);
      const number = await insertChangeRequest(tx, {
        id: changeRequestId,
        spaceId,
        subject: conflictSubject(commit, message),
        createdBy: request.requested_by,
        revisionId,
        initialRevisionId: space.revision_id,
      });
      // The commit's content is written into the change request: an edit by whoever asked for the import.
      await recordChangeRequestEdit(tx, changeRequestId, revisionId, request.requested_by);
      const text = conflictMessage(commit, decision.conflicts.length, number);
      await updateGitSync(tx, spaceId, {
        status: 'conflict',
        last_operation: 'import',
        conflict_change_request: changeRequestId,
        last_applied_at: at,
        last_sync_error: { code: 'CONFLICT', message: text, at: new Date().toISOString() },
      });
      await finishGitSyncRequest(tx, requestId, 'conflict', {
        revisionId,
        commit,
        detail: { code: 'CONFLICT', message: text, changeRequestId },
      });
      return { state: 'conflict', revisionId, commit, changeRequestId, code: 'CONFLICT', message: text };
    }
    if (decision.kind === 'unchanged') {
      await updateGitSync(tx, spaceId, {
        status: 'ok',
        last_operation: 'import',
        last_commit: commit,
        last_revision: space.revision_id,
        last_applied_at: at,
        last_sync_error: null,
        conflict_change_request: null,
      });
      await finishGitSyncRequest(tx, requestId, 'unchanged', { revisionId: space.revision_id, commit });
      return { state: 'unchanged', revisionId: space.revision_id, commit };
    }
    const revisionId = await write(decision.revision);
    // The ancestor of the next merge is the content of this commit exactly.
    const syncedRevision = decision.synced ? await write(decision.synced) : revisionId;
    if (decision.moveSpace) {
      await setSpaceRevision(tx, spaceId, revisionId);
      const kept = (theirs.redirects ?? []).filter((r) => Object.hasOwn(decision.revision.pages, r.pageId));
      await publishImportedRedirects(tx, spaceId, kept);
    }
    await updateGitSync(tx, spaceId, {
      status: 'ok',
      last_operation: 'import',
      last_applied_at: at,
      last_sync_error: null,
      conflict_change_request: null,
      ...(decision.moveSpace ? { last_commit: commit, last_revision: syncedRevision } : {}),
    });
    await finishGitSyncRequest(tx, requestId, 'applied', {
      revisionId,
      commit,
      detail: theirs.warnings.length ? { message: theirs.warnings.slice(0, 20).join('; ') } : null,
    });
    if (decision.moveSpace) raised.push(...(await raiseSpaceEvent(tx, spaceId, 'space_content_updated', { revisionId, updatedBy: [] })));
    raised.push(...(await raiseSpaceEvent(tx, spaceId, 'space_gitsync_completed', { state: 'success', revisionId, commitId: commit })));
    return { state: 'applied', revisionId, commit, ...(decision.moveSpace ? { spaceRevision: revisionId } : {}) };
  });
  // A start lost here (the worker stopping) is made by the integration events' sweep.
  if (raised.length > 0) await announceIntegrationEventsFromActivity(raised);
  return outcome;
}

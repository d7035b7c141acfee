import { finishGitSyncRequest, loadGitSync, loadGitSyncRequest, requestSecretContext } from '../db/git-sync.ts';
import { forkEm, transaction, type Orm } from '../db/orm.ts';
import { GitSyncError } from '../domain/git/errors.ts';
import { outOfOrder } from '../domain/git/import-decision.ts';
import { LayoutError } from '../domain/git/summary.ts';
import { prepareRemote } from '../lib/git-cli.ts';
import { heartbeating } from '../lib/heartbeat.ts';
import { applyImport, readBundle } from './git-sync-apply.ts';
import { runExport } from './git-sync-export.ts';
import { fail, outcomeOf, recordFailure, type GitSyncOutcome, type StagedImport } from './git-sync-outcome.ts';
import type { GitSyncActivityOptions } from './git-sync-options.ts';
import { stageImport } from './git-sync-stage.ts';

/**
 * Git Sync activities. The request row is the unit of work: its result (revision, commit,
 * failure) is written in the same transaction as the content it produced, and a finished request
 * is never run again, so a retry or a reset from the Temporal UI never writes a second revision.
 *
 * An import runs in two steps: `runGitSyncRequest` stages it (git-sync-stage.ts: fetch, read the
 * layout, store the files, write a bundle to the blob store), `applyGitSyncImport` applies the
 * bundle in one transaction (git-sync-apply.ts); a retry of the apply never fetches again. An
 * export runs whole in `runGitSyncRequest` (git-sync-export.ts): its push is its side effect.
 */

export type { GitSyncOutcome, StagedImport } from './git-sync-outcome.ts';
export type { GitSyncActivityOptions } from './git-sync-options.ts';

export function gitSyncActivities(orm: Orm, options: GitSyncActivityOptions | (() => GitSyncActivityOptions)) {
  let resolved: GitSyncActivityOptions | undefined;
  const opts = () => (resolved ??= typeof options === 'function' ? options() : options);

  /** Applies the staged bundle of a request; a request that finished already answers its outcome. */
  async function apply(requestId: string, sha: string): Promise<GitSyncOutcome> {
    const bundle = await readBundle(opts().blobs, sha);
    if (!bundle) {
      const request = await loadGitSyncRequest(forkEm(orm), requestId);
      if (request && request.state !== 'queued') return outcomeOf(request);
      throw new Error(`The git import bundle ${sha} of request ${requestId} is missing from the blob store`);
    }
    if (bundle.requestId !== requestId) throw new Error(`The git import bundle ${sha} is not one of request ${requestId}`);
    return applyImport(orm, bundle);
  }

  return {
    /**
     * The first step of a queued request. An export runs whole. An import is staged: with
     * `stageOnly` it answers the stored bundle for `applyGitSyncImport`; without it (as workflows
     * scheduled it before imports were split) it applies the bundle too, in the same attempt.
     * Readable failures (bad ref, refused credentials, unreachable host, not a GitBook layout,
     * file too large) are recorded on the space's git info and returned; anything else is thrown
     * for Temporal to retry.
     */
    async runGitSyncRequest(requestId: string, step: { stageOnly?: boolean } = {}): Promise<GitSyncOutcome | StagedImport> {
      const request = await loadGitSyncRequest(forkEm(orm), requestId);
      if (!request) return fail('GONE', 'The request no longer exists');
      if (request.state !== 'queued') return outcomeOf(request);
      const sync = await loadGitSync(forkEm(orm), request.space_id);
      if (
        outOfOrder({
          requestedAt: new Date(request.requested_at),
          force: request.params.force === true,
          lastAppliedAt: sync?.last_applied_at ?? null,
        })
      ) {
        await transaction(forkEm(orm), (tx) =>
          finishGitSyncRequest(tx, request.id, 'skipped', { detail: { code: 'OUT_OF_ORDER', message: 'A later sync was applied first' } }),
        );
        return { state: 'skipped', code: 'OUT_OF_ORDER' };
      }
      return heartbeating(async () => {
        try {
          const credentials = request.credentials
            ? (JSON.parse((await opts().secrets()).open(request.credentials, requestSecretContext(request.id))) as {
                username: string;
                password: string;
              })
            : null;
          const remote = await prepareRemote(request.params.url, credentials, opts().policy);
          if (request.kind === 'export') return await runExport(orm, opts(), request, remote);
          const staged = await stageImport(orm, opts(), request, remote);
          if (staged.state !== 'staged' || step.stageOnly) return staged;
          return await apply(request.id, staged.bundle);
        } catch (error) {
          if (error instanceof GitSyncError || error instanceof LayoutError) return recordFailure(orm, request, error.code, error.message);
          if (error instanceof RangeError && /larger than/.test(error.message))
            return recordFailure(orm, request, 'FILE_TOO_LARGE', `A file is ${error.message}`);
          throw error;
        }
      });
    },

    /**
     * Writes a staged import into the space in one transaction, with the request's outcome. Reads
     * the bundle from the blob store, never the repository: a retry does not fetch again, and a
     * retry after the commit answers the outcome recorded.
     */
    async applyGitSyncImport(input: { requestId: string; bundle: string }): Promise<GitSyncOutcome> {
      return heartbeating(() => apply(input.requestId, input.bundle));
    },

    /** Records a request that failed for good (retries exhausted) with the reason given. */
    async recordGitSyncFailure(input: { requestId: string; message: string }): Promise<void> {
      const request = await loadGitSyncRequest(forkEm(orm), input.requestId);
      if (request && request.state === 'queued') await recordFailure(orm, request, 'GIT_ERROR', input.message);
    },
  };
}

export type GitSyncActivities = ReturnType<typeof gitSyncActivities>;

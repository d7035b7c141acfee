import { forkEm, transaction, type Em, type Orm } from '../db/orm.ts';
import { jobIntent, recordAudit, type AuditCause } from '../db/audit.ts';
import { JOB_ACTIONS } from '../domain/audit.ts';
import {
  lockChangeRequestForMerge,
  markChangeRequestMerged,
  markChangeRequestUpdated,
  recordMergeConflicts,
  type LockedChangeRequest,
} from '../db/change-requests.ts';
import { loadDocuments, loadFiles, loadPageMap, tokenHash, writeRevision } from '../db/content.ts';
import { inForeground } from '../lib/foreground.ts';
import { beat, heartbeating } from '../lib/heartbeat.ts';
import { mergePageMaps, type MergeConflict } from '../domain/content/merge.ts';
import { checkMergeRules, effectiveMergeRules, needsEvaluationContext, type UnmetRule } from '../domain/merge-rules.ts';
import { mergeRuleFacts, mergeRulesContextRows } from '../db/merge-rules.ts';
import { recordChangeRequestEdit } from '../db/reviews.ts';
import type { PageMap } from '../domain/content/tree.ts';
import type { Role } from '../domain/roles.ts';
import { presentMergeRulesContext } from '../api/change-requests/present.ts';
import { startSearchIndexFromActivity } from '../temporal/search-index.ts';
import { raiseSpaceEvent, type RaisedFor } from '../db/integration-events.ts';
import { usersByIds } from '../db/comments.ts';
import { presentUser } from '../api/users/present.ts';
import { urlsFor } from '../api/object-urls.ts';
import { announceIntegrationEventsFromActivity } from '../temporal/integration-events.ts';

export interface ChangeRequestJob {
  spaceId: string;
  changeRequestId: string;
  userId: string;
  /** The merging user administers the space (may bypass unmet merge rules where allowed). */
  admin?: boolean;
  /** The merging user's role on the space, as custom merge rules see it (`space.permissions`). */
  role?: Role;
  /** The request that asked for the job: its events are the request's effects (src/db/audit.ts). */
  audit?: AuditCause;
}

export interface MergeOutcome {
  result: 'merge' | 'update' | 'conflicts' | 'refused';
  revision: string;
  conflicts?: MergeConflict[];
  reason?: string;
  /** With reason `merge-rules`: the rules that are not met. */
  unmet?: UnmetRule[];
}

/**
 * Three-way merge of page maps whose documents are tokens: only pages changed differently on both
 * sides need their text, so only those are loaded.
 */
async function mergeRevisions(em: Em, spaceId: string, ancestor: string, ours: string, theirs: string) {
  const [base, a, b] = await Promise.all([loadPageMap(em, ancestor, false), loadPageMap(em, ours, false), loadPageMap(em, theirs, false)]);
  const needText: string[] = [];
  for (const id of Object.keys(a)) {
    const o = a[id].markdown;
    const t = b[id]?.markdown;
    const z = base[id]?.markdown;
    if (t !== undefined && z !== undefined && o !== z && t !== z && o !== t) needText.push(id);
  }
  if (needText.length > 0) {
    const hashes = needText.flatMap((id) => [a[id].markdown, b[id].markdown, base[id].markdown].map((m) => tokenHash(m)!));
    const texts = await loadDocuments(em, spaceId, hashes);
    const resolve = (map: PageMap, id: string) => {
      map[id] = { ...map[id], markdown: texts.get(tokenHash(map[id].markdown)!) ?? '' };
    };
    for (const id of needText) {
      resolve(a, id);
      resolve(b, id);
      resolve(base, id);
    }
  }
  return { ours: a, ...mergePageMaps(base, a, b) };
}

/** Nothing merges: the conflicts are kept on the change request for its authors to see. */
async function recordConflicts(em: Em, cr: LockedChangeRequest, conflicts: MergeConflict[]): Promise<MergeOutcome> {
  await recordMergeConflicts(em, cr.id, conflicts);
  return { result: 'conflicts', revision: cr.revision_id, conflicts };
}

const lock = (em: Em, job: ChangeRequestJob) => lockChangeRequestForMerge(em, job.spaceId, job.changeRequestId);

/**
 * A merge or an update is answered when it is done: foreground work of the worker, for which the
 * search-index jobs it runs meanwhile step aside (src/lib/foreground.ts).
 */
const foreground = <T>(work: () => Promise<T>) => inForeground(() => heartbeating(work));

export interface ChangeRequestMergeOptions {
  /** PUBLIC_URL: the `urls` of what custom merge rules see are the API's. */
  publicUrl: string;
}

/** Activities of the `change-request-merge` workflows (merge and update). */
/** The audit event of a merge or an update a job applied, in its transaction: the revision it made is its payload. */
function jobEvent(kind: 'changeRequestMerge' | 'changeRequestUpdate', job: ChangeRequestJob, cr: LockedChangeRequest, revision: string) {
  return jobIntent({
    action: JOB_ACTIONS[kind].action,
    userId: job.userId,
    organizationId: cr.organization_id,
    target: { type: 'change-request', id: cr.id },
    cause: job.audit,
    fallbackCorrelationId: `${kind}/${cr.id}/${revision}`,
    payload: { spaceId: job.spaceId, revision },
  });
}

export function changeRequestMergeActivities(orm: Orm, options: ChangeRequestMergeOptions) {
  return {
    /**
     * Merges a change request into its space's primary content in one transaction, then starts
     * the `search-index` job of the merge revision (the index follows in that job; the merge
     * answers without waiting for it). Idempotent: a retried or reset merge of a merged change
     * request returns the revision it made, and starts its index job if an earlier attempt did not.
     */
    async mergeChangeRequest(job: ChangeRequestJob): Promise<MergeOutcome> {
      let organizationId = '';
      let raised: RaisedFor[] = [];
      const outcome = await foreground(() =>
        transaction(forkEm(orm), async (em): Promise<MergeOutcome> => {
          beat({ phase: 'locking' });
          const cr = await lock(em, job);
          if (!cr) return { result: 'refused', revision: '', reason: 'not-found' };
          organizationId = cr.organization_id;
          if (cr.status === 'merged') return { result: 'merge', revision: cr.revision_merged! };
          if (cr.status === 'archived') return { result: 'refused', revision: cr.revision_id, reason: 'archived' };
          if (cr.edit_mode === 'locked') return { result: 'refused', revision: cr.revision_id, reason: 'locked' };
          // The rules again, under the locks: a review withdrawn or an edit made since the API
          // checked them cannot slip through.
          beat({ phase: 'checking rules' });
          const { organization, space, ...facts } = await mergeRuleFacts(em, job.spaceId, cr.id);
          const rules = effectiveMergeRules(organization, space);
          const role = job.role ?? (job.admin ? 'admin' : null);
          const rows = needsEvaluationContext(rules)
            ? await mergeRulesContextRows(em, { spaceId: job.spaceId, changeRequestId: cr.id, userId: job.userId })
            : undefined;
          const check = checkMergeRules(rules, {
            ...facts,
            caller: { userId: job.userId, admin: job.admin === true },
            context: rows && presentMergeRulesContext(rows, { userId: job.userId, role }, options.publicUrl),
          });
          if (check.unmet.length > 0 && !check.bypass)
            return { result: 'refused', revision: cr.revision_id, reason: 'merge-rules', unmet: check.unmet };
          const bypass = check.bypass ? { by: job.userId, at: new Date().toISOString(), rules: check.unmet.map((u) => u.rule) } : undefined;
          const ancestor = cr.revision_merged_ancestor ?? cr.revision_initial;
          beat({ phase: 'merging' });
          const merged = await mergeRevisions(em, job.spaceId, ancestor, cr.space_revision, cr.revision_id);
          if (merged.conflicts.length > 0) return recordConflicts(em, cr, merged.conflicts);
          beat({ phase: 'writing' });
          const [ourFiles, theirFiles] = await Promise.all([loadFiles(em, cr.space_revision), loadFiles(em, cr.revision_id)]);
          const known = new Set(ourFiles.map((f) => f.id));
          const revision = await writeRevision(em, {
            spaceId: job.spaceId,
            parents: [cr.space_revision, cr.revision_id],
            type: 'merge',
            base: { revisionId: cr.space_revision, pages: merged.ours },
            pages: merged.result,
            addedFiles: theirFiles.filter((f) => !known.has(f.id)),
          });
          await markChangeRequestMerged(em, {
            spaceId: job.spaceId,
            changeRequestId: cr.id,
            revisionId: revision,
            userId: job.userId,
            bypass,
          });
          await recordAudit(em, jobEvent('changeRequestMerge', job, cr, revision));
          // The installations enabled on the space hear of its new content once this commits.
          const mergedBy = await usersByIds(em, [job.userId]);
          raised = await raiseSpaceEvent(em, job.spaceId, 'space_content_updated', {
            revisionId: revision,
            updatedBy: mergedBy.map((user) => presentUser({ ...user, photoUrl: user.photoUrl ?? null }, urlsFor(options.publicUrl))),
          });
          return { result: 'merge', revision };
        }),
      );
      // Once committed (also when a retry finds the merge done): the index follows in a job of its own.
      if (outcome.result === 'merge') {
        beat({ phase: 'starting the search index' });
        await startSearchIndexFromActivity({ organizationId, spaceId: job.spaceId, revisionId: outcome.revision });
      }
      // A start lost here (the worker stopping) is made by the integration events' sweep.
      if (raised.length > 0) await announceIntegrationEventsFromActivity(raised);
      return outcome;
    },

    /** Pulls the space's current content into a change request (its base moves to that revision). Idempotent. */
    async updateChangeRequest(job: ChangeRequestJob): Promise<MergeOutcome> {
      return foreground(() =>
        transaction(forkEm(orm), async (em) => {
          beat({ phase: 'locking' });
          const cr = await lock(em, job);
          if (!cr) return { result: 'refused', revision: '', reason: 'not-found' };
          if (cr.status === 'merged' || cr.status === 'archived') return { result: 'refused', revision: cr.revision_id, reason: cr.status };
          const ancestor = cr.revision_merged_ancestor ?? cr.revision_initial;
          if (ancestor === cr.space_revision) return { result: 'update', revision: cr.revision_id };
          beat({ phase: 'merging' });
          const merged = await mergeRevisions(em, job.spaceId, ancestor, cr.revision_id, cr.space_revision);
          if (merged.conflicts.length > 0) return recordConflicts(em, cr, merged.conflicts);
          beat({ phase: 'writing' });
          const [ourFiles, theirFiles] = await Promise.all([loadFiles(em, cr.revision_id), loadFiles(em, cr.space_revision)]);
          const known = new Set(ourFiles.map((f) => f.id));
          const revision = await writeRevision(em, {
            spaceId: job.spaceId,
            parents: [cr.revision_id, cr.space_revision],
            type: 'update',
            changeRequestId: cr.id,
            base: { revisionId: cr.revision_id, pages: merged.ours },
            pages: merged.result,
            addedFiles: theirFiles.filter((f) => !known.has(f.id)),
            // Reusable contents change only on the space's content (Git Sync): an update takes the space's.
            reusableContentsFrom: cr.space_revision,
          });
          await markChangeRequestUpdated(em, cr.id, revision, cr.space_revision);
          // The update writes the change request's new revision: an edit by whoever asked for it.
          await recordChangeRequestEdit(em, cr.id, revision, job.userId);
          await recordAudit(em, jobEvent('changeRequestUpdate', job, cr, revision));
          return { result: 'update', revision };
        }),
      );
    },
  };
}

export type ChangeRequestMergeActivities = ReturnType<typeof changeRequestMergeActivities>;

import type { ChangeRequestRow } from '../../db/change-requests.ts';
import type { FileRow } from '../../db/content.ts';
import type { User } from '../../db/entities.ts';
import type { MergeRulesContextRows } from '../../db/merge-rules.ts';
import { descriptionDocument } from '../../domain/change-request-description.ts';
import type { ChangeOutcome } from '../../domain/content/operations.ts';
import { plainContext } from '../../domain/expressions.ts';
import type { MergeRulesEvaluationContext } from '../../domain/merge-rules.ts';
import type { Role } from '../../domain/roles.ts';
import { presentFile } from '../content/present.ts';
import { presentSpace } from '../spaces/present.ts';
import { presentUser } from '../users/present.ts';
import { urlsFor } from '../object-urls.ts';
import { presentReview, userPresenter } from './reviews/present.ts';

/** What is shown with change requests, loaded by the service for a whole page of them. */
export interface ChangeRequestFacts {
  /** Creators and mergers that still exist. */
  users: Map<string, User>;
  /** The titles of the integrations that opened some of them (those that still exist). */
  integrations: Map<string, string>;
  /** The current revision of each space. */
  heads: Map<string, string>;
  /** Open comments inside each change request. */
  comments: Map<string, number>;
}

/**
 * The author of a change request an integration opened, in GitBook's User shape: the integration
 * (its name as id, its title as name, its location in the API), as no user opened it.
 */
function integrationAuthor(name: string, facts: ChangeRequestFacts, publicUrl: string) {
  return {
    object: 'user' as const,
    id: name,
    displayName: facts.integrations.get(name) ?? name,
    urls: { location: `${publicUrl}/v1/integrations/${name}` },
  };
}

/**
 * GitBook's ChangeRequest object. `outdated`: the space moved on since the change request's base.
 * For a site visitor (`visitor`: a revision's `mergedFrom` read through a published site), the
 * people in it are shown without their email, and the description (which GitBook's schema lets
 * go) is left out: a site's readers see what was published, not the members' addresses or notes.
 */
export function presentChangeRequest(r: ChangeRequestRow, facts: ChangeRequestFacts, publicUrl: string, visitor = false) {
  const urls = urlsFor(publicUrl);
  const ghost = (id: string | null) => {
    const user = id ? facts.users.get(id) : undefined;
    if (user) {
      const presented = presentUser(
        { id: user.id, displayName: user.displayName, email: user.email, photoUrl: user.photoUrl ?? null },
        urls,
      );
      if (!visitor) return presented;
      const { email: _email, ...withoutEmail } = presented;
      return withoutEmail;
    }
    return {
      object: 'user' as const,
      id: id ?? 'deleted',
      displayName: 'Deleted user',
      urls: { location: `${publicUrl}/v1/users/${id ?? 'deleted'}` },
    };
  };
  return {
    object: 'change-request' as const,
    id: r.id,
    number: r.number,
    status: r.status,
    subject: r.subject,
    ...(r.description && !visitor ? { description: descriptionDocument(r.description) } : {}),
    createdBy: r.created_by_integration ? integrationAuthor(r.created_by_integration, facts, publicUrl) : ghost(r.created_by),
    createdAt: new Date(r.created_at).toISOString(),
    updatedAt: new Date(r.updated_at).toISOString(),
    space: r.space_id,
    revision: r.revision_id,
    revisionInitial: r.revision_initial,
    ...(r.revision_merged_ancestor ? { revisionMergedAncestor: r.revision_merged_ancestor } : {}),
    ...(r.revision_merged ? { revisionMerged: r.revision_merged } : {}),
    ...(r.merged_at ? { mergedAt: new Date(r.merged_at).toISOString(), mergedBy: ghost(r.merged_by) } : {}),
    comments: facts.comments.get(r.id) ?? 0,
    outdated: r.status !== 'merged' && (r.revision_merged_ancestor ?? r.revision_initial) !== facts.heads.get(r.space_id),
    ...(r.conflicts && r.conflicts.length ? { conflicts: r.conflicts } : {}),
    ...(r.merge_bypass ? { mergeRulesBypass: { by: ghost(r.merge_bypass.by), at: r.merge_bypass.at, rules: r.merge_bypass.rules } } : {}),
    urls: {
      app: `${publicUrl}/app/spaces/${r.space_id}/change-requests/${r.number}`,
      location: `${publicUrl}/v1/spaces/${r.space_id}/change-requests/${r.id}`,
    },
  };
}

/**
 * GitBook's ChangeRequestContentUpdateChange items: created and updated pages as page references
 * with the API URL of their content (`base` is the change request's absolute API URL), deleted
 * pages as their id.
 */
export function presentContentChanges(changes: ChangeOutcome[], base: string) {
  return changes.map((c) =>
    c.object === 'deleted_page'
      ? { object: c.object, page: c.page }
      : {
          object: c.object,
          ...(c.ref !== undefined && c.object === 'created_page' ? { ref: c.ref } : {}),
          page: { object: 'page' as const, id: c.page, urls: { location: `${base}/content/page/${c.page}` } },
        },
  );
}

/**
 * The answer of a content batch with `compat=false`: the change request, what each operation
 * did, and the files it added.
 */
export function presentContentUpdate(
  changeRequest: ReturnType<typeof presentChangeRequest>,
  changes: ChangeOutcome[],
  insertedFiles: FileRow[],
  publicUrl: string,
) {
  const base = `/v1/spaces/${changeRequest.space}/change-requests/${changeRequest.id}`;
  return {
    changeRequest,
    changes: presentContentChanges(changes, `${publicUrl}${base}`),
    insertedFiles: insertedFiles.map((f) => presentFile(f, { publicUrl, spaceId: changeRequest.space, metadata: true, base })),
  };
}

/**
 * GitBook's MergeRulesEvaluationContext, what custom merge rules see: the space as `actor` (with
 * `role` on it) reads it, the change request and its reviews as the API answers them, and the
 * merging user. Plain data (a JSON round trip): no prototypes beyond Object's, no functions.
 */
export function presentMergeRulesContext(
  rows: MergeRulesContextRows,
  actor: { userId: string; role: Role | null },
  publicUrl: string,
): MergeRulesEvaluationContext {
  const cr = rows.changeRequest;
  const user = userPresenter(rows.users, publicUrl);
  const facts: ChangeRequestFacts = {
    users: rows.users,
    // An integration that opened it is named by its name here, not its title.
    integrations: new Map(),
    heads: new Map([[rows.space.id, rows.space.revisionId]]),
    comments: new Map([[cr.id, rows.comments]]),
  };
  const base = `${publicUrl}/v1/spaces/${cr.space_id}/change-requests/${cr.id}`;
  return plainContext({
    space: presentSpace(rows.space, actor.role, urlsFor(publicUrl), rows.gitSync),
    changeRequest: presentChangeRequest(cr, facts, publicUrl),
    reviews: rows.reviews.map((r) => presentReview(r, user, base)),
    actor: user(actor.userId),
  });
}

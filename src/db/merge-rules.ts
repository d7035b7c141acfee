import type { MergeFacts, MergeRulesConfig } from '../domain/merge-rules.ts';
import { spaceWithAccessFacts, type SpaceGitSync } from './access.ts';
import { changeRequestPeople, findChangeRequest, type ChangeRequestRow } from './change-requests.ts';
import { countOpenComments } from './comments.ts';
import { jsonb } from './content.ts';
import type { Space, User } from './entities.ts';
import { db } from './kysely.ts';
import type { Em } from './orm.ts';
import { changeRequestReviews, pendingReviewers, reviewStates, type ReviewRow } from './reviews.ts';

/** Merge rules of organizations and spaces (`merge_rules` columns), and what they are checked against. */

export async function setOrganizationMergeRules(em: Em, organizationId: string, config: MergeRulesConfig): Promise<void> {
  await db(em)
    .updateTable('organization')
    .set({ merge_rules: jsonb(config) })
    .where('id', '=', organizationId)
    .execute();
}

export async function setSpaceMergeRules(em: Em, spaceId: string, config: MergeRulesConfig): Promise<void> {
  await db(em)
    .updateTable('space')
    .set({ merge_rules: jsonb(config), updated_at: new Date() })
    .where('id', '=', spaceId)
    .execute();
}

/** The configurations that apply to a space: its own and its organization's (null when unset). */
export async function spaceMergeRules(
  em: Em,
  spaceId: string,
): Promise<{ organization: MergeRulesConfig | null; space: MergeRulesConfig | null }> {
  const row = await db(em)
    .selectFrom('space as s')
    .innerJoin('organization as o', 'o.id', 's.organization_id')
    .select(['s.merge_rules as space', 'o.merge_rules as organization'])
    .where('s.id', '=', spaceId)
    .executeTakeFirstOrThrow();
  return { organization: row.organization, space: row.space };
}

/**
 * The facts the merge rules look at for a change request, read with `em` (inside the merge's
 * transaction, after the change request is locked, they cannot change before it commits).
 */
export async function mergeRuleFacts(
  em: Em,
  spaceId: string,
  changeRequestId: string,
): Promise<Omit<MergeFacts, 'caller'> & { organization: MergeRulesConfig | null; space: MergeRulesConfig | null }> {
  const [rules, cr, reviews, requestedReviewers] = await Promise.all([
    spaceMergeRules(em, spaceId),
    db(em)
      .selectFrom('change_request as cr')
      .innerJoin('space as s', 's.id', 'cr.space_id')
      .select([
        'cr.subject',
        'cr.description',
        'cr.created_by',
        'cr.revision_initial',
        'cr.revision_merged_ancestor',
        's.revision_id as head',
      ])
      .where('cr.id', '=', changeRequestId)
      .where('cr.space_id', '=', spaceId)
      .executeTakeFirstOrThrow(),
    reviewStates(em, changeRequestId),
    pendingReviewers(em, changeRequestId),
  ]);
  return {
    ...rules,
    changeRequest: { subject: cr.subject, description: cr.description, createdBy: cr.created_by },
    reviews,
    requestedReviewers,
    upToDate: (cr.revision_merged_ancestor ?? cr.revision_initial) === cr.head,
  };
}

/** The rows a custom merge rule's evaluation context is presented from. */
export interface MergeRulesContextRows {
  space: Space;
  gitSync: SpaceGitSync | undefined;
  changeRequest: ChangeRequestRow;
  /** Open comments in the change request. */
  comments: number;
  reviews: ReviewRow[];
  /** The users these rows name, and the merging user. */
  users: Map<string, User>;
}

/**
 * What a custom merge rule sees, read with `em` (inside the merge's transaction, after the change
 * request is locked, as mergeRuleFacts). Undefined when the space or change request is gone.
 */
export async function mergeRulesContextRows(
  em: Em,
  input: { spaceId: string; changeRequestId: string; userId: string },
): Promise<MergeRulesContextRows | undefined> {
  const [found, changeRequest, reviews, comments] = await Promise.all([
    spaceWithAccessFacts(em, input.spaceId, input.userId),
    findChangeRequest(em, input.spaceId, input.changeRequestId),
    changeRequestReviews(em, input.changeRequestId),
    countOpenComments(em, 'change_request_id', [input.changeRequestId]),
  ]);
  if (!found || !changeRequest) return undefined;
  const named = [
    input.userId,
    changeRequest.created_by,
    changeRequest.merged_by,
    changeRequest.merge_bypass?.by ?? null,
    ...reviews.flatMap((r) => [r.reviewer_id, r.requested_by]),
  ];
  const users = await changeRequestPeople(em, [...new Set(named.filter((id): id is string => !!id))]);
  return {
    space: found.space,
    gitSync: found.gitSync,
    changeRequest,
    comments: comments.get(changeRequest.id) ?? 0,
    reviews,
    users,
  };
}

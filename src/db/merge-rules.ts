import type { MergeFacts, MergeRulesConfig } from '../domain/merge-rules.ts';
import { jsonb } from './content.ts';
import { db } from './kysely.ts';
import type { Em } from './orm.ts';
import { pendingReviewers, reviewStates } from './reviews.ts';

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

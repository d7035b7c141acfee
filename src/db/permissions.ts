import { expressionBuilder, sql, type InferResult } from 'kysely';
import type { Role } from '../domain/roles.ts';
import type { ContentKind } from './access.ts';
import { db, type Db } from './kysely.ts';
import type { Listing } from './listing.ts';
import type { Em } from './orm.ts';

/**
 * Explicit grants of a role on one space or collection to one user or team (content_permission).
 * The rule that combines them with organization roles and default levels reads them in ./access.ts.
 */

export type Principal = 'user' | 'team';

const targetColumn = (kind: ContentKind) => (kind === 'space' ? 'space_id' : 'collection_id');
/** The column of a grant row naming its principal (content and site grants alike). */
export const principalColumn = (principal: Principal) => (principal === 'user' ? 'user_id' : 'team_id');

/** What a grant is on: a space or a collection of an organization. */
export interface GrantTarget {
  kind: ContentKind;
  id: string;
  organizationId: string;
}

/** Of `ids`, those that are members (users) or teams (teams) of the organization. */
export async function existingPrincipals(em: Em, organizationId: string, principal: Principal, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows =
    principal === 'user'
      ? await db(em)
          .selectFrom('member')
          .select('user_id as id')
          .where('organization_id', '=', organizationId)
          .where('user_id', 'in', ids)
          .execute()
      : await db(em).selectFrom('team').select('id').where('organization_id', '=', organizationId).where('id', 'in', ids).execute();
  return new Set(rows.map((r) => r.id));
}

/** Grants `role` on the target to a principal, replacing the role they had there. */
export async function upsertGrant(
  em: Em,
  id: string,
  target: GrantTarget,
  principal: Principal,
  principalId: string,
  role: string,
  at: Date,
): Promise<void> {
  const on = targetColumn(target.kind);
  const who = principalColumn(principal);
  await db(em)
    .insertInto('content_permission')
    .values({
      id,
      organization_id: target.organizationId,
      space_id: target.kind === 'space' ? target.id : null,
      collection_id: target.kind === 'collection' ? target.id : null,
      user_id: principal === 'user' ? principalId : null,
      team_id: principal === 'team' ? principalId : null,
      role,
      created_at: at,
    })
    // The unique indexes on (target, principal) are partial: the conflict target names their predicate.
    .onConflict((oc) =>
      oc
        .columns([on, who])
        .where(on, 'is not', null)
        .where(who, 'is not', null)
        .doUpdateSet((eb) => ({ role: eb.ref('excluded.role') })),
    )
    .execute();
}

/** Changes the role of an existing grant; false when there is none. */
export async function updateGrant(
  em: Em,
  kind: ContentKind,
  targetId: string,
  principal: Principal,
  principalId: string,
  role: string,
): Promise<boolean> {
  const rows = await db(em)
    .updateTable('content_permission')
    .set({ role })
    .where(targetColumn(kind), '=', targetId)
    .where(principalColumn(principal), '=', principalId)
    .returning('id')
    .execute();
  return rows.length > 0;
}

/** Removes the grant of a principal on the target; false when there was none. */
export async function deleteGrant(
  em: Em,
  kind: ContentKind,
  targetId: string,
  principal: Principal,
  principalId: string,
): Promise<boolean> {
  const rows = await db(em)
    .deleteFrom('content_permission')
    .where(targetColumn(kind), '=', targetId)
    .where(principalColumn(principal), '=', principalId)
    .returning('id')
    .execute();
  return rows.length > 0;
}

/** Grants (aliased `p`, content and site grants alike) are listed oldest first, compared at millisecond precision (the precision of a page cursor). */
export const byGrantDate = expressionBuilder<Db>().fn<string>('date_trunc', [sql.lit('milliseconds'), sql.ref('p.created_at')]);
export const BY_GRANT_DATE = [
  { field: 'sortKey', kind: 'date' },
  { field: 'id', kind: 'string' },
] as const;

function userGrants(em: Em, kind: ContentKind, targetId: string) {
  return db(em)
    .selectFrom('content_permission as p')
    .innerJoin('app_user as u', 'u.id', 'p.user_id')
    .select([
      byGrantDate.as('sortKey'),
      'p.id',
      'p.role',
      'u.id as userId',
      'u.display_name as displayName',
      'u.email',
      'u.photo_url as photoUrl',
    ])
    .where(`p.${targetColumn(kind)}`, '=', targetId)
    .$narrowType<{ role: Role }>();
}

function teamGrants(em: Em, kind: ContentKind, targetId: string) {
  return db(em)
    .selectFrom('content_permission as p')
    .innerJoin('team as t', 't.id', 'p.team_id')
    .select([byGrantDate.as('sortKey'), 'p.id', 'p.role', 't.id as teamId', 't.title', 't.created_at as createdAt'])
    .where(`p.${targetColumn(kind)}`, '=', targetId)
    .$narrowType<{ role: Role }>();
}

/** A grant to a user, with the user. */
export type UserGrantRow = InferResult<ReturnType<typeof userGrants>>[number];

/** A grant to a team, with the team. */
export type TeamGrantRow = InferResult<ReturnType<typeof teamGrants>>[number];

/** The grants to users on a space or collection, oldest first. */
export function userGrantListing(em: Em, kind: ContentKind, targetId: string): Listing<UserGrantRow> {
  return { query: userGrants(em, kind, targetId), keys: [...BY_GRANT_DATE] };
}

/** The grants to teams on a space or collection, oldest first. */
export function teamGrantListing(em: Em, kind: ContentKind, targetId: string): Listing<TeamGrantRow> {
  return { query: teamGrants(em, kind, targetId), keys: [...BY_GRANT_DATE] };
}

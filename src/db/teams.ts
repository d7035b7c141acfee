import { expressionBuilder, sql, type InferResult } from 'kysely';
import { containsPattern, type TeamRole } from '../domain/membership.ts';
import { withGrantReach } from './access.ts';
import { db, type Db } from './kysely.ts';
import type { Listing } from './listing.ts';
import type { Em } from './orm.ts';

/** Teams and their members: the team rows, the lists of them, the counts shown with a team, membership writes. */

/** The teams, every column a team is shown with (under the fields' names). */
function teamRows(em: Em) {
  return db(em).selectFrom('team as t').select(['t.id', 't.organization_id as organizationId', 't.title', 't.created_at as createdAt']);
}

/** A team as it is shown. */
export type TeamRow = InferResult<ReturnType<typeof teamRows>>[number];

/** A team of a member's listing: the team plus the member's role in it. */
export type MemberTeamRow = TeamRow & { teamRole: string };

/** Teams are listed oldest first, compared at millisecond precision (the precision of a page cursor). */
const byCreation = expressionBuilder<Db>().fn<string>('date_trunc', [sql.lit('milliseconds'), sql.ref('t.created_at')]);
const BY_CREATION_KEYS = [
  { field: 'sortKey', kind: 'date' },
  { field: 'id', kind: 'string' },
] as const;

/** The team of an organization; undefined when it has no such team. */
export async function findTeam(em: Em, organizationId: string, teamId: string): Promise<TeamRow | undefined> {
  return teamRows(em).where('t.id', '=', teamId).where('t.organization_id', '=', organizationId).executeTakeFirst();
}

/** The teams of an organization among `teamIds` (the others are left out). */
export async function teamsOf(em: Em, organizationId: string, teamIds: string[]): Promise<TeamRow[]> {
  if (teamIds.length === 0) return [];
  return teamRows(em).where('t.id', 'in', teamIds).where('t.organization_id', '=', organizationId).execute();
}

/** The users in each of these teams, by team id (a team without members maps to an empty list). */
export async function teamMemberIds(em: Em, teamIds: string[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>(teamIds.map((id) => [id, []]));
  if (teamIds.length === 0) return out;
  const rows = await db(em).selectFrom('team_member').select(['team_id', 'user_id']).where('team_id', 'in', teamIds).execute();
  for (const row of rows) out.get(row.team_id)?.push(row.user_id);
  return out;
}

/** The role of a user in a team; null when they are not in it (or hold a role this service does not know). */
export async function teamRoleOf(em: Em, teamId: string, userId: string): Promise<TeamRole | null> {
  const row = await db(em)
    .selectFrom('team_member')
    .select('role')
    .where('team_id', '=', teamId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return row?.role === 'owner' || row?.role === 'member' ? row.role : null;
}

export interface TeamFilter {
  /** Case-insensitive contains on the title. */
  title?: string;
  /** Only teams this member can manage: all of them for an organization admin, else those they own. */
  owner?: string;
}

/** The teams of an organization, oldest first. */
export function teamListing(em: Em, organizationId: string, filter: TeamFilter): Listing<TeamRow & { sortKey: string }> {
  let query = teamRows(em).select(byCreation.as('sortKey')).where('t.organization_id', '=', organizationId);
  if (filter.title) query = query.where('t.title', 'ilike', containsPattern(filter.title));
  const owner = filter.owner;
  if (owner !== undefined) {
    query = query.where((eb) =>
      eb.exists(
        eb
          .selectFrom('member as m')
          .select(sql.lit(1).as('one'))
          .whereRef('m.organization_id', '=', 't.organization_id')
          .where('m.user_id', '=', owner)
          .where('m.disabled', '=', false)
          .where((e) =>
            e.or([
              e('m.role', '=', 'admin'),
              e.exists(
                e
                  .selectFrom('team_member as tm')
                  .select(sql.lit(1).as('one'))
                  .whereRef('tm.team_id', '=', 't.id')
                  .whereRef('tm.user_id', '=', 'm.user_id')
                  .where('tm.role', '=', 'owner'),
              ),
            ]),
          ),
      ),
    );
  }
  return { query, keys: [...BY_CREATION_KEYS] };
}

/** The teams of the organization a member is in, oldest first. */
export function memberTeamListing(
  em: Em,
  organizationId: string,
  userId: string,
  filter: { title?: string },
): Listing<MemberTeamRow & { sortKey: string }> {
  let query = teamRows(em)
    .innerJoin('team_member as tm', 'tm.team_id', 't.id')
    .select([byCreation.as('sortKey'), 'tm.role as teamRole'])
    .where('t.organization_id', '=', organizationId)
    .where('tm.user_id', '=', userId);
  if (filter.title) query = query.where('t.title', 'ilike', containsPattern(filter.title));
  return { query, keys: [...BY_CREATION_KEYS] };
}

export interface TeamFacts {
  members: number;
  spaces: number;
  /** The caller's role in the team, if they are in it. */
  callerRole: TeamRole | null;
}

/** Member counts, reached live-space counts and the caller's team role for several teams, in one statement. */
export async function teamFacts(em: Em, teamIds: string[], callerId: string): Promise<Map<string, TeamFacts>> {
  const out = new Map<string, TeamFacts>();
  if (teamIds.length === 0) return out;
  const grants = db(em)
    .selectFrom('content_permission as p')
    .select(['p.team_id as principal', 'p.space_id', 'p.collection_id'])
    .where('p.team_id', 'in', teamIds);
  const rows = await withGrantReach(em, grants)
    .selectFrom('team as t')
    .select((eb) => [
      't.id',
      eb
        .selectFrom('team_member as tm')
        .select((e) => e.fn.countAll<string>().as('n'))
        .whereRef('tm.team_id', '=', 't.id')
        .as('members'),
      eb
        .selectFrom('reach as r')
        .innerJoin('space as s', (join) =>
          join.onRef('s.id', '=', 'r.id').onRef('s.organization_id', '=', 't.organization_id').on('s.deleted_at', 'is', null),
        )
        .select((e) => e.fn.countAll<string>().as('n'))
        .whereRef('r.principal', '=', 't.id')
        .where('r.kind', '=', 'space')
        .as('spaces'),
      eb
        .selectFrom('team_member as tm')
        .select('tm.role')
        .whereRef('tm.team_id', '=', 't.id')
        .where('tm.user_id', '=', callerId)
        .as('callerRole'),
    ])
    .where('t.id', 'in', teamIds)
    .execute();
  for (const row of rows) {
    out.set(row.id, {
      members: Number(row.members),
      spaces: Number(row.spaces),
      callerRole: row.callerRole === 'owner' || row.callerRole === 'member' ? row.callerRole : null,
    });
  }
  return out;
}

/** Members of an organization whose user id, or email (any case), is one of `handles`. */
export async function membersByHandle(em: Em, organizationId: string, handles: string[]): Promise<{ userId: string; email: string }[]> {
  if (handles.length === 0) return [];
  return db(em)
    .selectFrom('member as m')
    .innerJoin('app_user as u', 'u.id', 'm.user_id')
    .select(['m.user_id as userId', 'u.email'])
    .where('m.organization_id', '=', organizationId)
    .where((eb) =>
      eb.or([
        eb('m.user_id', 'in', handles),
        eb(
          eb.fn<string>('lower', ['u.email']),
          'in',
          handles.map((h) => h.toLowerCase()),
        ),
      ]),
    )
    .execute();
}

/** A new team, with no members yet. */
export async function insertTeam(em: Em, team: { id: string; organizationId: string; title: string; at: Date }): Promise<void> {
  await db(em)
    .insertInto('team')
    .values({ id: team.id, organization_id: team.organizationId, title: team.title, created_at: team.at, updated_at: team.at })
    .execute();
}

/** Renames a team. */
export async function renameTeamRow(em: Em, teamId: string, title: string, at: Date): Promise<void> {
  await db(em).updateTable('team').set({ title, updated_at: at }).where('id', '=', teamId).execute();
}

/** Deletes a team; its memberships and grants go with it (foreign keys cascade). */
export async function deleteTeamRow(em: Em, teamId: string): Promise<void> {
  await db(em).deleteFrom('team').where('id', '=', teamId).execute();
}

/** Adds a user to a team with `role`, or changes their role when already in it (`keep`: add as member, change nothing). */
export async function upsertTeamMember(em: Em, teamId: string, userId: string, role: TeamRole | 'keep', at: Date): Promise<void> {
  await db(em)
    .insertInto('team_member')
    .values({ team_id: teamId, user_id: userId, role: role === 'keep' ? 'member' : role, joined_at: at })
    .onConflict((oc) => {
      const target = oc.columns(['team_id', 'user_id']);
      return role === 'keep' ? target.doNothing() : target.doUpdateSet((eb) => ({ role: eb.ref('excluded.role') }));
    })
    .execute();
}

/** Takes users out of a team; how many were in it. */
export async function removeTeamMembers(em: Em, teamId: string, userIds: string[]): Promise<number> {
  if (userIds.length === 0) return 0;
  const result = await db(em).deleteFrom('team_member').where('team_id', '=', teamId).where('user_id', 'in', userIds).executeTakeFirst();
  return Number(result.numDeletedRows);
}

import { expressionBuilder, sql, type Expression, type ExpressionBuilder, type InferResult } from 'kysely';
import { containsPattern } from '../domain/membership.ts';
import { ROLES, type Role } from '../domain/roles.ts';
import { db, type Db } from './kysely.ts';
import type { Listing } from './listing.ts';
import type { Em } from './orm.ts';
import { BY_GRANT_DATE, byGrantDate, principalColumn, type Principal } from './permissions.ts';

/**
 * Roles granted on one site to one member or team of its organization (site_permission,
 * Migration0035SitePermissions). The effective role on a site is the highest of the member's
 * organization role and the roles granted on the site to them or to a team of theirs; it is read
 * with the membership itself, in one statement (`memberSiteAccess`), by src/api/sites/site-access.ts.
 */

export type { Principal };

/** Roles from least to most: a role's rank is its position here (1 for read), as SQL's array_position gives it. */
const ROLE_ORDER = [...ROLES].reverse();
const rankOf = (role: Expression<string | null>) => sql<number | null>`array_position(${sql.val(ROLE_ORDER)}::text[], ${role})`;

/** A grant (`sp`) to `userId`, or to a team of theirs in the organization. */
function toMemberOrTeams(
  e: ExpressionBuilder<Db & { sp: Db['site_permission'] }, 'sp'>,
  userId: string | Expression<string>,
  organizationId: string | Expression<string>,
) {
  return e.or([
    e('sp.user_id', '=', userId),
    e(
      'sp.team_id',
      'in',
      e
        .selectFrom('team_member as tm')
        .innerJoin('team as t', 't.id', 'tm.team_id')
        .select('tm.team_id')
        .where('tm.user_id', '=', userId)
        .where('t.organization_id', '=', organizationId),
    ),
  ]);
}

/** The ids of the organization's sites granted to `userId` or a team of theirs: a subquery (a guest's listing of sites). */
export function sitesGrantedTo(organizationId: string, userId: string) {
  return expressionBuilder<Db>()
    .selectFrom('site_permission as sp')
    .select('sp.site_id')
    .where('sp.organization_id', '=', organizationId)
    .where((e) => toMemberOrTeams(e, userId, organizationId));
}

/**
 * The roles granted on `siteId` to `userId` or to a team of theirs in the organization, as an
 * array (null when none): the subquery a membership read selects.
 */
function grantsOnSite(
  siteId: string | Expression<string>,
  organizationId: string | Expression<string>,
  userId: string | Expression<string>,
) {
  const eb = expressionBuilder<Db>();
  return eb
    .selectFrom('site_permission as sp')
    .select((e) => e.fn.agg<string[]>('array_agg', ['sp.role']).as('grants'))
    .where('sp.site_id', '=', siteId)
    .where((e) => toMemberOrTeams(e, userId, organizationId));
}

/**
 * A user's enabled membership of an organization and the roles granted to them (or their teams) on
 * one of its sites, in one statement; undefined when they are not an enabled member.
 */
export async function memberSiteAccess(
  em: Em,
  organizationId: string,
  siteId: string,
  userId: string,
): Promise<{ role: string | null; grants: string[] } | undefined> {
  const row = await db(em)
    .selectFrom('member as m')
    .select((eb) => ['m.role', grantsOnSite(eb.val(siteId), eb.ref('m.organization_id'), eb.ref('m.user_id')).as('grants')])
    .where('m.organization_id', '=', organizationId)
    .where('m.user_id', '=', userId)
    .where('m.disabled', '=', false)
    .executeTakeFirst();
  return row && { role: row.role, grants: row.grants ?? [] };
}

/** Grants `role` on the site to a principal, replacing the role they had there. */
export async function upsertSiteGrant(
  em: Em,
  id: string,
  site: { id: string; organizationId: string },
  principal: Principal,
  principalId: string,
  role: Role,
  at: Date,
): Promise<void> {
  const who = principalColumn(principal);
  await db(em)
    .insertInto('site_permission')
    .values({
      id,
      organization_id: site.organizationId,
      site_id: site.id,
      user_id: principal === 'user' ? principalId : null,
      team_id: principal === 'team' ? principalId : null,
      role,
      created_at: at,
    })
    // The unique indexes on (site, principal) are partial: the conflict target names their predicate.
    .onConflict((oc) =>
      oc
        .columns(['site_id', who])
        .where(who, 'is not', null)
        .doUpdateSet((eb) => ({ role: eb.ref('excluded.role') })),
    )
    .execute();
}

/** Changes the role of an existing grant on a site; false when there is none. */
export async function updateSiteGrant(em: Em, siteId: string, principal: Principal, principalId: string, role: Role): Promise<boolean> {
  const rows = await db(em)
    .updateTable('site_permission')
    .set({ role })
    .where('site_id', '=', siteId)
    .where(principalColumn(principal), '=', principalId)
    .returning('id')
    .execute();
  return rows.length > 0;
}

/** Removes the grant of a principal on a site; false when there was none. */
export async function deleteSiteGrant(em: Em, siteId: string, principal: Principal, principalId: string): Promise<boolean> {
  const rows = await db(em)
    .deleteFrom('site_permission')
    .where('site_id', '=', siteId)
    .where(principalColumn(principal), '=', principalId)
    .returning('id')
    .execute();
  return rows.length > 0;
}

function userGrants(em: Em, siteId: string) {
  return db(em)
    .selectFrom('site_permission as p')
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
    .where('p.site_id', '=', siteId)
    .$narrowType<{ role: Role }>();
}

function teamGrants(em: Em, siteId: string) {
  return db(em)
    .selectFrom('site_permission as p')
    .innerJoin('team as t', 't.id', 'p.team_id')
    .select([byGrantDate.as('sortKey'), 'p.id', 'p.role', 't.id as teamId', 't.title', 't.created_at as createdAt'])
    .where('p.site_id', '=', siteId)
    .$narrowType<{ role: Role }>();
}

/** A grant on a site to a user, with the user. */
export type SiteUserGrantRow = InferResult<ReturnType<typeof userGrants>>[number];

/** A grant on a site to a team, with the team. */
export type SiteTeamGrantRow = InferResult<ReturnType<typeof teamGrants>>[number];

/** The grants to users on a site, oldest first. */
export function siteUserGrantListing(em: Em, siteId: string): Listing<SiteUserGrantRow> {
  return { query: userGrants(em, siteId), keys: [...BY_GRANT_DATE] };
}

/** The grants to teams on a site, oldest first. */
export function siteTeamGrantListing(em: Em, siteId: string): Listing<SiteTeamGrantRow> {
  return { query: teamGrants(em, siteId), keys: [...BY_GRANT_DATE] };
}

/** Filters and order of the listing of everyone who can access a site. */
export interface SiteAccessFilter {
  /** An effective role, or `guest`: members without an organization role (who reach the site through grants). */
  role?: Role | 'guest';
  /** Case-insensitive contains, on display name and email. */
  search?: string;
  /** Only members of this team. */
  team?: string;
  sort: 'joinedAt' | 'lastSeenAt' | 'name';
  order: 'asc' | 'desc';
}

function siteAccessRows(em: Em, site: { id: string; organizationId: string }) {
  const q = db(em);
  const teamGrant = (userId: Expression<string>) =>
    q
      .selectFrom('site_permission as p')
      .innerJoin('team_member as tm', 'tm.team_id', 'p.team_id')
      .where('p.site_id', '=', site.id)
      .where('tm.user_id', '=', userId)
      .orderBy(rankOf(sql.ref('p.role')), 'desc')
      .orderBy('p.team_id')
      .limit(1);
  const members = q
    .selectFrom('member as m')
    .innerJoin('app_user as u', 'u.id', 'm.user_id')
    .select((eb) => [
      'm.user_id as userId',
      'm.role as orgRole',
      'm.disabled',
      'm.joined_at as joinedAt',
      'm.last_seen_at as lastSeenAt',
      'u.display_name as displayName',
      'u.email',
      'u.photo_url as photoUrl',
      eb
        .selectFrom('site_permission as p')
        .select('p.role')
        .where('p.site_id', '=', site.id)
        .whereRef('p.user_id', '=', 'm.user_id')
        .$asScalar()
        .as('userGrant'),
      teamGrant(eb.ref('m.user_id')).select('p.role').$asScalar().as('teamGrant'),
      teamGrant(eb.ref('m.user_id')).select('p.team_id').$asScalar().as('grantTeam'),
    ])
    .where('m.organization_id', '=', site.organizationId);
  const rank = sql<number>`greatest(${rankOf(sql.ref('a.orgRole'))}, ${rankOf(sql.ref('a.userGrant'))}, ${rankOf(sql.ref('a.teamGrant'))})`;
  return q
    .selectFrom(members.as('a'))
    .selectAll('a')
    .select([rank.as('rank'), sql<Role>`(${sql.val(ROLE_ORDER)}::text[])[${rank}]`.as('permission')]);
}

/** A member who can access a site, with what their effective role there comes from. */
export type SiteAccessRow = InferResult<ReturnType<typeof siteAccessRows>>[number] & { sortKey: string };

/**
 * Everyone who can access a site: the organization's members with a role, and guests granted a
 * role on the site (directly or through a team), each with their effective role's rank.
 */
export function siteAccessListing(em: Em, site: { id: string; organizationId: string }, filter: SiteAccessFilter): Listing<SiteAccessRow> {
  const q = db(em);
  const sortKey =
    filter.sort === 'name'
      ? sql<string>`lower(${sql.ref('b.displayName')})`
      : sql<string>`date_trunc('milliseconds', ${sql.ref(filter.sort === 'joinedAt' ? 'b.joinedAt' : 'b.lastSeenAt')})`;
  let query = q.selectFrom(siteAccessRows(em, site).as('b')).selectAll('b').select(sortKey.as('sortKey')).where('b.rank', 'is not', null);
  if (filter.role === 'guest') query = query.where('b.orgRole', 'is', null);
  else if (filter.role !== undefined) query = query.where('b.rank', '=', ROLE_ORDER.indexOf(filter.role) + 1);
  if (filter.search) {
    const pattern = containsPattern(filter.search);
    query = query.where((eb) => eb.or([eb('b.displayName', 'ilike', pattern), eb('b.email', 'ilike', pattern)]));
  }
  if (filter.team !== undefined) {
    const team = filter.team;
    query = query.where((eb) =>
      eb.exists(
        eb
          .selectFrom('team_member as tm')
          .innerJoin('team as t', 't.id', 'tm.team_id')
          .select('tm.user_id')
          .whereRef('tm.user_id', '=', 'b.userId')
          .where('tm.team_id', '=', team)
          .where('t.organization_id', '=', site.organizationId),
      ),
    );
  }
  if (filter.sort === 'lastSeenAt') query = query.where('b.lastSeenAt', 'is not', null);
  return {
    query,
    keys: [
      { field: 'sortKey', kind: filter.sort === 'name' ? 'string' : 'date' },
      { field: 'userId', kind: 'string' },
    ],
    order: filter.order,
  };
}

/**
 * The roles granted to a member (or a team of theirs in the organization) on each of these sites,
 * by site id, in one statement: what a listing of sites presents each site with.
 */
export async function siteGrantsOf(em: Em, organizationId: string, siteIds: string[], userId: string): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  if (siteIds.length === 0) return out;
  const rows = await db(em)
    .selectFrom('site_permission as sp')
    .select(['sp.site_id', 'sp.role'])
    .where('sp.site_id', 'in', siteIds)
    .where('sp.organization_id', '=', organizationId)
    .where((e) => toMemberOrTeams(e, userId, organizationId))
    .execute();
  for (const row of rows) out.set(row.site_id, [...(out.get(row.site_id) ?? []), row.role]);
  return out;
}

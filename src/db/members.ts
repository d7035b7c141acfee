import { expressionBuilder, sql, type InferResult } from 'kysely';
import { containsPattern } from '../domain/membership.ts';
import { withGrantReach } from './access.ts';
import { db, type Db } from './kysely.ts';
import type { Listing } from './listing.ts';
import type { Em } from './orm.ts';

/** Organization members: the member table joined with their users, the counts shown with them, membership writes. */

/** The members with their users, every column a member is shown with (under the fields' names). */
function memberRows(em: Em) {
  return db(em)
    .selectFrom('member as m')
    .innerJoin('app_user as u', 'u.id', 'm.user_id')
    .select([
      'm.user_id as userId',
      'm.role',
      'm.disabled',
      'm.sso',
      'm.joined_at as joinedAt',
      'm.last_seen_at as lastSeenAt',
      'u.display_name as displayName',
      'u.email',
      'u.photo_url as photoUrl',
    ]);
}

/** A member joined with its user. */
export type MemberRow = InferResult<ReturnType<typeof memberRows>>[number];

/** A member of a team: the member row plus their role in the team. */
export type TeamMemberRow = MemberRow & { teamRole: string };

/** Timestamps are compared at millisecond precision, the precision of a page cursor. */
const toMilliseconds = (column: 'm.joined_at' | 'm.last_seen_at' | 'tm.joined_at') =>
  expressionBuilder<Db>().fn<string>('date_trunc', [sql.lit('milliseconds'), sql.ref(column)]);

export async function findMember(em: Em, organizationId: string, userId: string): Promise<MemberRow | undefined> {
  return memberRows(em).where('m.organization_id', '=', organizationId).where('m.user_id', '=', userId).executeTakeFirst();
}

export interface MemberFilter {
  /** A role, or `guest` for members without one. */
  role?: string;
  /** Case-insensitive contains, on display name and email. */
  search?: string;
  sort: 'joinedAt' | 'lastSeenAt' | 'name';
  order: 'asc' | 'desc';
}

/** The members of an organization, filtered and sorted; `lastSeenAt` lists only members seen once. */
export function memberListing(em: Em, organizationId: string, filter: MemberFilter): Listing<MemberRow & { sortKey: string }> {
  const sortKey =
    filter.sort === 'name'
      ? expressionBuilder<Db>().fn<string>('lower', [sql.ref('u.display_name')])
      : toMilliseconds(filter.sort === 'joinedAt' ? 'm.joined_at' : 'm.last_seen_at');
  let query = memberRows(em).select(sortKey.as('sortKey')).where('m.organization_id', '=', organizationId);
  if (filter.role === 'guest') query = query.where('m.role', 'is', null);
  else if (filter.role !== undefined) query = query.where('m.role', '=', filter.role);
  if (filter.search) {
    const pattern = containsPattern(filter.search);
    query = query.where((eb) => eb.or([eb('u.display_name', 'ilike', pattern), eb('u.email', 'ilike', pattern)]));
  }
  if (filter.sort === 'lastSeenAt') query = query.where('m.last_seen_at', 'is not', null);
  return {
    query,
    keys: [
      { field: 'sortKey', kind: filter.sort === 'name' ? 'string' : 'date' },
      { field: 'userId', kind: 'string' },
    ],
    order: filter.order,
  };
}

/** The members of a team, in the order they joined it. */
export function teamMemberListing(em: Em, organizationId: string, teamId: string): Listing<TeamMemberRow & { sortKey: string }> {
  return {
    query: memberRows(em)
      .innerJoin('team_member as tm', 'tm.user_id', 'm.user_id')
      .select([toMilliseconds('tm.joined_at').as('sortKey'), 'tm.role as teamRole'])
      .where('m.organization_id', '=', organizationId)
      .where('tm.team_id', '=', teamId),
    keys: [
      { field: 'sortKey', kind: 'date' },
      { field: 'userId', kind: 'string' },
    ],
  };
}

/**
 * What a member is shown with: the teams of the organization they are in, the live spaces they reach
 * through grants (theirs or their teams'), the live spaces of the organization and its sites.
 */
export interface MemberCounts {
  teams: number;
  granted: number;
  allSpaces: number;
  allSites: number;
  /** Sites of the organization granted to the member or to a team of theirs (site permissions). */
  grantedSites: number;
}

/** The counts of several members of one organization, in one statement. */
export async function memberCounts(em: Em, organizationId: string, userIds: string[]): Promise<Map<string, MemberCounts>> {
  const out = new Map<string, MemberCounts>();
  if (userIds.length === 0) return out;
  const q = db(em);
  const grants = q
    .selectFrom('content_permission as p')
    .select(['p.user_id as principal', 'p.space_id', 'p.collection_id'])
    .where('p.user_id', 'in', userIds)
    .unionAll(
      q
        .selectFrom('content_permission as p')
        .innerJoin('team as t', (join) => join.onRef('t.id', '=', 'p.team_id').on('t.organization_id', '=', organizationId))
        .innerJoin('team_member as tm', 'tm.team_id', 't.id')
        .select(['tm.user_id as principal', 'p.space_id', 'p.collection_id'])
        .where('tm.user_id', 'in', userIds),
    );
  const rows = await withGrantReach(em, grants)
    .selectFrom('member as u')
    .select((eb) => [
      'u.user_id as id',
      eb
        .selectFrom('team_member as tm')
        .innerJoin('team as t', 't.id', 'tm.team_id')
        .select((e) => e.fn.countAll<string>().as('n'))
        .where('t.organization_id', '=', organizationId)
        .whereRef('tm.user_id', '=', 'u.user_id')
        .as('teams'),
      eb
        .selectFrom('reach as r')
        .innerJoin('space as s', (join) =>
          join.onRef('s.id', '=', 'r.id').on('s.organization_id', '=', organizationId).on('s.deleted_at', 'is', null),
        )
        .select((e) => e.fn.countAll<string>().as('n'))
        .whereRef('r.principal', '=', 'u.user_id')
        .where('r.kind', '=', 'space')
        .as('granted'),
      eb
        .selectFrom('space as s')
        .select((e) => e.fn.countAll<string>().as('n'))
        .where('s.organization_id', '=', organizationId)
        .where('s.deleted_at', 'is', null)
        .as('allSpaces'),
      eb
        .selectFrom('site as si')
        .select((e) => e.fn.countAll<string>().as('n'))
        .where('si.organization_id', '=', organizationId)
        .as('allSites'),
      eb
        .selectFrom('site_permission as sp')
        .select((e) => e.fn.count<string>('sp.site_id').distinct().as('n'))
        .where('sp.organization_id', '=', organizationId)
        .where((e) =>
          e.or([
            e('sp.user_id', '=', e.ref('u.user_id')),
            e(
              'sp.team_id',
              'in',
              e
                .selectFrom('team_member as tm')
                .innerJoin('team as t', 't.id', 'tm.team_id')
                .select('tm.team_id')
                .whereRef('tm.user_id', '=', 'u.user_id')
                .where('t.organization_id', '=', organizationId),
            ),
          ]),
        )
        .as('grantedSites'),
    ])
    .where('u.organization_id', '=', organizationId)
    .where('u.user_id', 'in', userIds)
    .execute();
  for (const row of rows) {
    out.set(row.id, {
      teams: Number(row.teams),
      granted: Number(row.granted),
      allSpaces: Number(row.allSpaces),
      allSites: Number(row.allSites),
      grantedSites: Number(row.grantedSites),
    });
  }
  return out;
}

/** Records that a member was active now. */
export async function touchLastSeen(em: Em, organizationId: string, userId: string, at: Date): Promise<void> {
  await db(em)
    .updateTable('member')
    .set({ last_seen_at: at })
    .where('organization_id', '=', organizationId)
    .where('user_id', '=', userId)
    .execute();
}

/** Marks a member as signing in with SSO. */
export async function markSsoMember(em: Em, organizationId: string, userId: string): Promise<void> {
  await db(em)
    .updateTable('member')
    .set({ sso: true })
    .where('organization_id', '=', organizationId)
    .where('user_id', '=', userId)
    .execute();
}

/**
 * The active admins of an organization, their rows locked until the transaction ends, so two
 * concurrent demotions cannot both see "another admin remains". Run inside a transaction.
 */
export async function lockActiveAdmins(tx: Em, organizationId: string): Promise<string[]> {
  const rows = await db(tx)
    .selectFrom('member')
    .select('user_id')
    .where('organization_id', '=', organizationId)
    .where('role', '=', 'admin')
    .where('disabled', '=', false)
    .forUpdate()
    .execute();
  return rows.map((r) => r.user_id);
}

/** Sets a member's role (null: guest). */
export async function setMemberRole(em: Em, organizationId: string, userId: string, role: string | null): Promise<void> {
  await db(em).updateTable('member').set({ role }).where('organization_id', '=', organizationId).where('user_id', '=', userId).execute();
}

/**
 * Deletes a membership with the member's places in the organization's teams and the grants made to
 * them on the organization's content. Run inside a transaction.
 */
export async function deleteMembership(tx: Em, organizationId: string, userId: string): Promise<void> {
  const q = db(tx);
  await q
    .deleteFrom('team_member')
    .where('user_id', '=', userId)
    .where('team_id', 'in', q.selectFrom('team').select('id').where('organization_id', '=', organizationId))
    .execute();
  await q
    .deleteFrom('content_permission')
    .where('user_id', '=', userId)
    .where((eb) =>
      eb.or([
        eb('space_id', 'in', eb.selectFrom('space').select('id').where('organization_id', '=', organizationId)),
        eb('collection_id', 'in', eb.selectFrom('collection').select('id').where('organization_id', '=', organizationId)),
      ]),
    )
    .execute();
  await q.deleteFrom('member').where('organization_id', '=', organizationId).where('user_id', '=', userId).execute();
}

/**
 * A user who is a member (or guest) of an organization the viewer belongs to (through a membership
 * that is not disabled); with `organizationId`, of that organization only. A viewer without a
 * user (a site visitor) sees the members of `organizationId`. Undefined otherwise: users are never
 * found across organizations.
 */
export async function userSharingOrganization(
  em: Em,
  userId: string,
  viewer: { userId: string | null; organizationId: string | null },
): Promise<{ id: string; displayName: string; email: string; photoUrl: string | null } | undefined> {
  const { userId: viewerId, organizationId } = viewer;
  if (viewerId === null && organizationId === null) return undefined;
  return db(em)
    .selectFrom('app_user as u')
    .select(['u.id', 'u.display_name as displayName', 'u.email', 'u.photo_url as photoUrl'])
    .where('u.id', '=', userId)
    .where((eb) => {
      let theirs = eb.selectFrom('member as theirs').whereRef('theirs.user_id', '=', 'u.id').select('theirs.user_id');
      if (organizationId !== null) theirs = theirs.where('theirs.organization_id', '=', organizationId);
      if (viewerId !== null) {
        theirs = theirs.where((inner) =>
          inner.exists(
            inner
              .selectFrom('member as mine')
              .whereRef('mine.organization_id', '=', 'theirs.organization_id')
              .where('mine.user_id', '=', viewerId)
              .where('mine.disabled', '=', false)
              .select('mine.user_id'),
          ),
        );
      }
      return eb.exists(theirs);
    })
    .executeTakeFirst();
}

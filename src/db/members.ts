import { containsPattern } from '../domain/membership.ts';
import { grantReachCte } from './access.ts';
import type { SelectListing } from './listing.ts';
import type { Em } from './orm.ts';
import { sql, textArray } from './sql.ts';

/** Organization members: the member table joined with their users, the counts shown with them, membership writes. */

/** A member joined with its user. */
export interface MemberRow {
  [column: string]: unknown;
  user_id: string;
  role: string | null;
  disabled: boolean;
  sso: boolean;
  joined_at: Date | string;
  last_seen_at: Date | string | null;
  display_name: string;
  email: string;
  photo_url: string | null;
}

/** A member of a team: the member row plus their role in the team. */
export interface TeamMemberRow extends MemberRow {
  team_role: string;
}

const MEMBER_COLUMNS = 'm.user_id, m.role, m.disabled, m.sso, m.joined_at, m.last_seen_at, u.display_name, u.email, u.photo_url';

export async function findMember(em: Em, organizationId: string, userId: string): Promise<MemberRow | undefined> {
  const rows = await sql<MemberRow>(
    em,
    `select ${MEMBER_COLUMNS} from member m join app_user u on u.id = m.user_id where m.organization_id = ? and m.user_id = ?`,
    [organizationId, userId],
  );
  return rows[0];
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
export function memberListing(organizationId: string, filter: MemberFilter): SelectListing {
  // Timestamps are compared at millisecond precision, the precision of the page cursor.
  const sortKey =
    filter.sort === 'name'
      ? 'lower(u.display_name)'
      : `date_trunc('milliseconds', ${filter.sort === 'joinedAt' ? 'm.joined_at' : 'm.last_seen_at'})`;
  const params: unknown[] = [organizationId];
  let text = `select ${sortKey} as sort_key, ${MEMBER_COLUMNS} from member m join app_user u on u.id = m.user_id where m.organization_id = ?`;
  if (filter.role === 'guest') text += ' and m.role is null';
  else if (filter.role !== undefined) {
    text += ' and m.role = ?';
    params.push(filter.role);
  }
  if (filter.search) {
    text += ' and (u.display_name ilike ? or u.email ilike ?)';
    params.push(containsPattern(filter.search), containsPattern(filter.search));
  }
  if (filter.sort === 'lastSeenAt') text += ' and m.last_seen_at is not null';
  return {
    sql: text,
    params,
    keys: [
      { field: 'sort_key', kind: filter.sort === 'name' ? 'string' : 'date' },
      { field: 'user_id', kind: 'string' },
    ],
    order: filter.order,
  };
}

/** The members of a team (rows of TeamMemberRow), in the order they joined it. */
export function teamMemberListing(organizationId: string, teamId: string): SelectListing {
  return {
    sql: `select date_trunc('milliseconds', tm.joined_at) as sort_key, tm.role as team_role, ${MEMBER_COLUMNS}
            from team_member tm join member m on m.user_id = tm.user_id join app_user u on u.id = m.user_id
           where m.organization_id = ? and tm.team_id = ?`,
    params: [organizationId, teamId],
    keys: [
      { field: 'sort_key', kind: 'date' },
      { field: 'user_id', kind: 'string' },
    ],
  };
}

/**
 * What a member is shown with: the teams of the organization they are in, the live spaces they reach
 * through grants (theirs or their teams'), and the live spaces of the organization.
 */
export interface MemberCounts {
  teams: number;
  granted: number;
  allSpaces: number;
}

/** The counts of several members of one organization, in one statement. */
export async function memberCounts(em: Em, organizationId: string, userIds: string[]): Promise<Map<string, MemberCounts>> {
  const out = new Map<string, MemberCounts>();
  if (userIds.length === 0) return out;
  const ids = textArray(userIds);
  const rows = await sql<{ id: string; teams: string | number; granted: string | number; all_spaces: string | number }>(
    em,
    `${grantReachCte(`
       select p.user_id, p.space_id, p.collection_id from content_permission p where p.user_id = any(?::text[])
       union all
       select tm.user_id, p.space_id, p.collection_id from content_permission p
         join team t on t.id = p.team_id and t.organization_id = ?
         join team_member tm on tm.team_id = t.id
        where tm.user_id = any(?::text[])`)}
     select u.id,
       (select count(*) from team_member tm join team t on t.id = tm.team_id where t.organization_id = ? and tm.user_id = u.id) as teams,
       (select count(*) from reach r join space s on s.id = r.id and s.organization_id = ? and s.deleted_at is null
         where r.principal = u.id and r.kind = 'space') as granted,
       (select count(*) from space s where s.organization_id = ? and s.deleted_at is null) as all_spaces
       from unnest(?::text[]) u(id)`,
    [ids, organizationId, ids, organizationId, organizationId, organizationId, ids],
  );
  for (const row of rows) {
    out.set(row.id, { teams: Number(row.teams), granted: Number(row.granted), allSpaces: Number(row.all_spaces) });
  }
  return out;
}

/** Records that a member was active now. */
export async function touchLastSeen(em: Em, organizationId: string, userId: string, at: Date): Promise<void> {
  await sql(em, 'update member set last_seen_at = ? where organization_id = ? and user_id = ?', [at, organizationId, userId]);
}

/** Marks a member as signing in with SSO. */
export async function markSsoMember(em: Em, organizationId: string, userId: string): Promise<void> {
  await sql(em, 'update member set sso = true where organization_id = ? and user_id = ?', [organizationId, userId]);
}

/**
 * The active admins of an organization, their rows locked until the transaction ends, so two
 * concurrent demotions cannot both see "another admin remains". Run inside a transaction.
 */
export async function lockActiveAdmins(tx: Em, organizationId: string): Promise<string[]> {
  const rows = await sql<{ user_id: string }>(
    tx,
    `select user_id from member where organization_id = ? and role = 'admin' and not disabled for update`,
    [organizationId],
  );
  return rows.map((r) => r.user_id);
}

/** Sets a member's role (null: guest). */
export async function setMemberRole(em: Em, organizationId: string, userId: string, role: string | null): Promise<void> {
  await sql(em, 'update member set role = ? where organization_id = ? and user_id = ?', [role, organizationId, userId]);
}

/**
 * Deletes a membership with the member's places in the organization's teams and the grants made to
 * them on the organization's content. Run inside a transaction.
 */
export async function deleteMembership(tx: Em, organizationId: string, userId: string): Promise<void> {
  await sql(tx, 'delete from team_member where user_id = ? and team_id in (select id from team where organization_id = ?)', [
    userId,
    organizationId,
  ]);
  await sql(
    tx,
    `delete from content_permission where user_id = ?
        and (space_id in (select id from space where organization_id = ?)
          or collection_id in (select id from collection where organization_id = ?))`,
    [userId, organizationId, organizationId],
  );
  await sql(tx, 'delete from member where organization_id = ? and user_id = ?', [organizationId, userId]);
}

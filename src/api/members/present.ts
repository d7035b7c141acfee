import type { Em } from '../../db/orm.ts';
import { isRole, type Role } from '../../domain/roles.ts';
import { grantReachCte } from '../../db/access.ts';
import { textArray } from '../../db/sql.ts';
import { presentUser } from '../users/present.ts';
import type { Urls } from '../urls.ts';

/** A member joined with its user, as selected by MEMBER_SELECT. */
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

/** Members of one organization with their users; callers append conditions (`and …`). */
export const MEMBER_SELECT = `
  select m.user_id, m.role, m.disabled, m.sso, m.joined_at, m.last_seen_at, u.display_name, u.email, u.photo_url
    from member m join app_user u on u.id = m.user_id
   where m.organization_id = ?`;

export async function findMember(em: Em, organizationId: string, userId: string): Promise<MemberRow | undefined> {
  const rows = await em.execute<MemberRow[]>(`${MEMBER_SELECT} and m.user_id = ?`, [organizationId, userId]);
  return rows[0];
}

/** The role a member acts with: undefined when the membership is disabled (no access at all). */
export function activeRole(row: Pick<MemberRow, 'role' | 'disabled'>): Role | null | undefined {
  if (row.disabled) return undefined;
  return isRole(row.role) ? row.role : null;
}

interface Counts {
  teams: number;
  spaces: number;
}

/**
 * Team and space counts for a page of members, in one statement. `spaces` is what the member can
 * access: every live space for a member with a role, the spaces reached through grants for a guest,
 * none for a disabled member.
 */
async function memberCounts(em: Em, organizationId: string, rows: MemberRow[]): Promise<Map<string, Counts>> {
  const out = new Map<string, Counts>();
  if (rows.length === 0) return out;
  const ids = textArray(rows.map((r) => r.user_id));
  const counted = await em.execute<{ id: string; teams: string | number; granted: string | number; all_spaces: string | number }[]>(
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
  const byId = new Map(counted.map((c) => [c.id, c]));
  for (const row of rows) {
    const c = byId.get(row.user_id);
    const role = activeRole(row);
    out.set(row.user_id, {
      teams: Number(c?.teams ?? 0),
      spaces: role === undefined ? 0 : role === null ? Number(c?.granted ?? 0) : Number(c?.all_spaces ?? 0),
    });
  }
  return out;
}

export function presentMember(row: MemberRow, counts: Counts, urls: Urls) {
  return {
    object: 'member' as const,
    id: row.user_id,
    role: isRole(row.role) ? row.role : null,
    user: presentUser({ id: row.user_id, displayName: row.display_name, email: row.email, photoUrl: row.photo_url }, urls),
    disabled: row.disabled,
    joinedAt: new Date(row.joined_at).toISOString(),
    ...(row.last_seen_at ? { lastSeenAt: new Date(row.last_seen_at).toISOString() } : {}),
    sso: row.sso,
    spaces: counts.spaces,
    teams: counts.teams,
    sites: 0,
  };
}

export async function presentMembers(em: Em, organizationId: string, rows: MemberRow[], urls: Urls) {
  const counts = await memberCounts(em, organizationId, rows);
  return rows.map((r) => presentMember(r, counts.get(r.user_id) ?? { teams: 0, spaces: 0 }, urls));
}

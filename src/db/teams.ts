import { containsPattern, type TeamRole } from '../domain/membership.ts';
import { grantReachCte } from './access.ts';
import type { SelectListing } from './listing.ts';
import type { Em } from './orm.ts';
import { sql, textArray } from './sql.ts';

/** Teams beyond plain entity CRUD: listings, the counts shown with a team, membership upserts. */

/** A team row of the listings below. */
export interface TeamRow {
  [column: string]: unknown;
  id: string;
  organization_id: string;
  title: string;
  created_at: Date;
}

/** A team of a member's listing: the team plus the member's role in it. */
export interface MemberTeamRow extends TeamRow {
  team_role: string;
}

export interface TeamFilter {
  /** Case-insensitive contains on the title. */
  title?: string;
  /** Only teams this member can manage: all of them for an organization admin, else those they own. */
  owner?: string;
}

/** The teams of an organization (rows of TeamRow), oldest first. */
export function teamListing(organizationId: string, filter: TeamFilter): SelectListing {
  const params: unknown[] = [organizationId];
  let text = `select date_trunc('milliseconds', t.created_at) as sort_key, t.id, t.organization_id, t.title, t.created_at from team t where t.organization_id = ?`;
  if (filter.title) {
    text += ' and t.title ilike ?';
    params.push(containsPattern(filter.title));
  }
  if (filter.owner !== undefined) {
    text += ` and exists (select 1 from member m where m.organization_id = t.organization_id and m.user_id = ? and not m.disabled
               and (m.role = 'admin' or exists (select 1 from team_member tm where tm.team_id = t.id and tm.user_id = m.user_id and tm.role = 'owner')))`;
    params.push(filter.owner);
  }
  return {
    sql: text,
    params,
    keys: [
      { field: 'sort_key', kind: 'date' },
      { field: 'id', kind: 'string' },
    ],
  };
}

/** The teams of the organization a member is in (rows of MemberTeamRow), oldest first. */
export function memberTeamListing(organizationId: string, userId: string, filter: { title?: string }): SelectListing {
  const params: unknown[] = [organizationId, userId];
  let text = `
    select date_trunc('milliseconds', t.created_at) as sort_key, t.id, t.organization_id, t.title, t.created_at, tm.role as team_role
      from team t join team_member tm on tm.team_id = t.id
     where t.organization_id = ? and tm.user_id = ?`;
  if (filter.title) {
    text += ' and t.title ilike ?';
    params.push(containsPattern(filter.title));
  }
  return {
    sql: text,
    params,
    keys: [
      { field: 'sort_key', kind: 'date' },
      { field: 'id', kind: 'string' },
    ],
  };
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
  const ids = textArray(teamIds);
  const rows = await sql<{ id: string; members: string | number; spaces: string | number; caller_role: string | null }>(
    em,
    `${grantReachCte('select p.team_id, p.space_id, p.collection_id from content_permission p where p.team_id = any(?::text[])')}
     select t.id,
       (select count(*) from team_member tm where tm.team_id = t.id) as members,
       (select count(*) from reach r join space s on s.id = r.id and s.organization_id = t.organization_id and s.deleted_at is null
         where r.principal = t.id and r.kind = 'space') as spaces,
       (select tm.role from team_member tm where tm.team_id = t.id and tm.user_id = ?) as caller_role
       from team t where t.id = any(?::text[])`,
    [ids, callerId, ids],
  );
  for (const row of rows) {
    out.set(row.id, {
      members: Number(row.members),
      spaces: Number(row.spaces),
      callerRole: row.caller_role === 'owner' || row.caller_role === 'member' ? row.caller_role : null,
    });
  }
  return out;
}

/** Members of an organization whose user id, or email (any case), is one of `handles`. */
export async function membersByHandle(em: Em, organizationId: string, handles: string[]): Promise<{ user_id: string; email: string }[]> {
  if (handles.length === 0) return [];
  return sql<{ user_id: string; email: string }>(
    em,
    `select m.user_id, u.email from member m join app_user u on u.id = m.user_id
      where m.organization_id = ? and (m.user_id = any(?::text[]) or lower(u.email) = any(?::text[]))`,
    [organizationId, textArray(handles), textArray(handles.map((h) => h.toLowerCase()))],
  );
}

/** Adds a user to a team with `role`, or changes their role when already in it (`keep`: add as member, change nothing). */
export async function upsertTeamMember(em: Em, teamId: string, userId: string, role: TeamRole | 'keep', at: Date): Promise<void> {
  await sql(
    em,
    `insert into team_member (team_id, user_id, role, joined_at) values (?, ?, ?, ?)
     on conflict (team_id, user_id) do ${role === 'keep' ? 'nothing' : 'update set role = excluded.role'}`,
    [teamId, userId, role === 'keep' ? 'member' : role, at],
  );
}

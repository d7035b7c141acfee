import type { Role } from '../domain/roles.ts';
import type { ContentKind } from './access.ts';
import type { SelectListing } from './listing.ts';
import type { Em } from './orm.ts';
import { sql, textArray } from './sql.ts';

/**
 * Explicit grants of a role on one space or collection to one user or team (content_permission).
 * The rule that combines them with organization roles and default levels reads them in ./access.ts.
 */

export type Principal = 'user' | 'team';

const targetColumn = (kind: ContentKind) => (kind === 'space' ? 'space_id' : 'collection_id');
const principalColumn = (principal: Principal) => (principal === 'user' ? 'user_id' : 'team_id');

/** What a grant is on: a space or a collection of an organization. */
export interface GrantTarget {
  kind: ContentKind;
  id: string;
  organizationId: string;
}

/** Of `ids`, those that are members (users) or teams (teams) of the organization. */
export async function existingPrincipals(em: Em, organizationId: string, principal: Principal, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const text =
    principal === 'user'
      ? 'select user_id as id from member where organization_id = ? and user_id = any(?::text[])'
      : 'select id from team where organization_id = ? and id = any(?::text[])';
  const rows = await sql<{ id: string }>(em, text, [organizationId, textArray(ids)]);
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
  await sql(
    em,
    `insert into content_permission (id, organization_id, ${on}, ${who}, role, created_at) values (?, ?, ?, ?, ?, ?)
     on conflict (${on}, ${who}) where ${on} is not null and ${who} is not null do update set role = excluded.role`,
    [id, target.organizationId, target.id, principalId, role, at],
  );
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
  const rows = await sql(
    em,
    `update content_permission set role = ? where ${targetColumn(kind)} = ? and ${principalColumn(principal)} = ? returning id`,
    [role, targetId, principalId],
  );
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
  const rows = await sql(
    em,
    `delete from content_permission where ${targetColumn(kind)} = ? and ${principalColumn(principal)} = ? returning id`,
    [targetId, principalId],
  );
  return rows.length > 0;
}

/** A grant to a user, with the user. */
export interface UserGrantRow {
  [column: string]: unknown;
  role: Role;
  user_id: string;
  display_name: string;
  email: string;
  photo_url: string | null;
}

/** A grant to a team, with the team. */
export interface TeamGrantRow {
  [column: string]: unknown;
  role: Role;
  team_id: string;
  organization_id: string;
  title: string;
  created: Date;
}

/** The grants to users on a space or collection (rows of UserGrantRow), oldest first. */
export function userGrantListing(kind: ContentKind, targetId: string): SelectListing {
  return {
    sql: `select date_trunc('milliseconds', p.created_at) as sort_key, p.id, p.role, u.id as user_id, u.display_name, u.email, u.photo_url
            from content_permission p join app_user u on u.id = p.user_id where p.${targetColumn(kind)} = ?`,
    params: [targetId],
    keys: [
      { field: 'sort_key', kind: 'date' },
      { field: 'id', kind: 'string' },
    ],
  };
}

/** The grants to teams on a space or collection (rows of TeamGrantRow), oldest first. */
export function teamGrantListing(kind: ContentKind, targetId: string): SelectListing {
  return {
    sql: `select date_trunc('milliseconds', p.created_at) as sort_key, p.id, p.role, t.id as team_id, t.organization_id, t.title, t.created_at as created
            from content_permission p join team t on t.id = p.team_id where p.${targetColumn(kind)} = ?`,
    params: [targetId],
    keys: [
      { field: 'sort_key', kind: 'date' },
      { field: 'id', kind: 'string' },
    ],
  };
}

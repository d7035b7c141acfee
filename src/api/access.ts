import { Collection, Member, Organization, Space } from '../db/entities.ts';
import type { Em } from '../db/orm.ts';
import { atLeast, effectiveRole, isRole, type Role } from '../domain/roles.ts';
import type { Caller } from './context.ts';
import { forbidden, notFound } from './errors.ts';

/**
 * Authorization, written once. Every route loads the object it acts on through these functions,
 * which answer 404 for anything in an organization the caller does not belong to (or content the
 * caller cannot see) and 403 when the caller sees it but their role is too low.
 */

export function requireRole(role: Role | null, min: Role, action: string): void {
  if (!atLeast(role, min)) throw forbidden(`You need the ${min} role or higher to ${action}`);
}

const asRole = (value: unknown): Role | null => (isRole(value) ? value : null);

/** The caller's role in an organization: a Role, null (guest), or undefined (not a member). */
export async function orgRole(em: Em, caller: Caller, organizationId: string): Promise<Role | null | undefined> {
  const member = await em.findOne(Member, { organizationId, userId: caller.user.id, disabled: false });
  return member ? asRole(member.role) : undefined;
}

export async function loadOrganization(em: Em, caller: Caller, organizationId: string) {
  const [organization, role] = await Promise.all([
    em.findOne(Organization, { id: organizationId }),
    orgRole(em, caller, organizationId),
  ]);
  if (!organization || role === undefined) throw notFound('Organization');
  return { organization, role };
}

/** Default levels of a collection and of every collection above it, nearest first. */
const CHAIN_SQL = `
  with recursive chain as (
    select c.id, c.parent_id, c.default_level, 1 as depth from collection c where c.id = ?
    union all
    select c.id, c.parent_id, c.default_level, chain.depth + 1
      from collection c join chain on c.id = chain.parent_id where chain.depth < 100
  )`;

interface AccessRow {
  org_role: string | null;
  is_member: boolean;
  levels: (string | null)[] | null;
}

async function contentRole(em: Em, caller: Caller, organizationId: string, ownLevel: string | null, parentId: string | null) {
  const rows = await em.getConnection().execute<AccessRow[]>(
    `${CHAIN_SQL}
     select m.role as org_role, (m.user_id is not null) as is_member,
            (select array_agg(default_level order by depth) from chain) as levels
       from (select 1) one
       left join member m on m.organization_id = ? and m.user_id = ? and not m.disabled`,
    [parentId, organizationId, caller.user.id],
  );
  const row = rows[0];
  if (!row?.is_member) return undefined;
  return effectiveRole({
    orgRole: asRole(row.org_role),
    defaultLevels: [asRole(ownLevel), ...(row.levels ?? []).map(asRole)],
  });
}

export type DeletedFilter = 'live' | 'deleted';

/** Loads a space with the caller's effective role on it; 404 when it does not exist for them. */
export async function loadSpace(em: Em, caller: Caller, spaceId: string, state: DeletedFilter = 'live') {
  const space = await em.findOne(Space, { id: spaceId, deletedAt: state === 'live' ? null : { $ne: null } });
  if (!space) throw notFound('Space');
  const role = await contentRole(em, caller, space.organizationId, space.defaultLevel ?? null, space.parentId ?? null);
  if (role === undefined || !atLeast(role, 'read')) throw notFound('Space');
  return { space, role };
}

/** Loads a collection with the caller's effective role on it; 404 when it does not exist for them. */
export async function loadCollection(em: Em, caller: Caller, collectionId: string) {
  const collection = await em.findOne(Collection, { id: collectionId });
  if (!collection) throw notFound('Collection');
  const role = await contentRole(em, caller, collection.organizationId, collection.defaultLevel ?? null, collection.parentId ?? null);
  if (role === undefined || !atLeast(role, 'read')) throw notFound('Collection');
  return { collection, role };
}

/** The caller's effective role for every given space or collection, in one query. */
export async function contentRoles(
  em: Em,
  role: Role | null | undefined,
  items: { id: string; parentId?: string | null; defaultLevel?: string | null }[],
): Promise<Map<string, Role | null>> {
  const out = new Map<string, Role | null>();
  if (role === undefined) return out;
  const parents = [...new Set(items.map((i) => i.parentId).filter((p): p is string => !!p))];
  const levels = new Map<string, (Role | null)[]>();
  if (parents.length > 0) {
    const rows = await em.getConnection().execute<{ start: string; levels: (string | null)[] }[]>(
      `with recursive chain as (
         select c.id as start, c.id, c.parent_id, c.default_level, 1 as depth from collection c where c.id = any(?::text[])
         union all
         select chain.start, c.id, c.parent_id, c.default_level, chain.depth + 1
           from collection c join chain on c.id = chain.parent_id where chain.depth < 100
       )
       select start, array_agg(default_level order by depth) as levels from chain group by start`,
      [`{${parents.map((p) => `"${p}"`).join(',')}}`],
    );
    for (const row of rows) levels.set(row.start, row.levels.map(asRole));
  }
  for (const item of items) {
    out.set(
      item.id,
      effectiveRole({
        orgRole: role,
        defaultLevels: [asRole(item.defaultLevel), ...(item.parentId ? (levels.get(item.parentId) ?? []) : [])],
      }),
    );
  }
  return out;
}

import { Collection, Member, Organization, Space } from '../db/entities.ts';
import type { Em } from '../db/orm.ts';
import { prepared } from '../db/sql.ts';
import { atLeast, effectiveRole, isRole, type Role } from '../domain/roles.ts';
import type { Caller } from './context.ts';
import { forbidden, notFound } from './errors.ts';

/**
 * Authorization, written once. Every route loads the object it acts on through these functions,
 * which answer 404 for anything in an organization the caller does not belong to (or content the
 * caller cannot see) and 403 when the caller sees it but their role is too low.
 *
 * The rule (domain/roles.ts `effectiveRole`): the effective role on a space or collection is the
 * highest of the member's organization role, the defaultLevel of the object and of every collection
 * above it, and the roles granted explicitly on the object or any collection above it, to the user
 * or to any team they belong to. Guests (no organization role) get only what is granted.
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

/** Whose access is computed: a user and their role in the organization (undefined: not a member). */
export interface Viewer {
  userId: string;
  role: Role | null | undefined;
}

export type ContentKind = 'space' | 'collection';

/** What the rule needs to know about a space or a collection. */
export interface ContentItem {
  id: string;
  organizationId: string;
  parentId?: string | null;
  defaultLevel?: string | null;
}

/** A PostgreSQL text[] literal, for passing a list through one `?::text[]` placeholder. */
export function textArray(values: (string | null)[]): string {
  return `{${values.map((v) => (v === null ? 'NULL' : `"${v.replace(/(["\\])/g, '\\$1')}"`)).join(',')}}`;
}

/**
 * The facts behind the access rule for several items and one user, as a CTE named `facts`
 * (id, levels, grants): `levels` are the default levels of every collection above the item, nearest
 * first; `grants` the roles granted on the item or any of those collections, to the user or to a
 * team of the user (teams of the item's organization only). Placeholders: ids, kinds, parents,
 * organizations (text[] each), then the user id twice.
 */
const FACTS_CTE = `
  with recursive items(id, kind, parent_id, organization_id) as (
    select * from unnest(?::text[], ?::text[], ?::text[], ?::text[])
  ),
  chain as (
    select i.id as start, c.id, c.parent_id, c.default_level, 1 as depth
      from items i join collection c on c.id = i.parent_id
    union all
    select chain.start, c.id, c.parent_id, c.default_level, chain.depth + 1
      from collection c join chain on c.id = chain.parent_id where chain.depth < 100
  ),
  mine as (
    select p.space_id, p.collection_id, p.role, t.organization_id as team_org
      from content_permission p left join team t on t.id = p.team_id
     where p.user_id = ? or p.team_id in (select tm.team_id from team_member tm where tm.user_id = ?)
  ),
  facts as (
    select i.id,
      (select array_agg(chain.default_level order by chain.depth) from chain where chain.start = i.id) as levels,
      (select array_agg(g.role) from mine g
        where (g.team_org is null or g.team_org = i.organization_id)
          and ((i.kind = 'space' and g.space_id = i.id)
            or (i.kind = 'collection' and g.collection_id = i.id)
            or g.collection_id in (select chain.id from chain where chain.start = i.id))) as grants
      from items i
  )`;

function factsParams(kind: ContentKind, items: ContentItem[], userId: string): unknown[] {
  return [
    textArray(items.map((i) => i.id)),
    textArray(items.map(() => kind)),
    textArray(items.map((i) => i.parentId ?? null)),
    textArray(items.map((i) => i.organizationId)),
    userId,
    userId,
  ];
}

interface FactsRow {
  id: string;
  levels: (string | null)[] | null;
  grants: string[] | null;
}

function roleFrom(role: Role | null | undefined, item: ContentItem, row: Pick<FactsRow, 'levels' | 'grants'> | undefined): Role | null {
  return effectiveRole({
    orgRole: role,
    defaultLevels: [asRole(item.defaultLevel), ...(row?.levels ?? []).map(asRole)],
    grants: (row?.grants ?? []).filter(isRole),
  });
}

/**
 * The caller's role on one space or collection, in one statement: membership, default levels up
 * the collection chain, and grants to the caller or their teams (of the organization) on the item
 * and every collection above it. Undefined when the caller is not a member of the item's
 * organization. The same facts as FACTS_CTE, in a shape the planner handles faster for one item.
 */
async function contentRole(em: Em, caller: Caller, kind: ContentKind, item: ContentItem) {
  const own = kind === 'space' ? 'space_id' : 'collection_id';
  const rows = await em.execute<(Omit<FactsRow, 'id'> & { org_role: string | null; is_member: boolean })[]>(
    `with recursive chain as (
       select c.id, c.parent_id, c.default_level, 1 as depth from collection c where c.id = ?
       union all
       select c.id, c.parent_id, c.default_level, chain.depth + 1
         from collection c join chain on c.id = chain.parent_id where chain.depth < 100
     )
     select m.role as org_role, (m.user_id is not null) as is_member,
            (select array_agg(chain.default_level order by chain.depth) from chain) as levels,
            (select array_agg(p.role) from content_permission p
              where (p.${own} = ? or p.collection_id in (select chain.id from chain))
                and (p.user_id = m.user_id
                  or p.team_id in (select tm.team_id from team_member tm join team t on t.id = tm.team_id
                                    where tm.user_id = m.user_id and t.organization_id = m.organization_id))) as grants
       from (select 1) one
       left join member m on m.organization_id = ? and m.user_id = ? and not m.disabled`,
    [item.parentId ?? null, item.id, item.organizationId, caller.user.id],
  );
  const row = rows[0];
  if (!row?.is_member) return undefined;
  return roleFrom(asRole(row.org_role), item, row);
}

export type DeletedFilter = 'live' | 'deleted';

const date = (value: unknown) => (value instanceof Date ? value : new Date(value as string));

/**
 * A space read by `loadSpace`: a plain, unmanaged object (the hot path skips the identity map).
 * Routes that change a space write with `nativeUpdate` and read it again.
 */
function spaceFromRow(row: Record<string, unknown>): Space {
  return {
    id: row.id as string,
    organizationId: row.organization_id as string,
    parentId: (row.parent_id as string | null) ?? null,
    title: row.title as string,
    emoji: row.emoji as string,
    visibility: row.visibility as string,
    editMode: row.edit_mode as string,
    defaultLevel: (row.default_level as string | null) ?? null,
    revisionId: row.revision_id as string,
    position: row.position as string,
    createdAt: date(row.created_at),
    updatedAt: date(row.updated_at),
    deletedAt: row.deleted_at == null ? null : date(row.deleted_at),
    changeRequests: Number(row.change_requests),
    changeRequestsOpen: Number(row.change_requests_open),
    changeRequestsDraft: Number(row.change_requests_draft),
    commentsOpen: Number(row.comments_open),
  } as Space;
}

/**
 * Loads a space with the caller's effective role on it, in one statement (the space with its
 * counters, membership, default levels up the collection chain and grants); 404 when it
 * does not exist for the caller. Every space route goes through here, so it is kept to one round trip.
 */
export async function loadSpace(em: Em, caller: Caller, spaceId: string, state: DeletedFilter = 'live') {
  const rows = await prepared<Record<string, unknown> & Omit<FactsRow, 'id'> & { org_role: string | null; is_member: boolean }>(
    em,
    state === 'live' ? 'load-space' : 'load-deleted-space',
    `with recursive sp as (
       select * from space where id = $1 and ${state === 'live' ? 'deleted_at is null' : 'deleted_at is not null'}
     ),
     chain as (
       select c.id, c.parent_id, c.default_level, 1 as depth from collection c where c.id = (select parent_id from sp)
       union all
       select c.id, c.parent_id, c.default_level, chain.depth + 1
         from collection c join chain on c.id = chain.parent_id where chain.depth < 100
     )
     select sp.*, m.role as org_role, (m.user_id is not null) as is_member,
            (select array_agg(chain.default_level order by chain.depth) from chain) as levels,
            (select array_agg(p.role) from content_permission p
              where (p.space_id = sp.id or p.collection_id in (select chain.id from chain))
                and (p.user_id = m.user_id
                  or p.team_id in (select tm.team_id from team_member tm join team t on t.id = tm.team_id
                                    where tm.user_id = m.user_id and t.organization_id = m.organization_id))) as grants
       from sp left join member m on m.organization_id = sp.organization_id and m.user_id = $2 and not m.disabled`,
    [spaceId, caller.user.id],
  );
  const row = rows[0];
  if (!row?.is_member) throw notFound('Space');
  const space = spaceFromRow(row);
  const role = roleFrom(asRole(row.org_role), space, row);
  if (!atLeast(role, 'read')) throw notFound('Space');
  return { space, role };
}

/** Loads a collection with the caller's effective role on it; 404 when it does not exist for them. */
export async function loadCollection(em: Em, caller: Caller, collectionId: string) {
  const collection = await em.findOne(Collection, { id: collectionId });
  if (!collection) throw notFound('Collection');
  const role = await contentRole(em, caller, 'collection', collection);
  if (role === undefined || !atLeast(role, 'read')) throw notFound('Collection');
  return { collection, role };
}

/**
 * A viewer's effective role on every given space or collection (all of one kind and one
 * organization), in one statement. Empty when the viewer is not a member.
 */
export async function contentRoles(
  em: Em,
  viewer: Viewer,
  kind: ContentKind,
  items: ContentItem[],
): Promise<Map<string, Role | null>> {
  const out = new Map<string, Role | null>();
  if (viewer.role === undefined || items.length === 0) return out;
  const rows = await em.execute<FactsRow[]>(`${FACTS_CTE} select * from facts`, factsParams(kind, items, viewer.userId));
  const byId = new Map(rows.map((r) => [r.id, r]));
  for (const item of items) out.set(item.id, roleFrom(viewer.role, item, byId.get(item.id)));
  return out;
}

/**
 * Spaces and collections reached through grants, as a CTE `reach(principal, kind, id)`: for every
 * grant row of `grantsSql` (a select of principal, space_id, collection_id), the granted space, or the
 * granted collection with every collection and space below it. Deleted spaces are included;
 * callers join what they need.
 */
export function grantReachCte(grantsSql: string): string {
  return `
  with recursive g(principal, space_id, collection_id) as (${grantsSql}),
  cols(principal, id) as (
    select g.principal, g.collection_id from g where g.collection_id is not null
    union
    select cols.principal, c.id from collection c join cols on c.parent_id = cols.id
  ),
  reach(principal, kind, id) as (
    select g.principal, 'space', g.space_id from g where g.space_id is not null
    union
    select cols.principal, 'space', s.id from space s join cols on s.parent_id = cols.id
    union
    select cols.principal, 'collection', cols.id from cols
  )`;
}

/**
 * Ids of the live spaces and the collections of an organization that a user reaches through
 * grants to them or their teams: what a guest can see.
 */
export async function grantedContent(em: Em, organizationId: string, userId: string) {
  const rows = await em.execute<{ kind: ContentKind; id: string }[]>(
    `${grantReachCte(`
       select p.user_id, p.space_id, p.collection_id from content_permission p where p.user_id = ?
       union all
       select ?::text, p.space_id, p.collection_id from content_permission p
         join team t on t.id = p.team_id and t.organization_id = ?
         join team_member tm on tm.team_id = t.id and tm.user_id = ?`)}
     select r.kind, r.id from reach r
       left join space s on r.kind = 'space' and s.id = r.id
       left join collection c on r.kind = 'collection' and c.id = r.id
      where (s.organization_id = ? and s.deleted_at is null) or c.organization_id = ?`,
    [userId, userId, organizationId, userId, organizationId, organizationId],
  );
  return {
    spaces: rows.filter((r) => r.kind === 'space').map((r) => r.id),
    collections: rows.filter((r) => r.kind === 'collection').map((r) => r.id),
  };
}

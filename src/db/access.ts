import type { Space } from './entities.ts';
import type { GitSyncRow } from './git-sync.ts';
import type { Em } from './orm.ts';
import { prepared, sql, textArray } from './sql.ts';

/**
 * The facts behind the access rule (src/domain/roles.ts `effectiveRole`), read from the database:
 * organization membership, the default levels up the collection chain and the grants to a user or
 * their teams. The rule itself is applied in src/api/access.ts.
 */

export type ContentKind = 'space' | 'collection';
export type DeletedFilter = 'live' | 'deleted';

/** What the rule needs to know about a space or a collection. */
export interface ContentItem {
  id: string;
  organizationId: string;
  parentId?: string | null;
  defaultLevel?: string | null;
}

/** Default levels of the collections above an item (nearest first) and the roles granted on it. */
export interface AccessFacts {
  levels: (string | null)[] | null;
  grants: string[] | null;
}

/** Facts plus the caller's membership of the item's organization. */
export interface MembershipFacts extends AccessFacts {
  org_role: string | null;
  is_member: boolean;
}

/** The role of a user in an organization: undefined when not an (enabled) member, null for a guest. */
export async function memberRole(em: Em, organizationId: string, userId: string): Promise<string | null | undefined> {
  const rows = await sql<{ role: string | null }>(
    em,
    'select role from member where organization_id = ? and user_id = ? and not disabled',
    [organizationId, userId],
  );
  return rows.length === 0 ? undefined : rows[0].role;
}

/**
 * The facts for several items and one user, as a CTE named `facts` (id, levels, grants): `levels`
 * are the default levels of every collection above the item, nearest first; `grants` the roles
 * granted on the item or any of those collections, to the user or to a team of the user (teams of
 * the item's organization only). Placeholders: ids, kinds, parents, organizations (text[] each),
 * then the user id twice.
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

/** The facts for every given item (all of one kind) for one user, by item id. */
export async function accessFacts(em: Em, kind: ContentKind, items: ContentItem[], userId: string): Promise<Map<string, AccessFacts>> {
  const rows = await sql<AccessFacts & { id: string }>(em, `${FACTS_CTE} select * from facts`, [
    textArray(items.map((i) => i.id)),
    textArray(items.map(() => kind)),
    textArray(items.map((i) => i.parentId ?? null)),
    textArray(items.map((i) => i.organizationId)),
    userId,
    userId,
  ]);
  return new Map(rows.map((r) => [r.id, r]));
}

/**
 * The facts for one item and the user's membership of its organization, in one statement. The same
 * facts as FACTS_CTE, in a shape the planner handles faster for one item.
 */
export async function itemAccessFacts(em: Em, kind: ContentKind, item: ContentItem, userId: string): Promise<MembershipFacts | undefined> {
  const own = kind === 'space' ? 'space_id' : 'collection_id';
  const rows = await sql<MembershipFacts>(
    em,
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
    [item.parentId ?? null, item.id, item.organizationId, userId],
  );
  return rows[0];
}

const date = (value: unknown) => (value instanceof Date ? value : new Date(value as string));

/**
 * A space row as a plain, unmanaged object (the hot path skips the identity map). Routes that
 * change a space write with `nativeUpdate` and read it again.
 */
export function spaceFromRow(row: Record<string, unknown>): Space {
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

/** What a space shows of the repository it syncs with (the `gitSync` field). */
export type SpaceGitSync = Pick<GitSyncRow, 'repo_name' | 'provider' | 'integration' | 'url' | 'updated_at'>;

/**
 * A space with its counters, what it syncs with, and the facts of one user's access to it, in one statement (the space,
 * membership, default levels up the collection chain and grants), run as a prepared statement:
 * every space route goes through here, so it is kept to one round trip.
 */
export async function spaceWithAccessFacts(
  em: Em,
  spaceId: string,
  userId: string,
  state: DeletedFilter = 'live',
): Promise<{ space: Space; facts: MembershipFacts; gitSync: SpaceGitSync | undefined } | undefined> {
  const rows = await prepared<Record<string, unknown> & MembershipFacts>(
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
            (select jsonb_build_object('repo_name', g.repo_name, 'provider', g.provider, 'integration', g.integration,
                                       'url', g.url, 'updated_at', g.updated_at)
               from git_sync g where g.space_id = sp.id and g.url is not null) as git_sync,
            (select array_agg(chain.default_level order by chain.depth) from chain) as levels,
            (select array_agg(p.role) from content_permission p
              where (p.space_id = sp.id or p.collection_id in (select chain.id from chain))
                and (p.user_id = m.user_id
                  or p.team_id in (select tm.team_id from team_member tm join team t on t.id = tm.team_id
                                    where tm.user_id = m.user_id and t.organization_id = m.organization_id))) as grants
       from sp left join member m on m.organization_id = sp.organization_id and m.user_id = $2 and not m.disabled`,
    [spaceId, userId],
  );
  const row = rows[0];
  if (!row) return undefined;
  return { space: spaceFromRow(row), facts: row, gitSync: (row.git_sync as SpaceGitSync | null) ?? undefined };
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
  const rows = await sql<{ kind: ContentKind; id: string }>(
    em,
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

import { expressionBuilder, sql, type Expression } from 'kysely';
import { Collection, Organization, type Space } from './entities.ts';
import type { GitSyncRow } from './git-sync.ts';
import { db, prepared, type Db } from './kysely.ts';
import type { Em } from './orm.ts';

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

/** The organization, as a managed entity (its routes change it through the entity manager); null when there is none. */
export function findOrganization(em: Em, organizationId: string): Promise<Organization | null> {
  return em.findOne(Organization, { id: organizationId });
}

/** The collection, as a managed entity (its routes change it through the entity manager); null when there is none. */
export function findCollection(em: Em, collectionId: string): Promise<Collection | null> {
  return em.findOne(Collection, { id: collectionId });
}

/** The role of a user in an organization: undefined when not an (enabled) member, null for a guest. */
export async function memberRole(em: Em, organizationId: string, userId: string): Promise<string | null | undefined> {
  const row = await db(em)
    .selectFrom('member')
    .select('role')
    .where('organization_id', '=', organizationId)
    .where('user_id', '=', userId)
    .where('disabled', '=', false)
    .executeTakeFirst();
  return row === undefined ? undefined : row.role;
}

/** A collection above an item: `depth` 1 is its parent. */
interface ChainRow {
  id: string;
  parent_id: string | null;
  default_level: string | null;
  depth: number;
}

/** Collections are never nested deeper than this; the walk up stops there. */
const MAX_DEPTH = 100;

/**
 * The body of the recursive CTE `chain`: the collection `startId` (depth 1) and every collection
 * above it, nearest first.
 */
function collectionChain(em: Em, startId: string | null | Expression<string | null>) {
  const q = db(em).withTables<{ chain: ChainRow }>();
  return q
    .selectFrom('collection as c')
    .select(['c.id', 'c.parent_id', 'c.default_level', sql.lit(1).$castTo<number>().as('depth')])
    .where('c.id', '=', startId)
    .unionAll(
      q
        .selectFrom('collection as c')
        .innerJoin('chain', 'chain.parent_id', 'c.id')
        .select(['c.id', 'c.parent_id', 'c.default_level', (eb) => eb('chain.depth', '+', 1).as('depth')])
        .where('chain.depth', '<', MAX_DEPTH),
    );
}

const chainOnly = expressionBuilder<{ chain: ChainRow }>();

/** The default levels of the collections in `chain`, nearest first. */
const chainLevels = () =>
  chainOnly
    .selectFrom('chain')
    .select((eb) => eb.fn.agg<(string | null)[]>('array_agg', ['chain.default_level']).orderBy('chain.depth').as('levels'));

const ownColumn = (kind: ContentKind) => (kind === 'space' ? 'p.space_id' : 'p.collection_id');

/**
 * The roles granted on an item or on any collection of `chain`, to `userId` or to a team of theirs
 * in the organization.
 */
function chainGrants(kind: ContentKind, itemId: string | Expression<string>, organizationId: string | Expression<string>, userId: string) {
  const eb = expressionBuilder<Db & { chain: ChainRow }>();
  return eb
    .selectFrom('content_permission as p')
    .select((e) => e.fn.agg<string[]>('array_agg', ['p.role']).as('grants'))
    .where((e) =>
      e.and([
        e.or([e(ownColumn(kind), '=', itemId), e('p.collection_id', 'in', e.selectFrom('chain').select('chain.id'))]),
        e.or([
          e('p.user_id', '=', userId),
          e(
            'p.team_id',
            'in',
            e
              .selectFrom('team_member as tm')
              .innerJoin('team as t', 't.id', 'tm.team_id')
              .select('tm.team_id')
              .where('tm.user_id', '=', userId)
              .where('t.organization_id', '=', organizationId),
          ),
        ]),
      ]),
    );
}

/**
 * The roles granted to each of these teams on an item or on any collection above it, by team id
 * (a team without such a grant maps to an empty list).
 */
export async function teamGrantsOn(em: Em, kind: ContentKind, item: ContentItem, teamIds: string[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>(teamIds.map((id) => [id, []]));
  if (teamIds.length === 0) return out;
  const rows = await db(em)
    .withRecursive('chain', () => collectionChain(em, item.parentId ?? null))
    .selectFrom('content_permission as p')
    .select(['p.team_id', 'p.role'])
    .where('p.team_id', 'in', teamIds)
    .where((e) => e.or([e(ownColumn(kind), '=', item.id), e('p.collection_id', 'in', e.selectFrom('chain').select('chain.id'))]))
    .execute();
  for (const row of rows) if (row.team_id) out.get(row.team_id)?.push(row.role);
  return out;
}

/** An item as `accessFacts` hands it to the database. */
type ItemRow = { id: string; parent_id: string | null; organization_id: string };

/**
 * The facts for every given item (all of one kind) for one user, by item id: `levels` are the
 * default levels of every collection above the item, nearest first; `grants` the roles granted on
 * the item or any of those collections, to the user or to a team of the user (teams of the item's
 * organization only).
 */
export async function accessFacts(em: Em, kind: ContentKind, items: ContentItem[], userId: string): Promise<Map<string, AccessFacts>> {
  if (items.length === 0) return new Map();
  const ids = items.map((i) => i.id);
  const parents = items.map((i) => i.parentId ?? null);
  const organizations = items.map((i) => i.organizationId);
  // The items as a table, one row each: Kysely has no builder for `unnest` of several arrays with column names.
  const given = sql<ItemRow>`unnest(${ids}::text[], ${parents}::text[], ${organizations}::text[])`.as<'t'>(
    sql`t(id, parent_id, organization_id)`,
  );
  const q = db(em).withTables<{ items: ItemRow; chain: ChainRow & { start: string } }>();
  const rows = await db(em)
    // Recursiveness belongs to the whole `with`, and Kysely takes it from the first CTE.
    .withRecursive('items', (qc) => qc.selectFrom(given).selectAll())
    .withRecursive('chain', () =>
      q
        .selectFrom('items as i')
        .innerJoin('collection as c', 'c.id', 'i.parent_id')
        .select(['i.id as start', 'c.id', 'c.parent_id', 'c.default_level', sql.lit(1).$castTo<number>().as('depth')])
        .unionAll(
          q
            .selectFrom('collection as c')
            .innerJoin('chain', 'chain.parent_id', 'c.id')
            .select(['chain.start', 'c.id', 'c.parent_id', 'c.default_level', (eb) => eb('chain.depth', '+', 1).as('depth')])
            .where('chain.depth', '<', MAX_DEPTH),
        ),
    )
    .with('mine', (qc) =>
      qc
        .selectFrom('content_permission as p')
        .leftJoin('team as t', 't.id', 'p.team_id')
        .select(['p.space_id', 'p.collection_id', 'p.role', 't.organization_id as team_org'])
        .where((eb) =>
          eb.or([
            eb('p.user_id', '=', userId),
            eb('p.team_id', 'in', eb.selectFrom('team_member as tm').select('tm.team_id').where('tm.user_id', '=', userId)),
          ]),
        ),
    )
    .selectFrom('items as i')
    .select((eb) => [
      'i.id',
      eb
        .selectFrom('chain')
        .select((e) => e.fn.agg<(string | null)[]>('array_agg', ['chain.default_level']).orderBy('chain.depth').as('levels'))
        .whereRef('chain.start', '=', 'i.id')
        .as('levels'),
      eb
        .selectFrom('mine as g')
        .select((e) => e.fn.agg<string[]>('array_agg', ['g.role']).as('grants'))
        .where((e) =>
          e.and([
            e.or([e('g.team_org', 'is', null), e('g.team_org', '=', e.ref('i.organization_id'))]),
            e.or([
              e(kind === 'space' ? 'g.space_id' : 'g.collection_id', '=', e.ref('i.id')),
              e('g.collection_id', 'in', e.selectFrom('chain').select('chain.id').whereRef('chain.start', '=', 'i.id')),
            ]),
          ]),
        )
        .as('grants'),
    ])
    .execute();
  return new Map(rows.map((r) => [r.id, { levels: r.levels, grants: r.grants }]));
}

/**
 * The facts for one item and the user's membership of its organization, in one statement. The same
 * facts as `accessFacts`, in a shape the planner handles faster for one item.
 */
export async function itemAccessFacts(em: Em, kind: ContentKind, item: ContentItem, userId: string): Promise<MembershipFacts | undefined> {
  const row = await db(em)
    .withRecursive('chain', () => collectionChain(em, item.parentId ?? null))
    .selectNoFrom((eb) => {
      const member = () =>
        eb
          .selectFrom('member as m')
          .where('m.organization_id', '=', item.organizationId)
          .where('m.user_id', '=', userId)
          .where('m.disabled', '=', false);
      return [
        member().select('m.role').as('org_role'),
        eb.exists(member().select('m.user_id')).$castTo<boolean>().as('is_member'),
        chainLevels().as('levels'),
        chainGrants(kind, item.id, item.organizationId, userId).as('grants'),
      ];
    })
    .executeTakeFirst();
  return row && { org_role: row.org_role, is_member: row.is_member, levels: row.levels, grants: row.grants };
}

const date = (value: Date | string) => (value instanceof Date ? value : new Date(value));

/** What a space shows of the repository it syncs with (the `gitSync` field) and of the state of its syncs. */
export type SpaceGitSync = Pick<
  GitSyncRow,
  'space_id' | 'repo_name' | 'provider' | 'integration' | 'url' | 'updated_at' | 'status' | 'last_applied_at' | 'last_sync_error'
>;

/** The columns of a space row that make the `Space` the API presents. */
export const SPACE_ROW_COLUMNS = [
  'sp.id',
  'sp.organization_id',
  'sp.parent_id',
  'sp.title',
  'sp.emoji',
  'sp.visibility',
  'sp.edit_mode',
  'sp.default_level',
  'sp.revision_id',
  'sp.position',
  'sp.created_at',
  'sp.updated_at',
  'sp.deleted_at',
  'sp.change_requests',
  'sp.change_requests_open',
  'sp.change_requests_draft',
  'sp.comments_open',
  'sp.merge_rules',
] as const;

type SpaceRowColumns = {
  id: string;
  organization_id: string;
  parent_id: string | null;
  title: string;
  emoji: string | null;
  visibility: string;
  edit_mode: string;
  default_level: string | null;
  revision_id: string;
  position: string;
  created_at: Date | string;
  updated_at: Date | string;
  deleted_at: Date | string | null;
  change_requests: number | string;
  change_requests_open: number | string;
  change_requests_draft: number | string;
  comments_open: number | string;
  merge_rules: unknown;
};

/** A space as read with SPACE_ROW_COLUMNS, in the shape of the `Space` entity. */
export function spaceFromRow(row: SpaceRowColumns): Space {
  return {
    id: row.id,
    organizationId: row.organization_id,
    parentId: row.parent_id ?? null,
    title: row.title,
    emoji: row.emoji,
    visibility: row.visibility,
    editMode: row.edit_mode,
    defaultLevel: row.default_level ?? null,
    revisionId: row.revision_id,
    position: row.position,
    createdAt: date(row.created_at),
    updatedAt: date(row.updated_at),
    deletedAt: row.deleted_at == null ? null : date(row.deleted_at),
    changeRequests: Number(row.change_requests),
    changeRequestsOpen: Number(row.change_requests_open),
    changeRequestsDraft: Number(row.change_requests_draft),
    commentsOpen: Number(row.comments_open),
    mergeRules: row.merge_rules ?? null,
  } as Space;
}

/**
 * A space with its counters, what it syncs with, and the facts of one user's access to it, in one
 * statement (the space, membership, default levels up the collection chain and grants): every
 * space route goes through here, so it is kept to one round trip.
 */
export async function spaceWithAccessFacts(
  em: Em,
  spaceId: string,
  userId: string,
  state: DeletedFilter = 'live',
): Promise<{ space: Space; facts: MembershipFacts; gitSync: SpaceGitSync | undefined } | undefined> {
  // Every space route reads this: built once per state, a named prepared statement planned once per connection.
  const [row] = await prepared(em, `space-with-access/${state}`, [spaceId, userId], ([spaceId, userId]) =>
    db(em)
      .withRecursive('chain', () =>
        collectionChain(em, db(em).selectFrom('space as s').select('s.parent_id').where('s.id', '=', spaceId).$asScalar()),
      )
      .selectFrom('space as sp')
      .leftJoin('member as m', (join) =>
        join.onRef('m.organization_id', '=', 'sp.organization_id').on('m.user_id', '=', userId).on('m.disabled', '=', false),
      )
      .leftJoin('git_sync as g', (join) => join.onRef('g.space_id', '=', 'sp.id').on('g.url', 'is not', null))
      .select(SPACE_ROW_COLUMNS)
      .select((eb) => [
        'm.role as org_role',
        eb('m.user_id', 'is not', null).$castTo<boolean>().as('is_member'),
        'g.repo_name as git_repo_name',
        'g.provider as git_provider',
        'g.integration as git_integration',
        'g.url as git_url',
        'g.updated_at as git_updated_at',
        'g.status as git_status',
        'g.last_applied_at as git_last_applied_at',
        'g.last_sync_error as git_last_sync_error',
        chainLevels().as('levels'),
        chainGrants('space', eb.ref('sp.id'), eb.ref('sp.organization_id'), userId).as('grants'),
      ])
      .where('sp.id', '=', spaceId)
      .where('sp.deleted_at', state === 'live' ? 'is' : 'is not', null),
  );
  if (!row) return undefined;
  const space = spaceFromRow(row);
  const facts: MembershipFacts = { org_role: row.org_role, is_member: row.is_member, levels: row.levels, grants: row.grants };
  const gitSync =
    row.git_url === null
      ? undefined
      : ({
          space_id: row.id,
          repo_name: row.git_repo_name,
          provider: row.git_provider,
          integration: row.git_integration,
          url: row.git_url,
          updated_at: date(row.git_updated_at!),
          status: row.git_status!,
          last_applied_at: row.git_last_applied_at === null ? null : date(row.git_last_applied_at),
          last_sync_error: row.git_last_sync_error,
        } as SpaceGitSync);
  return { space, facts, gitSync };
}

/** A grant as `withGrantReach` reads it: to whom (a user or team id) and on what. */
export type GrantRow = { principal: string | null; space_id: string | null; collection_id: string | null };

/**
 * A query creator with the CTE `reach(principal, kind, id)`: for every grant of `grants`, the
 * granted space, or the granted collection with every collection and space below it. Deleted
 * spaces are included; callers join what they need.
 */
export function withGrantReach(em: Em, grants: Expression<GrantRow>) {
  const q = db(em).withTables<{ g: GrantRow; cols: { principal: string | null; id: string } }>();
  // Recursiveness belongs to the whole `with`, and Kysely takes it from the first CTE.
  return db(em)
    .withRecursive('g', () => grants)
    .withRecursive('cols', () =>
      q
        .selectFrom('g')
        .select(['g.principal', 'g.collection_id as id'])
        .where('g.collection_id', 'is not', null)
        .$narrowType<{ id: string }>()
        .union(q.selectFrom('collection as c').innerJoin('cols', 'cols.id', 'c.parent_id').select(['cols.principal', 'c.id'])),
    )
    .with('reach', (qc) =>
      qc
        .selectFrom('g')
        .select(['g.principal', sql.lit('space').$castTo<ContentKind>().as('kind'), 'g.space_id as id'])
        .where('g.space_id', 'is not', null)
        .$narrowType<{ id: string }>()
        .union(
          qc
            .selectFrom('space as s')
            .innerJoin('cols', 'cols.id', 's.parent_id')
            .select(['cols.principal', sql.lit('space').$castTo<ContentKind>().as('kind'), 's.id']),
        )
        .union(qc.selectFrom('cols').select(['cols.principal', sql.lit('collection').$castTo<ContentKind>().as('kind'), 'cols.id'])),
    );
}

/**
 * Ids of the live spaces and the collections of an organization that a user reaches through
 * grants to them or their teams: what a guest can see.
 */
export async function grantedContent(em: Em, organizationId: string, userId: string) {
  const q = db(em);
  const grants = q
    .selectFrom('content_permission as p')
    .select(['p.user_id as principal', 'p.space_id', 'p.collection_id'])
    .where('p.user_id', '=', userId)
    .unionAll(
      q
        .selectFrom('content_permission as p')
        .innerJoin('team as t', (join) => join.onRef('t.id', '=', 'p.team_id').on('t.organization_id', '=', organizationId))
        .innerJoin('team_member as tm', (join) => join.onRef('tm.team_id', '=', 't.id').on('tm.user_id', '=', userId))
        .select((eb) => [eb.cast<string>(eb.val(userId), 'text').as('principal'), 'p.space_id', 'p.collection_id']),
    );
  const rows = await withGrantReach(em, grants)
    .selectFrom('reach as r')
    .leftJoin('space as s', (join) => join.on('r.kind', '=', 'space').onRef('s.id', '=', 'r.id'))
    .leftJoin('collection as c', (join) => join.on('r.kind', '=', 'collection').onRef('c.id', '=', 'r.id'))
    .select(['r.kind', 'r.id'])
    .where((eb) =>
      eb.or([
        eb.and([eb('s.organization_id', '=', organizationId), eb('s.deleted_at', 'is', null)]),
        eb('c.organization_id', '=', organizationId),
      ]),
    )
    .execute();
  return {
    spaces: rows.filter((r) => r.kind === 'space').map((r) => r.id),
    collections: rows.filter((r) => r.kind === 'collection').map((r) => r.id),
  };
}

import { sql } from 'kysely';
import { Space } from './entities.ts';
import { db, type Read } from './kysely.ts';
import type { Listing } from './listing.ts';
import { unreferencedSince } from './blobs.ts';
import { transaction, type Em } from './orm.ts';

/** The space table: new spaces, their changes, the lists of them, and deletion. */

/** A space row as a listing reads it: the entity's fields, as a plain row (times as text: see `spaceOf`). */
export type SpaceRow = Read<Space>;

/** A space row with its times as Dates, as the presenters of spaces (and the entity) have them. */
export function spaceOf(row: SpaceRow): Space {
  return {
    ...row,
    createdAt: new Date(row.createdAt),
    updatedAt: new Date(row.updatedAt),
    deletedAt: row.deletedAt == null ? null : new Date(row.deletedAt),
  };
}

/** Every column of `space` under the entity's field names. */
function spaceRows(em: Em) {
  return db(em)
    .selectFrom('space')
    .select([
      'id',
      'organization_id as organizationId',
      'parent_id as parentId',
      'title',
      'emoji',
      'visibility',
      'edit_mode as editMode',
      'default_level as defaultLevel',
      'revision_id as revisionId',
      'position',
      'created_at as createdAt',
      'updated_at as updatedAt',
      'deleted_at as deletedAt',
      'change_requests as changeRequests',
      'change_requests_open as changeRequestsOpen',
      'change_requests_draft as changeRequestsDraft',
      'comments_open as commentsOpen',
      'change_request_seq as changeRequestSeq',
      'merge_rules as mergeRules',
    ]);
}

/**
 * The live spaces of an organization, oldest first (or newest first with `order` 'desc'); only
 * those among `ids` when given (a guest's grants).
 */
export function organizationSpaceListing(
  em: Em,
  organizationId: string,
  filter: { ids?: string[]; order?: 'asc' | 'desc' },
): Listing<SpaceRow> {
  let query = spaceRows(em).where('organization_id', '=', organizationId).where('deleted_at', 'is', null);
  if (filter.ids) query = query.where((eb) => (filter.ids!.length === 0 ? eb.lit(false) : eb('id', 'in', filter.ids!)));
  return {
    query,
    keys: [
      { field: 'createdAt', kind: 'date' },
      { field: 'id', kind: 'string' },
    ],
    ...(filter.order ? { order: filter.order } : {}),
  };
}

/** The live spaces directly in a collection, in their order among its items. */
export function collectionSpaceListing(em: Em, collectionId: string): Listing<SpaceRow> {
  return {
    query: spaceRows(em).where('parent_id', '=', collectionId).where('deleted_at', 'is', null),
    keys: [
      { field: 'position', kind: 'string' },
      { field: 'id', kind: 'string' },
    ],
  };
}

/** The live spaces directly in any of the given collections. */
export async function liveSpacesIn(em: Em, collectionIds: string[]): Promise<Space[]> {
  if (collectionIds.length === 0) return [];
  const rows = await spaceRows(em).where('parent_id', 'in', collectionIds).where('deleted_at', 'is', null).execute();
  return rows.map(spaceOf);
}

/** What a new space is made of (its counters start at zero). */
export type NewSpaceRow = Omit<
  Space,
  'changeRequests' | 'changeRequestsOpen' | 'changeRequestsDraft' | 'commentsOpen' | 'changeRequestSeq' | 'mergeRules'
>;

/** Inserts a space row (its first revision is written by the caller, in the same transaction). */
export async function insertSpace(em: Em, row: NewSpaceRow): Promise<Space> {
  const space = em.create(Space, row);
  await em.flush();
  return space;
}

/** What an update of a space may change. */
export type SpaceChanges = Partial<
  Pick<Space, 'title' | 'emoji' | 'editMode' | 'visibility' | 'defaultLevel' | 'organizationId' | 'parentId' | 'position'>
>;

/** Changes fields of a space and stamps its `updatedAt`. */
export async function updateSpaceRow(em: Em, spaceId: string, changes: SpaceChanges): Promise<void> {
  await em.nativeUpdate(Space, { id: spaceId }, { ...changes, updatedAt: new Date() });
}

/** The revision row of a copy: a new revision of `spaceId` whose parent is `fromRevisionId`. */
export async function insertCopyRevision(em: Em, revisionId: string, spaceId: string, fromRevisionId: string, at: Date): Promise<void> {
  await db(em)
    .insertInto('revision')
    .values({ id: revisionId, space_id: spaceId, parents: [fromRevisionId], type: 'edits', created_at: at })
    .execute();
}

/**
 * Locks the live spaces among `spaceIds` for the rest of the transaction and returns their ids.
 * Rows are locked in id order, so concurrent deletions of overlapping sets never deadlock; a
 * space deleted by a transaction that committed while this one waited is no longer live.
 */
export async function lockLiveSpaces(em: Em, spaceIds: string[]): Promise<string[]> {
  if (spaceIds.length === 0) return [];
  const rows = await db(em)
    .selectFrom('space')
    .select('id')
    .where('id', 'in', spaceIds)
    .where('deleted_at', 'is', null)
    .orderBy('id')
    .forUpdate()
    .execute();
  return rows.map((r) => r.id);
}

/** Marks live spaces deleted at `deletedAt` (the purge only matches that exact time). */
export async function markSpacesDeleted(em: Em, spaceIds: string[], deletedAt: Date): Promise<void> {
  if (spaceIds.length === 0) return;
  await em.nativeUpdate(Space, { id: { $in: spaceIds }, deletedAt: null }, { deletedAt, updatedAt: deletedAt });
}

/** Clears `deletedAt` of a space deleted less than `retentionMs` ago; false when there is none. */
export async function undeleteSpace(em: Em, spaceId: string, retentionMs: number): Promise<boolean> {
  const restored = await db(em)
    .updateTable('space')
    .set((eb) => ({ deleted_at: null, updated_at: eb.fn<Date>('now') }))
    .where('id', '=', spaceId)
    .where('deleted_at', 'is not', null)
    // The retention window by the database's clock: Kysely has no interval arithmetic.
    .where('deleted_at', '>', sql<string>`now() - ${retentionMs}::double precision * interval '1 millisecond'`)
    .returning('id')
    .executeTakeFirst();
  return restored !== undefined;
}

/**
 * The end of a space deletion. Both statements are guarded by the `deleted_at` the deletion was
 * requested with, so a space restored (or deleted again later) in the meantime is left alone.
 */

/**
 * Removes the deleted space and everything hanging off it (foreign keys cascade). Returns whether a
 * row went. The blobs its rows referenced are queued for collection as unreferenced since the
 * deletion (src/db/blobs.ts), so those no other row references are due at once when the retention
 * is longer than BLOB_GRACE.
 */
export async function purgeDeletedSpace(em: Em, spaceId: string, deletedAt: string): Promise<boolean> {
  return transaction(em, async (tx) => {
    await unreferencedSince(tx, deletedAt);
    const removed = await db(tx)
      .deleteFrom('space')
      .where('id', '=', spaceId)
      .where('deleted_at', 'is not', null)
      .where('deleted_at', '=', deletedAt)
      .returning('id')
      .executeTakeFirst();
    return removed !== undefined;
  });
}

/** Clears this deletion of the space, if it is still in place. Returns whether it was. */
export async function restoreDeletedSpace(em: Em, spaceId: string, deletedAt: string): Promise<boolean> {
  const restored = await db(em)
    .updateTable('space')
    .set((eb) => ({ deleted_at: null, updated_at: eb.fn<Date>('now') }))
    .where('id', '=', spaceId)
    .where('deleted_at', '=', deletedAt)
    .returning('id')
    .executeTakeFirst();
  return restored !== undefined;
}

/** The number of live spaces of each of `organizationIds` (an organization without one is absent), in one statement. */
export async function liveSpaceCounts(em: Em, organizationIds: string[]): Promise<Map<string, number>> {
  if (organizationIds.length === 0) return new Map();
  const rows = await db(em)
    .selectFrom('space')
    .select((eb) => ['organization_id', eb.fn.countAll<string>().as('n')])
    .where('organization_id', 'in', [...new Set(organizationIds)])
    .where('deleted_at', 'is', null)
    .groupBy('organization_id')
    .execute();
  return new Map(rows.map((r) => [r.organization_id, Number(r.n)]));
}

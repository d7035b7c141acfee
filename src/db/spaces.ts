import { Space } from './entities.ts';
import type { Em } from './orm.ts';
import { sql } from './sql.ts';

/** Writes to the space table beyond plain entity CRUD. */

/** The revision row of a copy: a new revision of `spaceId` whose parent is `fromRevisionId`. */
export async function insertCopyRevision(em: Em, revisionId: string, spaceId: string, fromRevisionId: string, at: Date): Promise<void> {
  await sql(em, 'insert into revision (id, space_id, parents, type, created_at) values (?, ?, ?::text[], ?, ?)', [
    revisionId,
    spaceId,
    `{"${fromRevisionId}"}`,
    'edits',
    at,
  ]);
}

/**
 * Locks the live spaces among `spaceIds` for the rest of the transaction and returns their ids.
 * Rows are locked in id order, so concurrent deletions of overlapping sets never deadlock; a
 * space deleted by a transaction that committed while this one waited is no longer live.
 */
export async function lockLiveSpaces(em: Em, spaceIds: string[]): Promise<string[]> {
  if (spaceIds.length === 0) return [];
  const rows = await sql<{ id: string }>(
    em,
    'select id from space where id in (select jsonb_array_elements_text(?::jsonb)) and deleted_at is null order by id for update',
    [JSON.stringify(spaceIds)],
  );
  return rows.map((r) => r.id);
}

/** Marks live spaces deleted at `deletedAt` (the purge only matches that exact time). */
export async function markSpacesDeleted(em: Em, spaceIds: string[], deletedAt: Date): Promise<void> {
  if (spaceIds.length === 0) return;
  await em.nativeUpdate(Space, { id: { $in: spaceIds }, deletedAt: null }, { deletedAt, updatedAt: deletedAt });
}

/** Clears `deletedAt` of a space deleted less than `retentionMs` ago; false when there is none. */
export async function undeleteSpace(em: Em, spaceId: string, retentionMs: number): Promise<boolean> {
  const rows = await sql<{ id: string }>(
    em,
    `update space set deleted_at = null, updated_at = now()
      where id = ? and deleted_at is not null and deleted_at > now() - (? * interval '1 millisecond')
      returning id`,
    [spaceId, retentionMs],
  );
  return rows.length > 0;
}

/**
 * The end of a space deletion. Both statements are guarded by the `deleted_at` the deletion was
 * requested with, so a space restored (or deleted again later) in the meantime is left alone.
 */

/** Removes the deleted space and everything hanging off it (foreign keys cascade). Returns whether a row went. */
export async function purgeDeletedSpace(em: Em, spaceId: string, deletedAt: string): Promise<boolean> {
  const removed = await sql(em, 'delete from space where id = ? and deleted_at is not null and deleted_at = ?::timestamptz returning id', [
    spaceId,
    deletedAt,
  ]);
  return removed.length > 0;
}

/** Clears this deletion of the space, if it is still in place. Returns whether it was. */
export async function restoreDeletedSpace(em: Em, spaceId: string, deletedAt: string): Promise<boolean> {
  const restored = await sql(
    em,
    'update space set deleted_at = null, updated_at = now() where id = ? and deleted_at = ?::timestamptz returning id',
    [spaceId, deletedAt],
  );
  return restored.length > 0;
}

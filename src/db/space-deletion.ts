import type { Em } from './orm.ts';
import { sql } from './sql.ts';

/**
 * The end of a space deletion. Both statements are guarded by the `deleted_at` the deletion was
 * requested with, so a space restored (or deleted again later) in the meantime is left alone.
 */

/** Removes the deleted space and everything hanging off it (foreign keys cascade). Returns whether a row went. */
export async function purgeDeletedSpace(em: Em, spaceId: string, deletedAt: string): Promise<boolean> {
  const removed = await sql(em, 'delete from space where id = ? and deleted_at is not null and deleted_at = ?::timestamptz returning id', [spaceId, deletedAt]);
  return removed.length > 0;
}

/** Clears this deletion of the space, if it is still in place. Returns whether it was. */
export async function restoreDeletedSpace(em: Em, spaceId: string, deletedAt: string): Promise<boolean> {
  const restored = await sql(em, 'update space set deleted_at = null, updated_at = now() where id = ? and deleted_at = ?::timestamptz returning id', [spaceId, deletedAt]);
  return restored.length > 0;
}

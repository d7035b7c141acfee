import type { Em } from './orm.ts';
import { sql } from './sql.ts';

/**
 * Where an import writes: a space's primary content or one of its change requests, locked for the
 * write (space row first, then the change request, the order merges lock in).
 */
export interface ImportTargetRow {
  space_id: string;
  edit_mode: string;
  /** The revision the import is written on: the space's, or the change request's. */
  revision_id: string;
  change_request_id: string | null;
  change_request_status: string | null;
}

export async function lockImportTarget(em: Em, spaceId: string, changeRequestId: string | null): Promise<ImportTargetRow | undefined> {
  const space = await sql<{ revision_id: string; edit_mode: string }>(
    em,
    'select revision_id, edit_mode from space where id = ? and deleted_at is null for update',
    [spaceId],
  );
  if (!space[0]) return undefined;
  const base = { space_id: spaceId, edit_mode: space[0].edit_mode };
  if (changeRequestId === null) return { ...base, revision_id: space[0].revision_id, change_request_id: null, change_request_status: null };
  const rows = await sql<{ id: string; status: string; revision_id: string }>(
    em,
    'select id, status, revision_id from change_request where id = ? and space_id = ? for update',
    [changeRequestId, spaceId],
  );
  if (!rows[0]) return undefined;
  return { ...base, revision_id: rows[0].revision_id, change_request_id: rows[0].id, change_request_status: rows[0].status };
}

/** A change request of the space by id or by its number within the space. */
export async function findChangeRequestRef(
  em: Em,
  spaceId: string,
  idOrNumber: string,
): Promise<{ id: string; number: number; status: string } | undefined> {
  const byNumber = /^\d{1,9}$/.test(idOrNumber);
  const rows = await sql<{ id: string; number: number; status: string }>(
    em,
    `select id, number, status from change_request where space_id = ? and ${byNumber ? 'number = ?' : 'id = ?'}`,
    [spaceId, byNumber ? Number(idOrNumber) : idOrNumber],
  );
  return rows[0];
}

/** Whether the revision exists (an import already written by an earlier attempt). */
export async function revisionOf(em: Em, revisionId: string): Promise<{ space_id: string; change_request_id: string | null } | undefined> {
  const rows = await sql<{ space_id: string; change_request_id: string | null }>(
    em,
    'select space_id, change_request_id from revision where id = ?',
    [revisionId],
  );
  return rows[0];
}

/** Moves the import's target to the revision it wrote. */
export async function moveImportTarget(em: Em, target: ImportTargetRow, revisionId: string): Promise<void> {
  const now = new Date();
  if (target.change_request_id === null) {
    await sql(em, 'update space set revision_id = ?, updated_at = ? where id = ?', [revisionId, now, target.space_id]);
  } else {
    await sql(em, 'update change_request set revision_id = ?, updated_at = ?, conflicts = null where id = ?', [
      revisionId,
      now,
      target.change_request_id,
    ]);
  }
}

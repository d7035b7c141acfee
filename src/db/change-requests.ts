import { newId } from '../domain/ids.ts';
import type { Em } from './orm.ts';
import { sql } from './sql.ts';

/** Change requests (table `change_request`) and what is shown with them. */

export type ChangeRequestStatus = 'draft' | 'open' | 'archived' | 'merged';

export interface ChangeRequestRow {
  id: string;
  space_id: string;
  number: number;
  status: ChangeRequestStatus;
  subject: string;
  created_by: string | null;
  created_at: Date;
  updated_at: Date;
  revision_id: string;
  revision_initial: string;
  revision_merged_ancestor: string | null;
  revision_merged: string | null;
  merged_at: Date | null;
  merged_by: string | null;
  conflicts: unknown[] | null;
}

/** A change request of the space by id, or by number when `idOrNumber` is all digits. */
export async function findChangeRequest(em: Em, spaceId: string, idOrNumber: string): Promise<ChangeRequestRow | undefined> {
  const byNumber = /^\d{1,9}$/.test(idOrNumber);
  const rows = await sql<ChangeRequestRow>(
    em,
    `select * from change_request where space_id = ? and ${byNumber ? 'number = ?' : 'id = ?'}`,
    [spaceId, byNumber ? Number(idOrNumber) : idOrNumber],
  );
  return rows[0];
}

/** The change request a merge revision came from. */
export async function changeRequestMergedAs(em: Em, mergedRevisionId: string): Promise<ChangeRequestRow | undefined> {
  const rows = await sql<ChangeRequestRow>(em, 'select * from change_request where revision_merged = ?', [mergedRevisionId]);
  return rows[0];
}

export interface ChangeRequestFilter {
  spaceId: string;
  status: string;
  contributor: string | null;
}

/**
 * One page of a space's change requests with a status (and creator), newest first: `limit + 1`
 * rows after the cursor `(createdAt, id)`, and how many there are in all.
 */
export async function selectChangeRequests(
  em: Em,
  filter: ChangeRequestFilter,
  after: [string, string] | null,
  limit: number,
): Promise<{ rows: ChangeRequestRow[]; count: number }> {
  const filters = 'space_id = ? and status = ? and (?::text is null or created_by = ?)';
  const params = [filter.spaceId, filter.status, filter.contributor, filter.contributor];
  const [rows, total] = await Promise.all([
    sql<ChangeRequestRow>(
      em,
      `select * from change_request where ${filters} and (?::timestamptz is null or (created_at, id) < (?::timestamptz, ?))
        order by created_at desc, id desc limit ?`,
      [...params, after?.[0] ?? null, after?.[0] ?? null, after?.[1] ?? null, limit + 1],
    ),
    sql<{ n: string }>(em, `select count(*) as n from change_request where ${filters}`, params),
  ]);
  return { rows, count: Number(total[0].n) };
}

/**
 * A new open change request on the space's current revision, numbered from the space's counter.
 * Run it in a transaction: the counter row lock makes numbers gapless and unique under
 * concurrent creation.
 */
export async function insertChangeRequest(tx: Em, spaceId: string, subject: string, createdBy: string): Promise<ChangeRequestRow> {
  const seq = await sql<{ n: number; revision_id: string }>(
    tx,
    'update space set change_request_seq = change_request_seq + 1 where id = ? returning change_request_seq as n, revision_id',
    [spaceId],
  );
  const now = new Date();
  const created = await sql<ChangeRequestRow>(
    tx,
    `insert into change_request (id, space_id, number, status, subject, created_by, created_at, updated_at, revision_id, revision_initial)
     values (?, ?, ?, 'open', ?, ?, ?, ?, ?, ?) returning *`,
    [newId(), spaceId, seq[0].n, subject, createdBy, now, now, seq[0].revision_id, seq[0].revision_id],
  );
  return created[0];
}

/** Sets the subject and/or status (null leaves it as it is). */
export async function updateChangeRequest(em: Em, id: string, subject: string | null, status: string | null): Promise<ChangeRequestRow> {
  const rows = await sql<ChangeRequestRow>(
    em,
    'update change_request set subject = coalesce(?, subject), status = coalesce(?, status), updated_at = ? where id = ? returning *',
    [subject, status, new Date(), id],
  );
  return rows[0];
}

/** The change request locked for an edit (inside a transaction), with its space's edit mode. */
export async function lockChangeRequest(tx: Em, spaceId: string, id: string): Promise<(ChangeRequestRow & { edit_mode: string }) | undefined> {
  const rows = await sql<ChangeRequestRow & { edit_mode: string }>(
    tx,
    `select cr.*, s.edit_mode from change_request cr join space s on s.id = cr.space_id
      where cr.id = ? and cr.space_id = ? for update of cr`,
    [id, spaceId],
  );
  return rows[0];
}

/** Moves a change request to a new head revision (which clears its recorded conflicts). */
export async function setChangeRequestRevision(tx: Em, id: string, revisionId: string): Promise<ChangeRequestRow> {
  const rows = await sql<ChangeRequestRow>(
    tx,
    'update change_request set revision_id = ?, updated_at = ?, conflicts = null where id = ? returning *',
    [revisionId, new Date(), id],
  );
  return rows[0];
}

/** Head revisions of the open change requests of a space, by number. */
export async function openChangeRequestRevisions(em: Em, spaceId: string): Promise<string[]> {
  const rows = await sql<{ revision_id: string }>(em, "select revision_id from change_request where space_id = ? and status = 'open' order by number", [spaceId]);
  return rows.map((r) => r.revision_id);
}

/** The current revision of each given space (for `outdated`). */
export async function spaceRevisions(em: Em, spaceIds: string[]): Promise<Map<string, string>> {
  const rows = await sql<{ id: string; revision_id: string }>(
    em,
    'select id, revision_id from space where id in (select jsonb_array_elements_text(?::jsonb))',
    [JSON.stringify(spaceIds)],
  );
  return new Map(rows.map((s) => [s.id, s.revision_id]));
}

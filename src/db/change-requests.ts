import type { MergeConflict } from '../domain/content/merge.ts';
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
export async function lockChangeRequest(
  tx: Em,
  spaceId: string,
  id: string,
): Promise<(ChangeRequestRow & { edit_mode: string }) | undefined> {
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
  const rows = await sql<{ revision_id: string }>(
    em,
    "select revision_id from change_request where space_id = ? and status = 'open' order by number",
    [spaceId],
  );
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

/* Merges and updates (the change-request-merge activities). */

/** Statements of merging a change request into its space and of updating it from the space. */

/** A change request locked for a merge or an update, with its space's current revision and edit mode. */
export interface LockedChangeRequest {
  id: string;
  status: string;
  number: number;
  revision_id: string;
  revision_initial: string;
  revision_merged_ancestor: string | null;
  revision_merged: string | null;
  space_revision: string;
  edit_mode: string;
}

/** Locks the space row, then the change request: merges into one space run one at a time. */
export async function lockChangeRequestForMerge(
  em: Em,
  spaceId: string,
  changeRequestId: string,
): Promise<LockedChangeRequest | undefined> {
  const space = await sql<{ revision_id: string; edit_mode: string }>(
    em,
    'select revision_id, edit_mode from space where id = ? for update',
    [spaceId],
  );
  if (!space[0]) return undefined;
  const rows = await sql<Omit<LockedChangeRequest, 'space_revision' | 'edit_mode'>>(
    em,
    'select id, status, number, revision_id, revision_initial, revision_merged_ancestor, revision_merged from change_request where id = ? and space_id = ? for update',
    [changeRequestId, spaceId],
  );
  return rows[0] ? { ...rows[0], space_revision: space[0].revision_id, edit_mode: space[0].edit_mode } : undefined;
}

/** Keeps the conflicts of a merge or update that did not go through on the change request. */
export async function recordMergeConflicts(em: Em, changeRequestId: string, conflicts: MergeConflict[]): Promise<void> {
  await sql(em, 'update change_request set conflicts = ?::jsonb, updated_at = ? where id = ?', [
    JSON.stringify(conflicts),
    new Date(),
    changeRequestId,
  ]);
}

/** Moves the space's primary content to the merge revision and marks the change request merged. */
export async function markChangeRequestMerged(
  em: Em,
  input: { spaceId: string; changeRequestId: string; revisionId: string; userId: string },
): Promise<void> {
  const now = new Date();
  await sql(em, 'update space set revision_id = ?, updated_at = ? where id = ?', [input.revisionId, now, input.spaceId]);
  await sql(
    em,
    `update change_request set status = 'merged', revision_merged = ?, merged_at = ?, merged_by = ?, conflicts = null, updated_at = ?
      where id = ?`,
    [input.revisionId, now, input.userId, now, input.changeRequestId],
  );
}

/** Moves the change request to its update revision, whose base is now the space revision `ancestor`. */
export async function markChangeRequestUpdated(em: Em, changeRequestId: string, revisionId: string, ancestor: string): Promise<void> {
  await sql(em, 'update change_request set revision_id = ?, revision_merged_ancestor = ?, conflicts = null, updated_at = ? where id = ?', [
    revisionId,
    ancestor,
    new Date(),
    changeRequestId,
  ]);
}

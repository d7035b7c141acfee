import type { MergeConflict } from '../domain/content/merge.ts';
import type { Em } from './orm.ts';
import { sql } from './sql.ts';

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
export async function lockChangeRequestForMerge(em: Em, spaceId: string, changeRequestId: string): Promise<LockedChangeRequest | undefined> {
  const space = await sql<{ revision_id: string; edit_mode: string }>(em, 'select revision_id, edit_mode from space where id = ? for update', [spaceId]);
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
  await sql(em, 'update change_request set conflicts = ?::jsonb, updated_at = ? where id = ?', [JSON.stringify(conflicts), new Date(), changeRequestId]);
}

/** Moves the space's primary content to the merge revision and marks the change request merged. */
export async function markChangeRequestMerged(em: Em, input: { spaceId: string; changeRequestId: string; revisionId: string; userId: string }): Promise<void> {
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
  await sql(
    em,
    'update change_request set revision_id = ?, revision_merged_ancestor = ?, conflicts = null, updated_at = ? where id = ?',
    [revisionId, ancestor, new Date(), changeRequestId],
  );
}

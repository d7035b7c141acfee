import { db } from './kysely.ts';
import type { Em } from './orm.ts';

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
  const space = await db(em)
    .selectFrom('space')
    .select(['revision_id', 'edit_mode'])
    .where('id', '=', spaceId)
    .where('deleted_at', 'is', null)
    .forNoKeyUpdate()
    .executeTakeFirst();
  if (!space) return undefined;
  const base = { space_id: spaceId, edit_mode: space.edit_mode };
  if (changeRequestId === null) return { ...base, revision_id: space.revision_id, change_request_id: null, change_request_status: null };
  const changeRequest = await db(em)
    .selectFrom('change_request')
    .select(['id', 'status', 'revision_id'])
    .where('id', '=', changeRequestId)
    .where('space_id', '=', spaceId)
    .forUpdate()
    .executeTakeFirst();
  if (!changeRequest) return undefined;
  return {
    ...base,
    revision_id: changeRequest.revision_id,
    change_request_id: changeRequest.id,
    change_request_status: changeRequest.status,
  };
}

/** A change request of the space by id or by its number within the space. */
export async function findChangeRequestRef(
  em: Em,
  spaceId: string,
  idOrNumber: string,
): Promise<{ id: string; number: number; status: string } | undefined> {
  const query = db(em).selectFrom('change_request').select(['id', 'number', 'status']).where('space_id', '=', spaceId);
  return /^\d{1,9}$/.test(idOrNumber)
    ? query.where('number', '=', Number(idOrNumber)).executeTakeFirst()
    : query.where('id', '=', idOrNumber).executeTakeFirst();
}

/** Whether the revision exists (an import already written by an earlier attempt). */
export async function revisionOf(em: Em, revisionId: string): Promise<{ space_id: string; change_request_id: string | null } | undefined> {
  return db(em).selectFrom('revision').select(['space_id', 'change_request_id']).where('id', '=', revisionId).executeTakeFirst();
}

/** Moves the import's target to the revision it wrote. */
export async function moveImportTarget(em: Em, target: ImportTargetRow, revisionId: string): Promise<void> {
  const now = new Date();
  if (target.change_request_id === null) {
    await db(em).updateTable('space').set({ revision_id: revisionId, updated_at: now }).where('id', '=', target.space_id).execute();
  } else {
    await db(em)
      .updateTable('change_request')
      .set({ revision_id: revisionId, updated_at: now, conflicts: null })
      .where('id', '=', target.change_request_id)
      .execute();
  }
}

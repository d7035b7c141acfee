import { imageSize } from 'image-size';
import type { Static } from 'typebox';
import type { Em } from '../../db/orm.ts';
import { sql } from '../../db/sql.ts';
import { loadPageMap, writeRevision, type FileRow } from '../../db/content.ts';
import { newId } from '../../domain/ids.ts';
import { applyOperations, OperationError, type ChangeOutcome, type ContentOperation } from '../../domain/content/operations.ts';
import type { PageMap } from '../../domain/content/tree.ts';
import { FetchError, guardedFetch, type FetchPolicy } from '../../lib/guarded-fetch.ts';
import type { BlobStore } from '../../lib/blob-store.ts';
import { badRequest, conflict, forbidden } from '../errors.ts';
import type { ChangeRequestRow } from '../content/target.ts';
import type { ContentChangesBody } from './schemas.ts';

const MAX_INLINE_FILE = 1024 * 1024;

/** Refuses edits to merged or archived change requests and to locked spaces. */
export function assertEditable(changeRequest: ChangeRequestRow, editMode: string, action: string): void {
  if (editMode === 'locked') throw forbidden(`The space is locked: unlock it (editMode "live") to ${action}`);
  if (changeRequest.status === 'merged') throw conflict(`Change request #${changeRequest.number} is merged; it cannot ${action.startsWith('merge') ? 'be merged again' : 'change any more'}`);
  if (changeRequest.status === 'archived') throw conflict(`Change request #${changeRequest.number} is archived: reopen it (status "open" or "draft") to ${action}`);
}

type FileInput = Extract<Static<typeof ContentChangesBody>['changes'][number], { operation: 'insert_files' }>['files'][number];

async function storeFile(blobs: BlobStore, file: FileInput, where: string, fetchPolicy: FetchPolicy): Promise<FileRow> {
  let bytes: Buffer;
  let contentType = file.contentType;
  if ((file.url === undefined) === (file.base64 === undefined)) throw badRequest(`${where}: set exactly one of url or base64`);
  if (file.base64 !== undefined) {
    if (!contentType) throw badRequest(`${where}.contentType is required with base64`);
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(file.base64.replace(/\s/g, ''))) throw badRequest(`${where}.base64 is not base64`);
    bytes = Buffer.from(file.base64, 'base64');
    if (bytes.length > MAX_INLINE_FILE) throw badRequest(`${where}.base64 is larger than 1 MB; send a url instead`);
  } else {
    try {
      const fetched = await guardedFetch(file.url!, fetchPolicy);
      bytes = fetched.body;
      contentType ??= fetched.contentType?.split(';')[0].trim() || 'application/octet-stream';
    } catch (error) {
      if (error instanceof FetchError) throw badRequest(`${where}.url could not be fetched (${error.code}): ${error.message}`);
      throw error;
    }
  }
  const sha = await blobs.put(bytes);
  let width: number | null = null;
  let height: number | null = null;
  if (contentType!.startsWith('image/')) {
    try {
      const size = imageSize(bytes);
      width = size.width ?? null;
      height = size.height ?? null;
    } catch {
      // not an image it can measure
    }
  }
  return { id: newId(), name: file.name, contentType: contentType!, size: bytes.length, width, height, sha256: sha };
}

/**
 * Applies a batch of content operations to a change request as ONE new revision, atomically:
 * any invalid operation rejects the whole batch and nothing changes.
 */
export async function applyContentChanges(
  em: Em,
  blobs: BlobStore,
  spaceId: string,
  changeRequestId: string,
  body: Static<typeof ContentChangesBody>,
  fetchPolicy: FetchPolicy,
): Promise<{ changeRequest: ChangeRequestRow; changes: ChangeOutcome[]; insertedFiles: FileRow[] }> {
  // Files are fetched and stored before the transaction: bytes are content-addressed, so an
  // aborted batch leaves at most unreferenced blobs behind, never a half-applied revision.
  const insertedFiles: FileRow[] = [];
  for (const [index, change] of body.changes.entries()) {
    if (change.operation !== 'insert_files') continue;
    for (const [i, file] of change.files.entries()) insertedFiles.push(await storeFile(blobs, file, `changes[${index}].files[${i}]`, fetchPolicy));
  }
  return em.transactional(async (tx) => {
    const rows = await sql<ChangeRequestRow & { edit_mode: string }>(
      tx,
      `select cr.*, s.edit_mode from change_request cr join space s on s.id = cr.space_id
        where cr.id = ? and cr.space_id = ? for update of cr`,
      [changeRequestId, spaceId],
    );
    const changeRequest = rows[0];
    assertEditable(changeRequest, changeRequest.edit_mode, 'edit its content');
    const head = await loadPageMap(tx, changeRequest.revision_id, false);
    const base = await loadPageMap(tx, changeRequest.revision_merged_ancestor ?? changeRequest.revision_initial, false);
    const byRevision: Record<string, PageMap> = {};
    for (const change of body.changes) {
      if (change.operation === 'revert_page' && change.revision && !byRevision[change.revision]) {
        const owner = await sql<{ space_id: string }>(tx, 'select space_id from revision where id = ?', [change.revision]);
        if (owner[0]?.space_id === spaceId) byRevision[change.revision] = await loadPageMap(tx, change.revision, false);
      }
    }
    let applied;
    try {
      applied = applyOperations(head, body.changes as ContentOperation[], { newId: () => newId(), revertSources: { base, byRevision } });
    } catch (error) {
      if (error instanceof OperationError) throw badRequest(error.message);
      throw error;
    }
    const revisionId = await writeRevision(tx, {
      spaceId,
      parents: [changeRequest.revision_id],
      type: 'edits',
      changeRequestId,
      base: { revisionId: changeRequest.revision_id, pages: head },
      pages: applied.pages,
      addedFiles: insertedFiles,
    });
    const updated = await sql<ChangeRequestRow>(
      tx,
      'update change_request set revision_id = ?, updated_at = ?, conflicts = null where id = ? returning *',
      [revisionId, new Date(), changeRequestId],
    );
    return { changeRequest: updated[0], changes: applied.changes, insertedFiles };
  });
}

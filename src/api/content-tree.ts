import { collectionSubtree, lastPosition, pointerRow, siblingBound } from '../db/positions.ts';
import type { Caller } from './context.ts';
import { loadCollection, requireRole } from './access.ts';
import type { Em } from '../db/orm.ts';
import { positionBetween } from '../domain/positions.ts';
import { badRequest, isRefusal, notFound } from './errors.ts';

/**
 * Spaces and collections share one ordering among siblings (the items under one parent
 * collection, or at the organization root). Used by create, move and transfer.
 */

export type Pointer = { type: 'space'; space: string } | { type: 'collection'; collection: string };
export interface ContentPosition {
  before?: Pointer;
  after?: Pointer;
}

async function pointerPosition(em: Em, organizationId: string, parentId: string | null, pointer: Pointer, field: string) {
  const row = await pointerRow(em, organizationId, pointer.type, pointer.type === 'space' ? pointer.space : pointer.collection);
  if (!row) throw badRequest(`position.${field} refers to a ${pointer.type} that does not exist`);
  if ((row.parent_id ?? null) !== parentId)
    throw badRequest(`position.${field} refers to a ${pointer.type} that is not in the target parent`);
  return row.position;
}

/** A position key for `movingId` under `parentId`: at the given position, or after the last sibling. */
export async function resolvePosition(
  em: Em,
  organizationId: string,
  parentId: string | null,
  movingId: string,
  position?: ContentPosition,
): Promise<string> {
  const before = position?.before ? await pointerPosition(em, organizationId, parentId, position.before, 'before') : null;
  const after = position?.after ? await pointerPosition(em, organizationId, parentId, position.after, 'after') : null;
  let lower = after;
  let upper = before;
  if (after !== null && before === null) upper = await siblingBound(em, organizationId, parentId, movingId, '>', after);
  if (before !== null && after === null) lower = await siblingBound(em, organizationId, parentId, movingId, '<', before);
  if (after === null && before === null) {
    lower = await lastPosition(em, organizationId, parentId, movingId);
    upper = null;
  }
  try {
    return positionBetween(lower, upper);
  } catch {
    throw badRequest('position.after must come before position.before among the siblings');
  }
}

/**
 * The collection something is created in, moved into or transferred to: it must be visible to the
 * caller, belong to `organizationId` (404 naming `field` otherwise) and grant them `create`.
 */
export async function targetCollection(
  em: Em,
  caller: Caller,
  collectionId: string,
  organizationId: string,
  field: string,
  action: string,
) {
  const target = await loadCollection(em, caller, collectionId).catch((error: unknown) => {
    throw isRefusal(error) ? notFound(`${field}: collection`) : error;
  });
  if (target.collection.organizationId !== organizationId) throw notFound(`${field}: collection`);
  requireRole(target.role, 'create', action);
  return target.collection;
}

export { collectionSubtree };

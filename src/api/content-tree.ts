import { sql } from '../db/sql.ts';
import type { Caller } from './context.ts';
import { loadCollection, requireRole } from './access.ts';
import type { Em } from '../db/orm.ts';
import { positionBetween } from '../domain/positions.ts';
import { badRequest, notFound } from './errors.ts';

/**
 * Spaces and collections share one ordering among siblings (the items under one parent
 * collection, or at the organization root). Used by create, move and transfer.
 */

export type Pointer = { type: 'space'; space: string } | { type: 'collection'; collection: string };
export interface ContentPosition {
  before?: Pointer;
  after?: Pointer;
}

const SIBLINGS_SQL = `
  select id, position from space where organization_id = ? and parent_id is not distinct from ? and deleted_at is null and id <> ?
  union all
  select id, position from collection where organization_id = ? and parent_id is not distinct from ? and id <> ?`;

async function siblingBound(em: Em, organizationId: string, parentId: string | null, movingId: string, op: '<' | '>', than: string | null) {
  const agg = op === '<' ? 'max' : 'min';
  const where = than === null ? '' : `where position ${op} ?`;
  const params: unknown[] = [organizationId, parentId, movingId, organizationId, parentId, movingId];
  if (than !== null) params.push(than);
  const rows = await sql<{ bound: string | null }>(em,
    `select ${agg}(position) as bound from (${SIBLINGS_SQL}) s ${where}`,
    params,
  );
  return rows[0]?.bound ?? null;
}

async function pointerPosition(em: Em, organizationId: string, parentId: string | null, pointer: Pointer, field: string) {
  const id = pointer.type === 'space' ? pointer.space : pointer.collection;
  const table = pointer.type === 'space' ? 'space' : 'collection';
  const rows = await sql<{ position: string; parent_id: string | null }>(em,
    `select position, parent_id from ${table} where id = ? and organization_id = ?${table === 'space' ? ' and deleted_at is null' : ''}`,
    [id, organizationId],
  );
  if (rows.length === 0) throw badRequest(`position.${field} refers to a ${pointer.type} that does not exist`);
  if ((rows[0].parent_id ?? null) !== parentId) throw badRequest(`position.${field} refers to a ${pointer.type} that is not in the target parent`);
  return rows[0].position;
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

async function lastPosition(em: Em, organizationId: string, parentId: string | null, movingId: string) {
  const rows = await sql<{ bound: string | null }>(em,
    `select max(position) as bound from (${SIBLINGS_SQL}) s`,
    [organizationId, parentId, movingId, organizationId, parentId, movingId],
  );
  return rows[0]?.bound ?? null;
}

/**
 * The collection something is created in, moved into or transferred to: it must be visible to the
 * caller, belong to `organizationId` (404 naming `field` otherwise) and grant them `create`.
 */
export async function targetCollection(em: Em, caller: Caller, collectionId: string, organizationId: string, field: string, action: string) {
  const target = await loadCollection(em, caller, collectionId).catch(() => {
    throw notFound(`${field}: collection`);
  });
  if (target.collection.organizationId !== organizationId) throw notFound(`${field}: collection`);
  requireRole(target.role, 'create', action);
  return target.collection;
}

/** Ids of a collection and every collection below it. */
export async function collectionSubtree(em: Em, collectionId: string): Promise<string[]> {
  const rows = await sql<{ id: string }>(em,
    `with recursive sub as (
       select id from collection where id = ?
       union all
       select c.id from collection c join sub on c.parent_id = sub.id
     ) select id from sub`,
    [collectionId],
  );
  return rows.map((r) => r.id);
}

import type { Em } from './orm.ts';
import { sql } from './sql.ts';

/**
 * Spaces and collections share one ordering among siblings (the items under one parent
 * collection, or at the organization root): the positions the rules in src/api/content-tree.ts use.
 */

const SIBLINGS_SQL = `
  select id, position from space where organization_id = ? and parent_id is not distinct from ? and deleted_at is null and id <> ?
  union all
  select id, position from collection where organization_id = ? and parent_id is not distinct from ? and id <> ?`;

/** The nearest sibling position below (`<`) or above (`>`) `than`, or the extreme one when `than` is null. */
export async function siblingBound(
  em: Em,
  organizationId: string,
  parentId: string | null,
  movingId: string,
  op: '<' | '>',
  than: string | null,
) {
  const agg = op === '<' ? 'max' : 'min';
  const where = than === null ? '' : `where position ${op} ?`;
  const params: unknown[] = [organizationId, parentId, movingId, organizationId, parentId, movingId];
  if (than !== null) params.push(than);
  const rows = await sql<{ bound: string | null }>(em, `select ${agg}(position) as bound from (${SIBLINGS_SQL}) s ${where}`, params);
  return rows[0]?.bound ?? null;
}

/** The position and parent of a live space or a collection of the organization. */
export async function pointerRow(em: Em, organizationId: string, table: 'space' | 'collection', id: string) {
  const rows = await sql<{ position: string; parent_id: string | null }>(
    em,
    `select position, parent_id from ${table} where id = ? and organization_id = ?${table === 'space' ? ' and deleted_at is null' : ''}`,
    [id, organizationId],
  );
  return rows[0];
}

/** The last position among the siblings under a parent. */
export async function lastPosition(em: Em, organizationId: string, parentId: string | null, movingId: string) {
  const rows = await sql<{ bound: string | null }>(em, `select max(position) as bound from (${SIBLINGS_SQL}) s`, [
    organizationId,
    parentId,
    movingId,
    organizationId,
    parentId,
    movingId,
  ]);
  return rows[0]?.bound ?? null;
}

/** Ids of a collection and every collection below it. */
export async function collectionSubtree(em: Em, collectionId: string): Promise<string[]> {
  const rows = await sql<{ id: string }>(
    em,
    `with recursive sub as (
       select id from collection where id = ?
       union all
       select c.id from collection c join sub on c.parent_id = sub.id
     ) select id from sub`,
    [collectionId],
  );
  return rows.map((r) => r.id);
}

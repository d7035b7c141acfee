import { db } from './kysely.ts';
import type { Em } from './orm.ts';

/**
 * Spaces and collections share one ordering among siblings (the items under one parent
 * collection, or at the organization root): the positions the rules in src/api/content-tree.ts use.
 */

/** The positions of the live spaces and the collections under a parent, but for `movingId`. */
function siblings(em: Em, organizationId: string, parentId: string | null, movingId: string) {
  const q = db(em);
  return q
    .selectFrom('space')
    .select(['id', 'position'])
    .where('organization_id', '=', organizationId)
    .where('parent_id', 'is not distinct from', parentId)
    .where('deleted_at', 'is', null)
    .where('id', '<>', movingId)
    .unionAll(
      q
        .selectFrom('collection')
        .select(['id', 'position'])
        .where('organization_id', '=', organizationId)
        .where('parent_id', 'is not distinct from', parentId)
        .where('id', '<>', movingId),
    );
}

/** The nearest sibling position below (`<`) or above (`>`) `than`, or the extreme one when `than` is null. */
export async function siblingBound(
  em: Em,
  organizationId: string,
  parentId: string | null,
  movingId: string,
  op: '<' | '>',
  than: string | null,
) {
  let query = db(em)
    .selectFrom(siblings(em, organizationId, parentId, movingId).as('s'))
    .select((eb) => (op === '<' ? eb.fn.max<string | null>('position') : eb.fn.min<string | null>('position')).as('bound'));
  if (than !== null) query = query.where('position', op, than);
  const row = await query.executeTakeFirst();
  return row?.bound ?? null;
}

/** The position and parent of a live space or a collection of the organization. */
export async function pointerRow(em: Em, organizationId: string, table: 'space' | 'collection', id: string) {
  const q = db(em);
  return table === 'space'
    ? q
        .selectFrom('space')
        .select(['position', 'parent_id'])
        .where('id', '=', id)
        .where('organization_id', '=', organizationId)
        .where('deleted_at', 'is', null)
        .executeTakeFirst()
    : q
        .selectFrom('collection')
        .select(['position', 'parent_id'])
        .where('id', '=', id)
        .where('organization_id', '=', organizationId)
        .executeTakeFirst();
}

/** The last position among the siblings under a parent. */
export async function lastPosition(em: Em, organizationId: string, parentId: string | null, movingId: string) {
  return siblingBound(em, organizationId, parentId, movingId, '<', null);
}

/** Ids of a collection and every collection below it. */
export async function collectionSubtree(em: Em, collectionId: string): Promise<string[]> {
  const rows = await db(em)
    .withRecursive('sub(id)', (q) =>
      q
        .selectFrom('collection')
        .select('id')
        .where('id', '=', collectionId)
        .unionAll((r) => r.selectFrom('collection as c').innerJoin('sub', 'c.parent_id', 'sub.id').select('c.id')),
    )
    .selectFrom('sub')
    .select('id')
    .execute();
  return rows.map((r) => r.id);
}

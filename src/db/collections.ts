import type { Collection } from './entities.ts';
import { db, type Read } from './kysely.ts';
import type { Listing } from './listing.ts';
import type { Em } from './orm.ts';

/** A collection row as the API presents it: the entity's fields, read as a plain row. */
export type CollectionRow = Read<Collection>;

/**
 * The collections of an organization, oldest first: only top-level ones with `topLevel`, only
 * those among `ids` when given (a guest's grants).
 */
export function collectionListing(em: Em, organizationId: string, filter: { topLevel: boolean; ids?: string[] }): Listing<CollectionRow> {
  let query = db(em)
    .selectFrom('collection')
    .select([
      'id',
      'organization_id as organizationId',
      'parent_id as parentId',
      'title',
      'description',
      'default_level as defaultLevel',
      'position',
      'created_at as createdAt',
      'updated_at as updatedAt',
    ])
    .where('organization_id', '=', organizationId);
  if (filter.topLevel) query = query.where('parent_id', 'is', null);
  if (filter.ids) query = query.where((eb) => (filter.ids!.length === 0 ? eb.lit(false) : eb('id', 'in', filter.ids!)));
  return {
    query,
    keys: [
      { field: 'createdAt', kind: 'date' },
      { field: 'id', kind: 'string' },
    ],
  };
}

/** Inserts a collection row. */
export async function insertCollection(em: Em, row: Collection): Promise<void> {
  await db(em)
    .insertInto('collection')
    .values({
      id: row.id,
      organization_id: row.organizationId,
      parent_id: row.parentId ?? null,
      title: row.title,
      description: row.description ?? null,
      default_level: row.defaultLevel ?? null,
      position: row.position,
      created_at: row.createdAt,
      updated_at: row.updatedAt,
    })
    .execute();
}

/** Changes the title, description and default level of a collection (undefined: unchanged) and stamps its `updatedAt`. */
export async function updateCollectionFields(
  em: Em,
  collectionId: string,
  changes: { title?: string; description?: string | null; defaultLevel?: string | null },
): Promise<void> {
  await db(em)
    .updateTable('collection')
    .set({
      ...(changes.title !== undefined ? { title: changes.title } : {}),
      ...(changes.description !== undefined ? { description: changes.description } : {}),
      ...(changes.defaultLevel !== undefined ? { default_level: changes.defaultLevel } : {}),
      updated_at: new Date(),
    })
    .where('id', '=', collectionId)
    .execute();
}

/**
 * Deletes a collection (the collections below it go with it) after taking the spaces of
 * `subtree` (the collection and those below it) to the organization root: an `in-collection`
 * space becomes private there. Run it in a transaction.
 */
export async function deleteCollectionKeepingSpaces(em: Em, collectionId: string, subtree: string[]): Promise<void> {
  const q = db(em);
  if (subtree.length > 0) {
    await q
      .updateTable('space')
      .set({ visibility: 'private' })
      .where('parent_id', 'in', subtree)
      .where('visibility', '=', 'in-collection')
      .execute();
    await q.updateTable('space').set({ parent_id: null }).where('parent_id', 'in', subtree).execute();
  }
  await q.deleteFrom('collection').where('id', '=', collectionId).execute();
}

/** Puts a collection under another parent (or at the root) at `position`. */
export async function moveCollectionRow(em: Em, collectionId: string, parentId: string | null, position: string): Promise<void> {
  await db(em)
    .updateTable('collection')
    .set({ parent_id: parentId, position, updated_at: new Date() })
    .where('id', '=', collectionId)
    .execute();
}

/**
 * Moves a collection with the collections below it (`subtree`, itself included) and their spaces,
 * deleted ones included, to another organization; the collection lands at its root at `position`.
 * Run it in a transaction.
 */
export async function transferCollectionRows(
  em: Em,
  input: { collectionId: string; subtree: string[]; organizationId: string; position: string },
): Promise<void> {
  const q = db(em);
  await q.updateTable('collection').set({ organization_id: input.organizationId }).where('id', 'in', input.subtree).execute();
  await q
    .updateTable('collection')
    .set({ parent_id: null, position: input.position, updated_at: new Date() })
    .where('id', '=', input.collectionId)
    .execute();
  await q.updateTable('space').set({ organization_id: input.organizationId }).where('parent_id', 'in', input.subtree).execute();
}

import type { Collection } from './entities.ts';
import { db } from './kysely.ts';
import type { Listing } from './listing.ts';
import type { Em } from './orm.ts';

/** A collection row as the API presents it: the entity's fields, read as a plain row. */
export type CollectionRow = Collection;

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

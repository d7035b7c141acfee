import type { CollectionRow } from '../../db/collections.ts';
import type { Collection } from '../../db/entities.ts';
import { collectionPermissions, type Role } from '../../domain/roles.ts';
import type { Urls } from '../object-urls.ts';

export function presentCollection(collection: Collection | CollectionRow, role: Role | null, urls: Urls) {
  return {
    object: 'collection' as const,
    id: collection.id,
    title: collection.title,
    ...(collection.description ? { description: collection.description } : {}),
    organization: collection.organizationId,
    ...(collection.parentId ? { parent: collection.parentId } : {}),
    defaultLevel: collection.defaultLevel ?? null,
    urls: urls.collection(collection.id),
    permissions: collectionPermissions(role),
  };
}

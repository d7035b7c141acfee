import type { Static } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { Collection, Space } from '../../db/entities.ts';
import { newId } from '../../domain/ids.ts';
import { contentRoles, grantedContent, loadCollection, loadOrganization, requireRole } from '../access.ts';
import { collectionSubtree, resolvePosition, targetCollection, type ContentPosition } from '../content-tree.ts';
import { conflict, notFound } from '../errors.ts';
import { paginate } from '../pagination.ts';
import { errors, ListQuery, NoContent } from '../schemas.ts';
import { presentSpace } from '../spaces/present.ts';
import { MoveBody, SpaceList } from '../spaces/schemas.ts';
import { deleteSpaces } from '../spaces/service.ts';
import { urlsFor } from '../urls.ts';
import { presentCollection } from './present.ts';
import {
  CollectionList, CollectionParams, CollectionSchema, CreateCollectionBody, ListCollectionsQuery, OrgCollectionParams,
  TransferCollectionBody, UpdateCollectionBody,
} from './schemas.ts';

type CollectionId = { collectionId: string };

export async function collectionRoutes(app: FastifyInstance) {
  const { deps } = app;
  const urls = urlsFor(deps.config.publicUrl);
  const tags = ['collections'];

  app.get('/v1/orgs/:organizationId/collections', {
    schema: { tags, summary: 'List the collections of an organization', params: OrgCollectionParams, querystring: ListCollectionsQuery, response: { 200: CollectionList, ...errors(404) } },
  }, async (request) => {
    const { organizationId } = request.params as { organizationId: string };
    const query = request.query as Static<typeof ListCollectionsQuery>;
    const { em, caller } = request;
    const { role } = await loadOrganization(em, caller, organizationId);
    // Guests see the collections granted to them (or their teams) and everything below those.
    const granted = role === null ? { id: { $in: (await grantedContent(em, organizationId, caller.user.id)).collections } } : {};
    const where = query.nested === false ? { organizationId, parentId: null, ...granted } : { organizationId, ...granted };
    const page = await paginate(em, Collection, where, [{ field: 'createdAt', kind: 'date' }, { field: 'id', kind: 'string' }], query, (c) => c);
    const roles = await contentRoles(em, { userId: caller.user.id, role }, 'collection', page.items);
    return { ...page, items: page.items.map((c) => presentCollection(c, roles.get(c.id) ?? null, urls)) };
  });

  app.post('/v1/orgs/:organizationId/collections', {
    schema: { tags, summary: 'Create a collection', params: OrgCollectionParams, body: CreateCollectionBody, response: { 201: CollectionSchema, ...errors(403, 404) } },
  }, async (request, reply) => {
    const { organizationId } = request.params as { organizationId: string };
    const body = (request.body ?? {}) as Static<typeof CreateCollectionBody>;
    const { em, caller } = request;
    const { role } = await loadOrganization(em, caller, organizationId);
    if (body.parent !== undefined) await targetCollection(em, caller, body.parent, organizationId, 'parent', 'create collections in that collection');
    else requireRole(role, 'create', 'create collections here');
    const id = newId();
    await em.transactional(async (tx) => {
      const now = new Date();
      tx.create(Collection, {
        id,
        organizationId,
        parentId: body.parent ?? null,
        title: body.title ?? '',
        description: body.description ?? null,
        defaultLevel: body.parent ? 'inherit' : null,
        position: await resolvePosition(tx, organizationId, body.parent ?? null, id),
        createdAt: now,
        updatedAt: now,
      });
    });
    const fresh = await loadCollection(em, caller, id);
    return reply.status(201).send(presentCollection(fresh.collection, fresh.role, urls));
  });

  app.get('/v1/collections/:collectionId', {
    schema: { tags, summary: 'Get a collection', params: CollectionParams, response: { 200: CollectionSchema, ...errors(404) } },
  }, async (request) => {
    const { collection, role } = await loadCollection(request.em, request.caller, (request.params as CollectionId).collectionId);
    return presentCollection(collection, role, urls);
  });

  app.patch('/v1/collections/:collectionId', {
    schema: { tags, summary: 'Update a collection', params: CollectionParams, body: UpdateCollectionBody, response: { 200: CollectionSchema, ...errors(403, 404) } },
  }, async (request) => {
    const body = request.body as Static<typeof UpdateCollectionBody>;
    const { em, caller } = request;
    const { collection, role } = await loadCollection(em, caller, (request.params as CollectionId).collectionId);
    requireRole(role, 'admin', 'update this collection');
    if (body.title !== undefined) collection.title = body.title;
    if (body.description !== undefined) collection.description = body.description || null;
    if (body.defaultLevel !== undefined) collection.defaultLevel = body.defaultLevel;
    collection.updatedAt = new Date();
    await em.flush();
    const fresh = await loadCollection(em, caller, collection.id);
    return presentCollection(fresh.collection, fresh.role, urls);
  });

  app.delete('/v1/collections/:collectionId', {
    schema: { tags, summary: 'Delete a collection; its spaces go through the restorable space deletion', params: CollectionParams, response: { 205: NoContent, ...errors(403, 404) } },
  }, async (request, reply) => {
    const { em, caller } = request;
    const { collection, role } = await loadCollection(em, caller, (request.params as CollectionId).collectionId);
    requireRole(role, 'admin', 'delete this collection');
    const subtree = await collectionSubtree(em, collection.id);
    const spaces = await em.find(Space, { parentId: { $in: subtree }, deletedAt: null });
    await deleteSpaces(deps, em, caller, spaces);
    await em.transactional(async (tx) => {
      // Deleted spaces leave the collection for the organization root, where a restore puts them back.
      await tx.nativeUpdate(Space, { parentId: { $in: subtree }, visibility: 'in-collection' }, { visibility: 'private' });
      await tx.nativeUpdate(Space, { parentId: { $in: subtree } }, { parentId: null });
      await tx.nativeDelete(Collection, { id: collection.id });
    });
    return reply.status(205).send();
  });

  app.get('/v1/collections/:collectionId/spaces', {
    schema: { tags, summary: 'List the spaces of a collection', params: CollectionParams, querystring: ListQuery, response: { 200: SpaceList, ...errors(404) } },
  }, async (request) => {
    const { em, caller } = request;
    const { collection } = await loadCollection(em, caller, (request.params as CollectionId).collectionId);
    const { role } = await loadOrganization(em, caller, collection.organizationId);
    const page = await paginate(em, Space, { parentId: collection.id, deletedAt: null }, [{ field: 'position', kind: 'string' }, { field: 'id', kind: 'string' }], request.query as object, (s) => s);
    const roles = await contentRoles(em, { userId: caller.user.id, role }, 'space', page.items);
    return { ...page, items: page.items.map((s) => presentSpace(s, roles.get(s.id) ?? null, urls)) };
  });

  app.post('/v1/collections/:collectionId/move', {
    schema: { tags, summary: 'Move a collection to another parent or position', params: CollectionParams, body: MoveBody, response: { 200: CollectionSchema, ...errors(403, 404, 409) } },
  }, async (request) => {
    const body = request.body as { parent?: string | null; position?: ContentPosition };
    const { em, caller } = request;
    const { collection, role } = await loadCollection(em, caller, (request.params as CollectionId).collectionId);
    requireRole(role, 'admin', 'move this collection');
    const parentId = body.parent === undefined ? (collection.parentId ?? null) : body.parent;
    if (parentId !== null) {
      await targetCollection(em, caller, parentId, collection.organizationId, 'parent', 'move collections into that collection');
    }
    await em.transactional(async (tx) => {
      if (parentId !== null && (await collectionSubtree(tx, collection.id)).includes(parentId)) {
        throw conflict('A collection cannot be moved into itself or one of its own collections');
      }
      const position = await resolvePosition(tx, collection.organizationId, parentId, collection.id, body.position);
      await tx.nativeUpdate(Collection, { id: collection.id }, { parentId, position, updatedAt: new Date() });
    });
    em.clear();
    const fresh = await loadCollection(em, caller, collection.id);
    return presentCollection(fresh.collection, fresh.role, urls);
  });

  app.post('/v1/collections/:collectionId/transfer', {
    schema: { tags, summary: 'Transfer a collection, with everything in it, to another organization', params: CollectionParams, body: TransferCollectionBody, response: { 200: CollectionSchema, ...errors(403, 404, 409) } },
  }, async (request) => {
    const body = request.body as Static<typeof TransferCollectionBody>;
    const { em, caller } = request;
    const { collection, role } = await loadCollection(em, caller, (request.params as CollectionId).collectionId);
    requireRole(role, 'admin', 'transfer this collection');
    if (body.organization === collection.organizationId) throw conflict('The collection already belongs to that organization');
    const target = await loadOrganization(em, caller, body.organization).catch(() => {
      throw notFound('organization: target organization');
    });
    requireRole(target.role, 'admin', 'transfer collections into the target organization');
    await em.transactional(async (tx) => {
      const subtree = await collectionSubtree(tx, collection.id);
      const position = await resolvePosition(tx, body.organization, null, collection.id);
      await tx.nativeUpdate(Collection, { id: { $in: subtree } }, { organizationId: body.organization });
      await tx.nativeUpdate(Collection, { id: collection.id }, { parentId: null, position, updatedAt: new Date() });
      // Spaces move along, deleted ones included, so a restore finds them in their new home.
      await tx.nativeUpdate(Space, { parentId: { $in: subtree } }, { organizationId: body.organization });
    });
    em.clear();
    const fresh = await loadCollection(em, caller, collection.id);
    return presentCollection(fresh.collection, fresh.role, urls);
  });
}

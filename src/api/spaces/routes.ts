import type { Static } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { Space } from '../../db/entities.ts';
import { atLeast } from '../../domain/roles.ts';
import { contentRoles, grantedContent, loadOrganization, loadSpace, orgRole, requireRole } from '../access.ts';
import { targetCollection, type ContentPosition } from '../content-tree.ts';
import { badRequest, forbidden, notFound } from '../errors.ts';
import { paginate } from '../pagination.ts';
import { errors, ListQuery, NoContent } from '../schemas.ts';
import { urlsFor } from '../urls.ts';
import { presentSpace } from './present.ts';
import {
  CreateSpaceBody, GetSpaceQuery, MoveBody, OrgSpaceParams, SpaceList, SpaceParams, SpaceSchema, TransferBody, UpdateSpaceBody,
} from './schemas.ts';
import { createSpace, deleteSpaces, relocateSpace, restoreSpace } from './service.ts';

type SpaceId = { spaceId: string };

export async function spaceRoutes(app: FastifyInstance) {
  const { deps } = app;
  const urls = urlsFor(deps.config.publicUrl);
  const tags = ['spaces'];

  app.get('/v1/orgs/:organizationId/spaces', {
    schema: { tags, summary: 'List the spaces of an organization', params: OrgSpaceParams, querystring: ListQuery, response: { 200: SpaceList, ...errors(404) } },
  }, async (request) => {
    const { organizationId } = request.params as { organizationId: string };
    const { em, caller } = request;
    const { role } = await loadOrganization(em, caller, organizationId);
    // Members with a role see every space; guests only what is granted to them (or their teams).
    const where = role === null
      ? { organizationId, deletedAt: null, id: { $in: (await grantedContent(em, organizationId, caller.user.id)).spaces } }
      : { organizationId, deletedAt: null };
    const page = await paginate(em, Space, where, [{ field: 'createdAt', kind: 'date' }, { field: 'id', kind: 'string' }], request.query as object, (s) => s);
    const roles = await contentRoles(em, { userId: caller.user.id, role }, 'space', page.items);
    return { ...page, items: page.items.map((s) => presentSpace(s, roles.get(s.id) ?? null, urls)) };
  });

  app.post('/v1/orgs/:organizationId/spaces', {
    schema: { tags, summary: 'Create a space', params: OrgSpaceParams, body: CreateSpaceBody, response: { 201: SpaceSchema, ...errors(403, 404) } },
  }, async (request, reply) => {
    const { organizationId } = request.params as { organizationId: string };
    const body = request.body as Static<typeof CreateSpaceBody>;
    const { em, caller } = request;
    const space = await em.transactional(async (tx) => {
      const { role } = await loadOrganization(tx, caller, organizationId);
      if (body.parent !== undefined) await targetCollection(tx, caller, body.parent, organizationId, 'parent', 'create spaces in that collection');
      else requireRole(role, 'create', 'create spaces here');
      if (body.visibility === 'in-collection' && body.parent === undefined) {
        throw badRequest('visibility in-collection is only for spaces in a collection');
      }
      return createSpace(tx, {
        organizationId,
        parentId: body.parent ?? null,
        title: body.title ?? '',
        emoji: body.emoji ?? '',
        visibility: body.visibility ?? (body.parent ? 'in-collection' : 'private'),
        editMode: body.editMode ?? 'live',
        defaultLevel: body.parent ? 'inherit' : null,
      }, body.empty ? { kind: 'empty' } : { kind: 'page' });
    });
    const { role } = await loadSpace(em, caller, space.id);
    return reply.status(201).send(presentSpace(space, role, urls));
  });

  app.get('/v1/spaces/:spaceId', {
    schema: { tags, summary: 'Get a space', params: SpaceParams, querystring: GetSpaceQuery, response: { 200: SpaceSchema, ...errors(404) } },
  }, async (request) => {
    const { space, role } = await loadSpace(request.em, request.caller, (request.params as SpaceId).spaceId);
    return presentSpace(space, role, urls);
  });

  app.patch('/v1/spaces/:spaceId', {
    schema: { tags, summary: 'Update a space', params: SpaceParams, body: UpdateSpaceBody, response: { 200: SpaceSchema, ...errors(403, 404) } },
  }, async (request) => {
    const body = request.body as Static<typeof UpdateSpaceBody>;
    const { em, caller } = request;
    const { space, role } = await loadSpace(em, caller, (request.params as SpaceId).spaceId);
    const adminOnly = body.defaultLevel !== undefined || body.editMode !== undefined || body.visibility !== undefined;
    requireRole(role, adminOnly ? 'admin' : 'edit', adminOnly ? 'change the access, visibility or edit mode of this space' : 'edit this space');
    if (space.editMode === 'locked' && body.editMode === undefined && (body.title !== undefined || body.emoji !== undefined)) {
      throw forbidden('This space is locked: unlock it (editMode "live") before editing it');
    }
    if (body.visibility === 'in-collection' && !space.parentId) throw badRequest('visibility in-collection is only for spaces in a collection');
    await em.nativeUpdate(Space, { id: space.id }, {
      ...(body.title !== undefined ? { title: body.title } : {}),
      ...(body.emoji !== undefined ? { emoji: body.emoji } : {}),
      ...(body.editMode !== undefined ? { editMode: body.editMode } : {}),
      ...(body.visibility !== undefined ? { visibility: body.visibility } : {}),
      ...(body.defaultLevel !== undefined ? { defaultLevel: body.defaultLevel } : {}),
      updatedAt: new Date(),
    });
    const fresh = await loadSpace(em, caller, space.id);
    return presentSpace(fresh.space, fresh.role, urls);
  });

  app.delete('/v1/spaces/:spaceId', {
    schema: { tags, summary: 'Delete a space (restorable during the retention period)', params: SpaceParams, response: { 205: NoContent, ...errors(403, 404) } },
  }, async (request, reply) => {
    const { em, caller } = request;
    const { space, role } = await loadSpace(em, caller, (request.params as SpaceId).spaceId);
    requireRole(role, 'admin', 'delete this space');
    await deleteSpaces(deps, em, caller, [space]);
    return reply.status(205).send();
  });

  app.post('/v1/spaces/:spaceId/restore', {
    schema: { tags, summary: 'Restore a deleted space', params: SpaceParams, response: { 200: SpaceSchema, ...errors(403, 404) } },
  }, async (request) => {
    const { em, caller } = request;
    const spaceId = (request.params as SpaceId).spaceId;
    const { role } = await loadSpace(em, caller, spaceId, 'deleted');
    requireRole(role, 'admin', 'restore this space');
    await restoreSpace(deps, em, spaceId);
    em.clear();
    const fresh = await loadSpace(em, caller, spaceId);
    return presentSpace(fresh.space, fresh.role, urls);
  });

  app.post('/v1/spaces/:spaceId/duplicate', {
    schema: { tags, summary: 'Duplicate a space', params: SpaceParams, response: { 201: SpaceSchema, ...errors(403, 404) } },
  }, async (request, reply) => {
    const { em, caller } = request;
    const { space, role } = await loadSpace(em, caller, (request.params as SpaceId).spaceId);
    const member = await orgRole(em, caller, space.organizationId);
    if (!atLeast(member ?? null, 'create')) requireRole(role, 'create', 'duplicate this space');
    const copy = await em.transactional((tx) =>
      createSpace(
        tx,
        {
          organizationId: space.organizationId,
          parentId: space.parentId ?? null,
          title: `${space.title} (copy)`.slice(0, 50),
          emoji: space.emoji,
          visibility: space.visibility,
          editMode: space.editMode,
          defaultLevel: space.defaultLevel ?? null,
        },
        { kind: 'copy', revisionId: space.revisionId },
      ),
    );
    const fresh = await loadSpace(em, caller, copy.id);
    return reply.status(201).send(presentSpace(fresh.space, fresh.role, urls));
  });

  app.post('/v1/spaces/:spaceId/move', {
    schema: { tags, summary: 'Move a space to another collection or position', params: SpaceParams, body: MoveBody, response: { 200: SpaceSchema, ...errors(403, 404, 409) } },
  }, async (request) => {
    const body = request.body as { parent?: string | null; position?: ContentPosition };
    const { em, caller } = request;
    const { space, role } = await loadSpace(em, caller, (request.params as SpaceId).spaceId);
    requireRole(role, 'admin', 'move this space');
    const parentId = body.parent === undefined ? (space.parentId ?? null) : body.parent;
    if (parentId !== null) await targetCollection(em, caller, parentId, space.organizationId, 'parent', 'move spaces into that collection');
    await relocateSpace(em, space, space.organizationId, parentId, body.position);
    const fresh = await loadSpace(em, caller, space.id);
    return presentSpace(fresh.space, fresh.role, urls);
  });

  app.post('/v1/spaces/:spaceId/transfer', {
    schema: { tags, summary: 'Transfer a space to another organization (and collection)', params: SpaceParams, body: TransferBody, response: { 200: SpaceSchema, ...errors(403, 404) } },
  }, async (request) => {
    const body = request.body as Static<typeof TransferBody>;
    const { em, caller } = request;
    const { space, role } = await loadSpace(em, caller, (request.params as SpaceId).spaceId);
    requireRole(role, 'admin', 'transfer this space');
    const target = await loadOrganization(em, caller, body.organization).catch(() => {
      throw notFound('organization: target organization');
    });
    requireRole(target.role, 'admin', 'transfer spaces into the target organization');
    if (body.collection !== undefined) {
      await targetCollection(em, caller, body.collection, body.organization, 'collection', 'add spaces to the target collection');
    }
    await relocateSpace(em, space, body.organization, body.collection ?? null);
    const fresh = await loadSpace(em, caller, space.id);
    return presentSpace(fresh.space, fresh.role, urls);
  });
}

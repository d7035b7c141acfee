import { ctxOf, type RoutePlugin } from '../context.ts';
import { sendJson } from '../json-answer.ts';
import { errors, ListQuery, NoContent } from '../schemas.ts';
import {
  CreateSpaceBody,
  GetSpaceQuery,
  MoveBody,
  OrgSpaceParams,
  SpaceList,
  SpaceParams,
  SpaceSchema,
  TransferBody,
  UpdateSpaceBody,
} from './schemas.ts';
import {
  createSpaceFor,
  deleteSpace,
  duplicateSpace,
  getSpaceAnswer,
  listSpaces,
  moveSpace,
  restoreDeletedSpace,
  transferSpace,
  updateSpace,
} from './service.ts';

/** Spaces: HTTP only. The rules are in ./service.ts. */
export const spaceRoutes: RoutePlugin = async (app) => {
  const tags = ['spaces'];

  app.get(
    '/v1/orgs/:organizationId/spaces',
    {
      schema: {
        tags,
        summary: 'List the spaces of an organization',
        params: OrgSpaceParams,
        querystring: ListQuery,
        response: { 200: SpaceList, ...errors(404) },
      },
    },
    async (request) => listSpaces(ctxOf(request), request.params.organizationId, request.query),
  );

  app.post(
    '/v1/orgs/:organizationId/spaces',
    {
      schema: {
        tags,
        summary: 'Create a space',
        params: OrgSpaceParams,
        body: CreateSpaceBody,
        response: { 201: SpaceSchema, ...errors(403, 404) },
      },
    },
    async (request, reply) => reply.status(201).send(await createSpaceFor(ctxOf(request), request.params.organizationId, request.body)),
  );

  app.get(
    '/v1/spaces/:spaceId',
    {
      schema: {
        tags,
        summary: 'Get a space',
        params: SpaceParams,
        querystring: GetSpaceQuery,
        response: { 200: SpaceSchema, ...errors(404) },
      },
      // A site visitor reads the spaces its site publishes; an installation's token the spaces it reaches.
      config: { visitor: true, installation: true },
    },
    // A member's answer is kept between writes (see getSpaceAnswer), serialized as this route serializes.
    async (request, reply) =>
      sendJson(request, reply, await getSpaceAnswer(ctxOf(request), request.params.spaceId, (space) => reply.serialize(space))),
  );

  app.patch(
    '/v1/spaces/:spaceId',
    {
      schema: {
        tags,
        summary: 'Update a space',
        params: SpaceParams,
        body: UpdateSpaceBody,
        response: { 200: SpaceSchema, ...errors(403, 404) },
      },
      // An installation's token edits the spaces it reaches when its scopes allow it (access.ts).
      config: { installation: true },
    },
    async (request) => updateSpace(ctxOf(request), request.params.spaceId, request.body),
  );

  app.delete(
    '/v1/spaces/:spaceId',
    {
      schema: {
        tags,
        summary: 'Delete a space (restorable during the retention period)',
        params: SpaceParams,
        response: { 205: NoContent, ...errors(403, 404) },
      },
    },
    async (request, reply) => {
      await deleteSpace(ctxOf(request), request.params.spaceId);
      return reply.status(205).send();
    },
  );

  app.post(
    '/v1/spaces/:spaceId/restore',
    {
      schema: { tags, summary: 'Restore a deleted space', params: SpaceParams, response: { 200: SpaceSchema, ...errors(403, 404) } },
    },
    async (request) => restoreDeletedSpace(ctxOf(request), request.params.spaceId),
  );

  app.post(
    '/v1/spaces/:spaceId/duplicate',
    {
      schema: { tags, summary: 'Duplicate a space', params: SpaceParams, response: { 201: SpaceSchema, ...errors(403, 404) } },
    },
    async (request, reply) => reply.status(201).send(await duplicateSpace(ctxOf(request), request.params.spaceId)),
  );

  app.post(
    '/v1/spaces/:spaceId/move',
    {
      schema: {
        tags,
        summary: 'Move a space to another collection or position',
        params: SpaceParams,
        body: MoveBody,
        response: { 200: SpaceSchema, ...errors(403, 404, 409) },
      },
    },
    async (request) => moveSpace(ctxOf(request), request.params.spaceId, request.body),
  );

  app.post(
    '/v1/spaces/:spaceId/transfer',
    {
      schema: {
        tags,
        summary: 'Transfer a space to another organization (and collection)',
        params: SpaceParams,
        body: TransferBody,
        response: { 200: SpaceSchema, ...errors(403, 404) },
      },
    },
    async (request) => transferSpace(ctxOf(request), request.params.spaceId, request.body),
  );
};

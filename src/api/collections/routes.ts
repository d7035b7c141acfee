import { ctxOf, type RoutePlugin } from '../context.ts';
import { errors, ListQuery, NoContent } from '../schemas.ts';
import { MoveBody, SpaceList } from '../spaces/schemas.ts';
import {
  CollectionList,
  CollectionParams,
  CollectionSchema,
  CreateCollectionBody,
  ListCollectionsQuery,
  OrgCollectionParams,
  TransferCollectionBody,
  UpdateCollectionBody,
} from './schemas.ts';
import {
  createCollection,
  deleteCollection,
  getCollection,
  listCollections,
  listCollectionSpaces,
  moveCollection,
  transferCollection,
  updateCollection,
} from './service.ts';

/** Collections: HTTP only. The rules are in ./service.ts. */
export const collectionRoutes: RoutePlugin = async (app) => {
  const tags = ['collections'];

  app.get(
    '/v1/orgs/:organizationId/collections',
    {
      schema: {
        tags,
        summary: 'List the collections of an organization',
        params: OrgCollectionParams,
        querystring: ListCollectionsQuery,
        response: { 200: CollectionList, ...errors(404) },
      },
    },
    async (request) => listCollections(ctxOf(request), request.params.organizationId, request.query),
  );

  app.post(
    '/v1/orgs/:organizationId/collections',
    {
      schema: {
        tags,
        summary: 'Create a collection',
        params: OrgCollectionParams,
        body: CreateCollectionBody,
        response: { 201: CollectionSchema, ...errors(403, 404) },
      },
    },
    async (request, reply) => reply.status(201).send(await createCollection(ctxOf(request), request.params.organizationId, request.body)),
  );

  app.get(
    '/v1/collections/:collectionId',
    {
      schema: { tags, summary: 'Get a collection', params: CollectionParams, response: { 200: CollectionSchema, ...errors(404) } },
    },
    async (request) => getCollection(ctxOf(request), request.params.collectionId),
  );

  app.patch(
    '/v1/collections/:collectionId',
    {
      schema: {
        tags,
        summary: 'Update a collection',
        params: CollectionParams,
        body: UpdateCollectionBody,
        response: { 200: CollectionSchema, ...errors(403, 404) },
      },
    },
    async (request) => updateCollection(ctxOf(request), request.params.collectionId, request.body),
  );

  app.delete(
    '/v1/collections/:collectionId',
    {
      schema: {
        tags,
        summary: 'Delete a collection; its spaces go through the restorable space deletion',
        params: CollectionParams,
        response: { 205: NoContent, ...errors(403, 404) },
      },
    },
    async (request, reply) => {
      await deleteCollection(ctxOf(request), request.params.collectionId);
      return reply.status(205).send();
    },
  );

  app.get(
    '/v1/collections/:collectionId/spaces',
    {
      schema: {
        tags,
        summary: 'List the spaces of a collection',
        params: CollectionParams,
        querystring: ListQuery,
        response: { 200: SpaceList, ...errors(404) },
      },
    },
    async (request) => listCollectionSpaces(ctxOf(request), request.params.collectionId, request.query),
  );

  app.post(
    '/v1/collections/:collectionId/move',
    {
      schema: {
        tags,
        summary: 'Move a collection to another parent or position',
        params: CollectionParams,
        body: MoveBody,
        response: { 200: CollectionSchema, ...errors(403, 404, 409) },
      },
    },
    async (request) => moveCollection(ctxOf(request), request.params.collectionId, request.body),
  );

  app.post(
    '/v1/collections/:collectionId/transfer',
    {
      schema: {
        tags,
        summary: 'Transfer a collection, with everything in it, to another organization',
        params: CollectionParams,
        body: TransferCollectionBody,
        response: { 200: CollectionSchema, ...errors(403, 404, 409) },
      },
    },
    async (request) => transferCollection(ctxOf(request), request.params.collectionId, request.body),
  );
};

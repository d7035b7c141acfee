import { ctxOf, type RoutePlugin } from '../context.ts';
import { errors } from '../schemas.ts';
import {
  ChangeRequestList,
  ChangeRequestParams,
  ChangeRequestSchema,
  ContentChangesAnswer,
  ContentChangesBody,
  ContentChangesQuery,
  CreateChangeRequestBody,
  ListChangeRequestsQuery,
  ListOrgChangeRequestsQuery,
  MergeResult,
  OrgChangeRequestsParams,
  SpaceParams,
  UpdateChangeRequestBody,
} from './schemas.ts';
import {
  createChangeRequest,
  editChangeRequestContent,
  getChangeRequest,
  listChangeRequests,
  listOrganizationChangeRequests,
  runChangeRequestMerge,
  updateChangeRequestFields,
} from './service.ts';

/** Change requests: HTTP only. The rules are in ./service.ts; their content is read through ../content. */
export const changeRequestRoutes: RoutePlugin = async (app) => {
  const tags = ['change requests'];

  app.get(
    '/v1/spaces/:spaceId/change-requests',
    {
      config: { installation: true },
      schema: {
        tags,
        summary: 'List change requests',
        params: SpaceParams,
        querystring: ListChangeRequestsQuery,
        response: { 200: ChangeRequestList, ...errors(404) },
      },
    },
    async (request) => listChangeRequests(ctxOf(request), request.params.spaceId, request.query),
  );

  app.get(
    '/v1/orgs/:organizationId/change-requests',
    {
      schema: {
        tags,
        summary: "List the change requests of the organization's spaces the caller reads",
        operationId: 'listChangeRequestsForOrganization',
        params: OrgChangeRequestsParams,
        querystring: ListOrgChangeRequestsQuery,
        response: { 200: ChangeRequestList, ...errors(404) },
      },
    },
    async (request) => listOrganizationChangeRequests(ctxOf(request), request.params.organizationId, request.query),
  );

  app.post(
    '/v1/spaces/:spaceId/change-requests',
    {
      // An installation's token with `space:content:write` opens change requests as its integration.
      config: { installation: true },
      schema: {
        tags,
        summary: 'Create a change request from the current content',
        params: SpaceParams,
        body: CreateChangeRequestBody,
        response: { 201: ChangeRequestSchema, ...errors(403, 404) },
      },
    },
    async (request, reply) => reply.status(201).send(await createChangeRequest(ctxOf(request), request.params.spaceId, request.body)),
  );

  app.get(
    '/v1/spaces/:spaceId/change-requests/:changeRequestId',
    {
      // A site's preview shows a change request (`~/changes/<id>/`) with a preview's token.
      config: { visitor: 'preview', installation: true },
      schema: {
        tags,
        summary: 'Get a change request by id or number',
        params: ChangeRequestParams,
        response: { 200: ChangeRequestSchema, ...errors(404) },
      },
    },
    async (request) => getChangeRequest(ctxOf(request), request.params.spaceId, request.params.changeRequestId),
  );

  app.patch(
    '/v1/spaces/:spaceId/change-requests/:changeRequestId',
    {
      config: { installation: true },
      schema: {
        tags,
        summary: 'Update the subject or status',
        params: ChangeRequestParams,
        body: UpdateChangeRequestBody,
        response: { 200: ChangeRequestSchema, ...errors(403, 404, 409) },
      },
    },
    async (request) => updateChangeRequestFields(ctxOf(request), request.params.spaceId, request.params.changeRequestId, request.body),
  );

  app.post(
    '/v1/spaces/:spaceId/change-requests/:changeRequestId/content',
    {
      config: { installation: true },
      schema: {
        tags,
        summary: 'Apply a batch of up to 50 content operations as one new revision',
        params: ChangeRequestParams,
        querystring: ContentChangesQuery,
        body: ContentChangesBody,
        response: { 200: ContentChangesAnswer, ...errors(403, 404, 409) },
      },
    },
    async (request) => {
      const { spaceId, changeRequestId } = request.params;
      return editChangeRequestContent(ctxOf(request), spaceId, changeRequestId, request.body, request.query.compat !== false);
    },
  );

  app.post(
    '/v1/spaces/:spaceId/change-requests/:changeRequestId/merge',
    {
      schema: {
        tags,
        summary: 'Merge the change request into the space',
        params: ChangeRequestParams,
        response: { 200: MergeResult('merge'), ...errors(403, 404, 409) },
      },
    },
    async (request) => runChangeRequestMerge(ctxOf(request), 'merge', request.params.spaceId, request.params.changeRequestId),
  );

  app.post(
    '/v1/spaces/:spaceId/change-requests/:changeRequestId/update',
    {
      schema: {
        tags,
        summary: 'Pull the space content into the change request',
        params: ChangeRequestParams,
        response: { 200: MergeResult('update'), ...errors(403, 404, 409) },
      },
    },
    async (request) => runChangeRequestMerge(ctxOf(request), 'update', request.params.spaceId, request.params.changeRequestId),
  );
};

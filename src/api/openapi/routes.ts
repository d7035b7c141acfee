import { ctxOf, type RoutePlugin } from '../context.ts';
import { errors, ListQuery, NoContent } from '../schemas.ts';
import {
  CreateSpecBody,
  OpenApiSpecContentSchema,
  OpenApiSpecList,
  OpenApiSpecSchema,
  OpenApiSpecVersionList,
  OpenApiSpecVersionSchema,
  OrgParams,
  PutSpecBody,
  SpecParams,
  VersionParams,
} from './schemas.ts';
import { createSpec, deleteSpec, getSpec, getVersion, getVersionContent, listSpecs, listVersions, putSpec } from './service.ts';

/** OpenAPI specs of an organization: HTTP only. The rules are in ./service.ts. */
export const openapiRoutes: RoutePlugin = async (app) => {
  // Read once at start: the largest text source accepted is the largest document the fetcher takes.
  const maxTextBytes = app.deps.config.fetch.maxBytes;
  const tags = ['openapi'];

  app.get(
    '/v1/orgs/:organizationId/openapi',
    {
      schema: {
        tags,
        summary: 'List the OpenAPI specs of an organization',
        params: OrgParams,
        querystring: ListQuery,
        response: { 200: OpenApiSpecList, ...errors(403, 404) },
      },
    },
    async (request) => listSpecs(ctxOf(request), request.params.organizationId, request.query),
  );

  app.post(
    '/v1/orgs/:organizationId/openapi',
    {
      schema: {
        tags,
        summary: 'Create an OpenAPI spec from a URL or a text; processing starts at once (`processingState` is `pending`)',
        params: OrgParams,
        body: CreateSpecBody,
        response: { 201: OpenApiSpecSchema, ...errors(403, 404, 409, 503) },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await createSpec(ctxOf(request), request.params.organizationId, request.body, maxTextBytes)),
  );

  app.get(
    '/v1/orgs/:organizationId/openapi/:specSlug',
    {
      schema: { tags, summary: 'Get an OpenAPI spec', params: SpecParams, response: { 200: OpenApiSpecSchema, ...errors(403, 404) } },
    },
    async (request) => getSpec(ctxOf(request), request.params),
  );

  app.put(
    '/v1/orgs/:organizationId/openapi/:specSlug',
    {
      schema: {
        tags,
        summary: 'Create an OpenAPI spec under this slug, or replace its source; processing starts at once',
        params: SpecParams,
        body: PutSpecBody,
        response: { 200: OpenApiSpecSchema, 201: OpenApiSpecSchema, ...errors(403, 404, 503) },
      },
    },
    async (request, reply) => {
      const { spec, created } = await putSpec(ctxOf(request), request.params, request.body, maxTextBytes);
      return reply.status(created ? 201 : 200).send(spec);
    },
  );

  app.delete(
    '/v1/orgs/:organizationId/openapi/:specSlug',
    {
      schema: {
        tags,
        summary: 'Delete an OpenAPI spec with its versions and refresh schedule (205); 204 when there was no such spec',
        params: SpecParams,
        response: { 204: NoContent, 205: NoContent, ...errors(403, 404) },
      },
    },
    async (request, reply) => reply.status((await deleteSpec(ctxOf(request), request.params)) ? 205 : 204).send(),
  );

  app.get(
    '/v1/orgs/:organizationId/openapi/:specSlug/versions',
    {
      schema: {
        tags,
        summary: 'List the versions of an OpenAPI spec, oldest first',
        params: SpecParams,
        querystring: ListQuery,
        response: { 200: OpenApiSpecVersionList, ...errors(403, 404) },
      },
    },
    async (request) => listVersions(ctxOf(request), request.params, request.query),
  );

  app.get(
    '/v1/orgs/:organizationId/openapi/:specSlug/versions/latest',
    {
      schema: {
        tags,
        summary: 'Get the latest version of an OpenAPI spec',
        params: SpecParams,
        response: { 200: OpenApiSpecVersionSchema, ...errors(403, 404) },
      },
    },
    async (request) => getVersion(ctxOf(request), request.params, 'latest'),
  );

  app.get(
    '/v1/orgs/:organizationId/openapi/:specSlug/versions/latest/content',
    {
      config: { visitor: true },
      schema: {
        tags,
        summary: 'Get the content of the latest version of an OpenAPI spec',
        params: SpecParams,
        response: { 200: OpenApiSpecContentSchema, ...errors(403, 404) },
      },
    },
    async (request) => getVersionContent(ctxOf(request), request.params, 'latest'),
  );

  app.get(
    '/v1/orgs/:organizationId/openapi/:specSlug/versions/:versionId',
    {
      schema: {
        tags,
        summary: 'Get a version of an OpenAPI spec',
        params: VersionParams,
        response: { 200: OpenApiSpecVersionSchema, ...errors(403, 404) },
      },
    },
    async (request) => getVersion(ctxOf(request), request.params, request.params.versionId),
  );

  app.get(
    '/v1/orgs/:organizationId/openapi/:specSlug/versions/:versionId/content',
    {
      schema: {
        tags,
        summary: 'Get the content of a version of an OpenAPI spec',
        params: VersionParams,
        response: { 200: OpenApiSpecContentSchema, ...errors(403, 404) },
      },
    },
    async (request) => getVersionContent(ctxOf(request), request.params, request.params.versionId),
  );
};

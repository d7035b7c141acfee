import type { Static } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { OpenApiSpec, OpenApiSpecVersion } from '../../db/openapi-entities.ts';
import type { Em } from '../../db/orm.ts';
import type { Role } from '../../domain/roles.ts';
import { loadOrganization, requireRole } from '../access.ts';
import type { Caller } from '../context.ts';
import { notFound } from '../errors.ts';
import { paginate } from '../pagination.ts';
import { errors, ListQuery, NoContent } from '../schemas.ts';
import { urlsFor } from '../urls.ts';
import { presentContent, presentSpec, presentVersion } from './present.ts';
import {
  CreateSpecBody, OpenApiSpecContentSchema, OpenApiSpecList, OpenApiSpecSchema, OpenApiSpecVersionList, OpenApiSpecVersionSchema,
  OrgParams, PutSpecBody, SpecParams, VersionParams,
} from './schemas.ts';
import { deleteSpec, readSource, saveSpec } from './service.ts';

type SpecPath = Static<typeof SpecParams>;
type VersionPath = Static<typeof VersionParams>;

/** The caller's organization role, checked to be at least `min` (404 for non-members, 403 below `min`). */
async function orgAccess(em: Em, caller: Caller, organizationId: string, min: Role, action: string): Promise<Role | null> {
  const { role } = await loadOrganization(em, caller, organizationId);
  requireRole(role, min, action);
  return role;
}

async function loadSpec(em: Em, caller: Caller, params: SpecPath, min: Role = 'read', action = 'view OpenAPI specs') {
  const role = await orgAccess(em, caller, params.organizationId, min, action);
  const spec = await em.findOne(OpenApiSpec, { organizationId: params.organizationId, slug: params.specSlug });
  if (!spec) throw notFound('OpenAPI spec');
  return { spec, role };
}

async function loadVersion(em: Em, spec: OpenApiSpec, versionId: string | 'latest', withContent: boolean) {
  const id = versionId === 'latest' ? spec.lastVersionId : versionId;
  if (!id) throw notFound('OpenAPI spec version');
  const version = await em.findOne(OpenApiSpecVersion, { id, specId: spec.id }, withContent ? { populate: ['filesystem'] } : {});
  if (!version) throw notFound('OpenAPI spec version');
  return version;
}

export async function openapiRoutes(app: FastifyInstance) {
  const { deps } = app;
  const urls = urlsFor(deps.config.publicUrl);
  const maxTextBytes = deps.config.fetch.maxBytes;
  const tags = ['openapi'];
  const base = '/v1/orgs/:organizationId/openapi';

  app.get(base, {
    schema: { tags, summary: 'List the OpenAPI specs of an organization', params: OrgParams, querystring: ListQuery, response: { 200: OpenApiSpecList, ...errors(403, 404) } },
  }, async (request) => {
    const { organizationId } = request.params as Static<typeof OrgParams>;
    const { em, caller } = request;
    const role = await orgAccess(em, caller, organizationId, 'read', 'view OpenAPI specs');
    return paginate(em, OpenApiSpec, { organizationId }, [{ field: 'createdAt', kind: 'date' }, { field: 'id', kind: 'string' }], request.query as object, (s) => presentSpec(s, role, urls));
  });

  app.post(base, {
    schema: {
      tags,
      summary: 'Create an OpenAPI spec from a URL or a text; processing starts at once (`processingState` is `pending`)',
      params: OrgParams,
      body: CreateSpecBody,
      response: { 201: OpenApiSpecSchema, ...errors(403, 404, 409, 503) },
    },
  }, async (request, reply) => {
    const { organizationId } = request.params as Static<typeof OrgParams>;
    const body = request.body as Static<typeof CreateSpecBody>;
    const { em, caller } = request;
    const role = await orgAccess(em, caller, organizationId, 'create', 'create OpenAPI specs');
    const source = readSource(body.source, maxTextBytes);
    const { spec } = await saveSpec(deps, em, caller, organizationId, body.slug, source, 'create');
    return reply.status(201).send(presentSpec(spec, role, urls));
  });

  app.get(`${base}/:specSlug`, {
    schema: { tags, summary: 'Get an OpenAPI spec', params: SpecParams, response: { 200: OpenApiSpecSchema, ...errors(403, 404) } },
  }, async (request) => {
    const { spec, role } = await loadSpec(request.em, request.caller, request.params as SpecPath);
    return presentSpec(spec, role, urls);
  });

  app.put(`${base}/:specSlug`, {
    schema: {
      tags,
      summary: 'Create an OpenAPI spec under this slug, or replace its source; processing starts at once',
      params: SpecParams,
      body: PutSpecBody,
      response: { 200: OpenApiSpecSchema, 201: OpenApiSpecSchema, ...errors(403, 404, 503) },
    },
  }, async (request, reply) => {
    const params = request.params as SpecPath;
    const body = request.body as Static<typeof PutSpecBody>;
    const { em, caller } = request;
    const role = await orgAccess(em, caller, params.organizationId, 'create', 'create or update OpenAPI specs');
    const source = readSource(body.source, maxTextBytes);
    const { spec, created } = await saveSpec(deps, em, caller, params.organizationId, params.specSlug, source, 'upsert');
    return reply.status(created ? 201 : 200).send(presentSpec(spec, role, urls));
  });

  app.delete(`${base}/:specSlug`, {
    schema: {
      tags,
      summary: 'Delete an OpenAPI spec with its versions and refresh schedule (205); 204 when there was no such spec',
      params: SpecParams,
      response: { 204: NoContent, 205: NoContent, ...errors(403, 404) },
    },
  }, async (request, reply) => {
    const params = request.params as SpecPath;
    const { em, caller } = request;
    await orgAccess(em, caller, params.organizationId, 'create', 'delete OpenAPI specs');
    const spec = await em.findOne(OpenApiSpec, { organizationId: params.organizationId, slug: params.specSlug });
    if (!spec) return reply.status(204).send();
    await deleteSpec(deps, em, spec);
    return reply.status(205).send();
  });

  app.get(`${base}/:specSlug/versions`, {
    schema: { tags, summary: 'List the versions of an OpenAPI spec, oldest first', params: SpecParams, querystring: ListQuery, response: { 200: OpenApiSpecVersionList, ...errors(403, 404) } },
  }, async (request) => {
    const { em, caller } = request;
    const { spec } = await loadSpec(em, caller, request.params as SpecPath);
    return paginate(em, OpenApiSpecVersion, { specId: spec.id }, [{ field: 'createdAt', kind: 'date' }, { field: 'id', kind: 'string' }], request.query as object, (v) => presentVersion(spec, v, urls));
  });

  app.get(`${base}/:specSlug/versions/latest`, {
    schema: { tags, summary: 'Get the latest version of an OpenAPI spec', params: SpecParams, response: { 200: OpenApiSpecVersionSchema, ...errors(403, 404) } },
  }, async (request) => {
    const { em, caller } = request;
    const { spec } = await loadSpec(em, caller, request.params as SpecPath);
    return presentVersion(spec, await loadVersion(em, spec, 'latest', false), urls);
  });

  app.get(`${base}/:specSlug/versions/latest/content`, {
    schema: { tags, summary: 'Get the content of the latest version of an OpenAPI spec', params: SpecParams, response: { 200: OpenApiSpecContentSchema, ...errors(403, 404) } },
  }, async (request) => {
    const { em, caller } = request;
    const { spec } = await loadSpec(em, caller, request.params as SpecPath);
    const version = await loadVersion(em, spec, 'latest', true);
    return presentContent(spec, version, version.filesystem as unknown as string, urls);
  });

  app.get(`${base}/:specSlug/versions/:versionId`, {
    schema: { tags, summary: 'Get a version of an OpenAPI spec', params: VersionParams, response: { 200: OpenApiSpecVersionSchema, ...errors(403, 404) } },
  }, async (request) => {
    const params = request.params as VersionPath;
    const { em, caller } = request;
    const { spec } = await loadSpec(em, caller, params);
    return presentVersion(spec, await loadVersion(em, spec, params.versionId, false), urls);
  });

  app.get(`${base}/:specSlug/versions/:versionId/content`, {
    schema: { tags, summary: 'Get the content of a version of an OpenAPI spec', params: VersionParams, response: { 200: OpenApiSpecContentSchema, ...errors(403, 404) } },
  }, async (request) => {
    const params = request.params as VersionPath;
    const { em, caller } = request;
    const { spec } = await loadSpec(em, caller, params);
    const version = await loadVersion(em, spec, params.versionId, true);
    return presentContent(spec, version, version.filesystem as unknown as string, urls);
  });
}

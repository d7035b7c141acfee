import { ctxOf, type RoutePlugin } from '../../context.ts';
import { errors, NoContent } from '../../schemas.ts';
import { SiteParams } from '../schemas.ts';
import {
  BulkRedirectsBody,
  BulkRedirectsResult,
  CreateRedirectBody,
  ListRedirectsQuery,
  RedirectBySourceQuery,
  RedirectLookup,
  RedirectParams,
  SiteRedirectList,
  SiteRedirectSchema,
  UpdateRedirectBody,
} from './schemas.ts';
import { bulkUpsertRedirects, createRedirect, deleteRedirect, listRedirects, redirectBySource, updateRedirect } from './service.ts';

/** Site redirects: HTTP only. The rules are in ./service.ts. */
export const siteRedirectRoutes: RoutePlugin = async (app) => {
  const tags = ['sites'];
  const site = '/v1/orgs/:organizationId/sites/:siteId';
  const base = `${site}/redirects`;

  app.get(
    base,
    {
      schema: {
        tags,
        summary: 'List the redirects of a site',
        params: SiteParams,
        querystring: ListRedirectsQuery,
        response: { 200: SiteRedirectList, ...errors(403, 404) },
      },
    },
    async (request) => listRedirects(ctxOf(request), request.params.organizationId, request.params.siteId, request.query),
  );

  app.post(
    base,
    {
      schema: {
        tags,
        summary: 'Create a redirect of a site',
        params: SiteParams,
        body: CreateRedirectBody,
        response: { 201: SiteRedirectSchema, ...errors(403, 404, 409) },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await createRedirect(ctxOf(request), request.params.organizationId, request.params.siteId, request.body)),
  );

  app.put(
    base,
    {
      schema: {
        tags,
        summary: 'Create, update, delete or publish redirects of a site by source',
        params: SiteParams,
        body: BulkRedirectsBody,
        response: { 200: BulkRedirectsResult, ...errors(403, 404) },
      },
    },
    async (request) => bulkUpsertRedirects(ctxOf(request), request.params.organizationId, request.params.siteId, request.body),
  );

  app.patch(
    `${base}/:siteRedirectId`,
    {
      schema: {
        tags,
        summary: 'Update a redirect of a site',
        params: RedirectParams,
        body: UpdateRedirectBody,
        response: { 200: SiteRedirectSchema, ...errors(403, 404, 409) },
      },
    },
    async (request) =>
      updateRedirect(ctxOf(request), request.params.organizationId, request.params.siteId, request.params.siteRedirectId, request.body),
  );

  app.delete(
    `${base}/:siteRedirectId`,
    {
      schema: {
        tags,
        summary: 'Delete a redirect of a site (204 when there was none)',
        params: RedirectParams,
        response: { 204: NoContent, 205: NoContent, ...errors(403, 404) },
      },
    },
    async (request, reply) => {
      const deleted = await deleteRedirect(
        ctxOf(request),
        request.params.organizationId,
        request.params.siteId,
        request.params.siteRedirectId,
      );
      return reply.status(deleted ? 205 : 204).send();
    },
  );

  app.get(
    `${site}/redirect`,
    {
      config: { visitor: true },
      schema: {
        tags,
        summary: 'Find the live redirect a path of the published site follows',
        params: SiteParams,
        querystring: RedirectBySourceQuery,
        response: { 200: RedirectLookup, ...errors(404) },
      },
    },
    async (request) =>
      redirectBySource(ctxOf(request), request.params.organizationId, request.params.siteId, request.query.source, request.query.shareKey),
  );
};

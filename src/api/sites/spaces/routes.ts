import { ctxOf, type RoutePlugin } from '../../context.ts';
import { errors, NoContent } from '../../schemas.ts';
import { SiteParams, SiteSpaceList, SiteSpaceSchema } from '../schemas.ts';
import { AddSiteSpaceBody, ListSiteSpacesQuery, MoveSiteSpaceBody, SiteSpaceParams, UpdateSiteSpaceBody } from './schemas.ts';
import { addSiteSpace, deleteSiteSpace, listSiteSpaces, moveSiteSpace, updateSiteSpace } from './service.ts';

/** Site-spaces: HTTP only. The rules are in ./service.ts. */
export const siteSpaceRoutes: RoutePlugin = async (app) => {
  const tags = ['sites'];
  const base = '/v1/orgs/:organizationId/sites/:siteId/site-spaces';

  app.get(
    base,
    {
      schema: {
        tags,
        summary: 'List the site-spaces of a site',
        params: SiteParams,
        querystring: ListSiteSpacesQuery,
        response: { 200: SiteSpaceList, ...errors(404) },
      },
    },
    async (request) => listSiteSpaces(ctxOf(request), request.params.organizationId, request.params.siteId, request.query),
  );

  app.post(
    base,
    {
      schema: {
        tags,
        summary: 'Add a space to a site',
        params: SiteParams,
        body: AddSiteSpaceBody,
        response: { 201: SiteSpaceSchema, ...errors(403, 404) },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await addSiteSpace(ctxOf(request), request.params.organizationId, request.params.siteId, request.body)),
  );

  app.patch(
    `${base}/:siteSpaceId`,
    {
      schema: {
        tags,
        summary: 'Update a site-space',
        params: SiteSpaceParams,
        body: UpdateSiteSpaceBody,
        response: { 200: SiteSpaceSchema, ...errors(403, 404, 409) },
      },
    },
    async (request) =>
      updateSiteSpace(ctxOf(request), request.params.organizationId, request.params.siteId, request.params.siteSpaceId, request.body),
  );

  app.delete(
    `${base}/:siteSpaceId`,
    {
      schema: { tags, summary: 'Remove a space from a site', params: SiteSpaceParams, response: { 205: NoContent, ...errors(403, 404) } },
    },
    async (request, reply) => {
      await deleteSiteSpace(ctxOf(request), request.params.organizationId, request.params.siteId, request.params.siteSpaceId);
      return reply.status(205).send();
    },
  );

  app.post(
    `${base}/:siteSpaceId/move`,
    {
      schema: {
        tags,
        summary: 'Move a site-space among its siblings',
        params: SiteSpaceParams,
        body: MoveSiteSpaceBody,
        response: { 200: SiteSpaceSchema, ...errors(403, 404) },
      },
    },
    async (request) =>
      moveSiteSpace(ctxOf(request), request.params.organizationId, request.params.siteId, request.params.siteSpaceId, request.body),
  );
};

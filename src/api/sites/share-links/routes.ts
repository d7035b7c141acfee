import { ctxOf, type RoutePlugin } from '../../context.ts';
import { errors, ListQuery, NoContent } from '../../schemas.ts';
import { ShareLinkList, ShareLinkSchema, SiteParams } from '../schemas.ts';
import { CreateShareLinkBody, ShareLinkParams, UpdateShareLinkBody } from './schemas.ts';
import { createShareLink, deleteShareLink, listShareLinks, updateShareLink } from './service.ts';

/** Site share links: HTTP only. The rules are in ./service.ts. */
export const siteShareLinkRoutes: RoutePlugin = async (app) => {
  const tags = ['sites'];
  const base = '/v1/orgs/:organizationId/sites/:siteId/share-links';

  app.get(
    base,
    {
      schema: {
        tags,
        summary: 'List the share links of a site',
        params: SiteParams,
        querystring: ListQuery,
        response: { 200: ShareLinkList, ...errors(403, 404) },
      },
    },
    async (request) => listShareLinks(ctxOf(request), request.params.organizationId, request.params.siteId, request.query),
  );

  app.post(
    base,
    {
      schema: {
        tags,
        summary: 'Create a share link (its key is answered only this once)',
        params: SiteParams,
        body: CreateShareLinkBody,
        response: { 201: ShareLinkSchema, ...errors(403, 404) },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await createShareLink(ctxOf(request), request.params.organizationId, request.params.siteId, request.body)),
  );

  app.patch(
    `${base}/:shareLinkId`,
    {
      schema: {
        tags,
        summary: 'Rename, activate or deactivate a share link',
        params: ShareLinkParams,
        body: UpdateShareLinkBody,
        response: { 200: ShareLinkSchema, ...errors(403, 404) },
      },
    },
    async (request) =>
      updateShareLink(ctxOf(request), request.params.organizationId, request.params.siteId, request.params.shareLinkId, request.body),
  );

  app.delete(
    `${base}/:shareLinkId`,
    {
      schema: { tags, summary: 'Delete a share link', params: ShareLinkParams, response: { 205: NoContent, ...errors(403, 404) } },
    },
    async (request, reply) => {
      await deleteShareLink(ctxOf(request), request.params.organizationId, request.params.siteId, request.params.shareLinkId);
      return reply.status(205).send();
    },
  );
};

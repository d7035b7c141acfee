import { ctxOf, type RoutePlugin } from '../context.ts';
import { FileParams, PageParams, ScopeParams, type ScopeOptions } from '../content/schemas.ts';
import { errors } from '../schemas.ts';
import { BacklinkList, BacklinksQuery, LinkList, LinksQuery } from './schemas.ts';
import { listBacklinks, listLinks } from './service.ts';

/**
 * Links of the content and backlinks of its files: HTTP only, the rules are in ./service.ts.
 * Registered twice (src/api/app.ts): under `/v1/spaces/:spaceId` and under
 * `/v1/spaces/:spaceId/change-requests/:changeRequestId` (`changeRequest: true`).
 */
export const linkRoutes: RoutePlugin<ScopeOptions> = async (app, { changeRequest }) => {
  const tags = [changeRequest ? 'change-request content' : 'space content'];

  app.get(
    '/links',
    {
      schema: {
        tags,
        summary: 'List the links of every page, with their status',
        params: ScopeParams(changeRequest),
        querystring: LinksQuery,
        response: { 200: LinkList, ...errors(403, 404) },
      },
    },
    async (request) => listLinks(ctxOf(request), request.params, null, request.query),
  );

  app.get(
    '/content/page/:pageId/links',
    {
      schema: {
        tags,
        summary: 'List the links of a page, with their status',
        params: PageParams(changeRequest),
        querystring: LinksQuery,
        response: { 200: LinkList, ...errors(403, 404) },
      },
    },
    async (request) => listLinks(ctxOf(request), request.params, request.params.pageId, request.query),
  );

  app.get(
    '/content/files/:fileId/backlinks',
    {
      schema: {
        tags,
        summary: 'List the pages linking to a file',
        params: FileParams(changeRequest),
        querystring: BacklinksQuery,
        response: { 200: BacklinkList, ...errors(403, 404) },
      },
    },
    async (request) => listBacklinks(ctxOf(request), request.params, request.query),
  );
};

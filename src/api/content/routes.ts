import { ctxOf, type RoutePlugin } from '../context.ts';
import { errors } from '../schemas.ts';
import { ContentQuery, FileParams, FilesQuery, PageParams, PageQuery, ScopeParams, type ScopeOptions } from './schemas.ts';
import { downloadFile, getFile, getPage, getRevision, listFiles, listPages } from './service.ts';

/**
 * Reads of a space's current content and of a change request's content: HTTP only, the rules are
 * in ./service.ts. Registered twice (src/api/app.ts): under `/v1/spaces/:spaceId` and under
 * `/v1/spaces/:spaceId/change-requests/:changeRequestId` (`changeRequest: true`).
 */
export const contentRoutes: RoutePlugin<ScopeOptions> = async (app, { changeRequest }) => {
  const tags = [changeRequest ? 'change-request content' : 'space content'];
  const params = ScopeParams(changeRequest);

  app.get(
    '/content',
    {
      schema: { tags, summary: 'Get the revision', params, querystring: ContentQuery, response: errors(404) },
    },
    async (request) => getRevision(ctxOf(request), request.params, request.query),
  );

  app.get(
    '/content/pages',
    {
      schema: { tags, summary: 'List the pages (as a tree)', params, querystring: ContentQuery, response: errors(404) },
    },
    async (request) => listPages(ctxOf(request), request.params, request.query),
  );

  app.get(
    '/content/page/:pageId',
    {
      schema: { tags, summary: 'Get a page', params: PageParams(changeRequest), querystring: PageQuery, response: errors(404) },
    },
    async (request) => getPage(ctxOf(request), request.params, request.query),
  );

  app.get(
    '/content/files',
    {
      schema: { tags, summary: 'List the files', params, querystring: FilesQuery, response: errors(404) },
    },
    async (request) => listFiles(ctxOf(request), request.params, request.query),
  );

  app.get(
    '/content/files/:fileId',
    {
      schema: { tags, summary: 'Get a file', params: FileParams(changeRequest), querystring: ContentQuery, response: errors(404) },
    },
    async (request) => getFile(ctxOf(request), request.params, request.query),
  );

  app.get(
    '/content/files/:fileId/download',
    {
      schema: { tags, summary: 'Download the bytes of a file', params: FileParams(changeRequest), response: errors(404) },
    },
    async (request, reply) => {
      const download = await downloadFile(ctxOf(request), request.params);
      if ('redirect' in download) return reply.header('cache-control', 'private, no-store').redirect(download.redirect, 302);
      return reply
        .type(download.file.contentType)
        .header('content-length', download.blob.size)
        .header('content-disposition', download.disposition)
        .header('x-content-type-options', 'nosniff')
        .send(download.blob.body);
    },
  );
};

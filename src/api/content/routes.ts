import type { FastifyReply } from 'fastify';
import { ctxOf, type RoutePlugin } from '../context.ts';
import { errors } from '../schemas.ts';
import { sendJson } from '../json-answer.ts';
import { RevisionSchema } from '../revisions/schemas.ts';
import {
  ContentQuery,
  DownloadRedirect,
  FileBytes,
  FileParams,
  FilesQuery,
  PageParams,
  PageQuery,
  RevisionFile,
  RevisionFileList,
  RevisionPage,
  RevisionPages,
  ScopeParams,
  SignedFileParams,
  SignedFileQuery,
  type ScopeOptions,
} from './schemas.ts';
import { downloadFile, downloadSignedFile, getFile, getPage, getRevision, listFiles, listPages } from './service.ts';

/**
 * Reads of a space's current content and of a change request's content: HTTP only, the rules are
 * in ./service.ts. Registered twice (src/api/app.ts): under `/v1/spaces/:spaceId` and under
 * `/v1/spaces/:spaceId/change-requests/:changeRequestId` (`changeRequest: true`).
 */
export const contentRoutes: RoutePlugin<ScopeOptions> = async (app, { changeRequest }) => {
  const tags = [changeRequest ? 'change-request content' : 'space content'];
  const params = ScopeParams(changeRequest);
  // A site visitor reads a published space's content; never a change request's. An installation's
  // token reads both with its integration's content scope (access.ts requireContentScope).
  const config = { visitor: changeRequest ? ('preview' as const) : true, installation: true };

  app.get(
    '/content',
    {
      schema: { tags, summary: 'Get the revision', params, querystring: ContentQuery, response: { 200: RevisionSchema, ...errors(404) } },
      config,
    },
    // A prepared answer: serialized once per revision (see revisionAnswer).
    async (request, reply) => sendJson(request, reply, await getRevision(ctxOf(request), request.params, request.query)),
  );

  app.get(
    '/content/pages',
    {
      schema: {
        tags,
        summary: 'List the pages (as a tree)',
        params,
        querystring: ContentQuery,
        response: { 200: RevisionPages, ...errors(404) },
      },
      config,
    },
    async (request) => listPages(ctxOf(request), request.params, request.query),
  );

  app.get(
    '/content/page/:pageId',
    {
      schema: {
        tags,
        summary: 'Get a page',
        params: PageParams(changeRequest),
        querystring: PageQuery,
        response: { 200: RevisionPage, ...errors(404) },
      },
      config,
    },
    async (request) => getPage(ctxOf(request), request.params, request.query),
  );

  app.get(
    '/content/files',
    {
      schema: { tags, summary: 'List the files', params, querystring: FilesQuery, response: { 200: RevisionFileList, ...errors(404) } },
      config,
    },
    async (request) => listFiles(ctxOf(request), request.params, request.query),
  );

  app.get(
    '/content/files/:fileId',
    {
      schema: {
        tags,
        summary: 'Get a file',
        params: FileParams(changeRequest),
        querystring: ContentQuery,
        response: { 200: RevisionFile, ...errors(404) },
      },
      config,
    },
    async (request) => getFile(ctxOf(request), request.params, request.query),
  );

  app.get(
    '/content/files/:fileId/download',
    {
      schema: {
        tags,
        summary: 'Download the bytes of a file',
        params: FileParams(changeRequest),
        response: { 200: FileBytes, 302: DownloadRedirect, ...errors(404) },
      },
      config,
    },
    async (request, reply) => sendDownload(reply, await downloadFile(ctxOf(request), request.params)),
  );
};

type Download = Awaited<ReturnType<typeof downloadFile>>;

function sendDownload(reply: FastifyReply, download: Download) {
  if ('redirect' in download) return reply.header('cache-control', 'private, no-store').redirect(download.redirect, 302);
  return reply
    .type(download.file.contentType)
    .header('content-length', download.blob.size)
    .header('content-disposition', download.disposition)
    .header('x-content-type-options', 'nosniff')
    .send(download.blob.body);
}

/**
 * A file's bytes through a signed, expiring link (the `downloadURL` a site visitor's answers
 * carry): no token, so a browser loads it as it is; the signature is the credential. Outside /v1,
 * where every operation needs a bearer token.
 */
export const signedFileRoutes: RoutePlugin = async (app) => {
  app.get(
    '/files/:spaceId/:fileId/download',
    {
      schema: {
        tags: ['space content'],
        summary: 'Download the bytes of a file through a signed link',
        security: [],
        params: SignedFileParams,
        querystring: SignedFileQuery,
        response: { 200: FileBytes, 302: DownloadRedirect, ...errors(400, 403, 404) },
      },
      config: { public: true },
    },
    async (request, reply) => sendDownload(reply, await downloadSignedFile(ctxOf(request), request.params, request.query)),
  );
};

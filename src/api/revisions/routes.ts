import { PageParams, type ScopeOptions } from '../content/schemas.ts';
import { ctxOf, type RoutePlugin } from '../context.ts';
import { errors } from '../schemas.ts';
import { sendJson } from '../json-answer.ts';
import {
  ChangeRequestChangesParams,
  ChangeRequestChangesQuery,
  ContentReusableContentParams,
  DocumentQuery,
  JsonDocument,
  RevisionFile,
  RevisionFileList,
  RevisionFileParams,
  RevisionFilesQuery,
  RevisionPage,
  RevisionPageMetaLinks,
  RevisionPageParams,
  RevisionPages,
  RevisionPageQuery,
  RevisionChangesQuery,
  RevisionParams,
  RevisionPathParams,
  RevisionNestedPathParams,
  RevisionQuery,
  RevisionReusableContent,
  RevisionReusableContentParams,
  RevisionSchema,
  RevisionSemanticChanges,
} from './schemas.ts';
import {
  getChangeRequestChanges,
  getContentReusableContent,
  getRevisionById,
  getRevisionFile,
  getRevisionPage,
  getRevisionPageByPath,
  getRevisionPageDocument,
  getRevisionReusableContent,
  getRevisionReusableContentDocument,
  getRevisionSemanticChanges,
  listContentPageMetaLinks,
  listRevisionFiles,
  listRevisionPageMetaLinks,
  listRevisionPages,
} from './service.ts';

/**
 * Reads of a space's revisions by id (`/v1/spaces/:spaceId/revisions/:revisionId/...`): HTTP
 * only, the rules are in ./service.ts. Every read of published content here also admits a site
 * visitor's token; the semantic changes (what a change-request preview shows) do not.
 */
export const revisionRoutes: RoutePlugin = async (app) => {
  const tags = ['revisions'];
  const config = { visitor: true, installation: true };

  app.get(
    '/revisions/:revisionId',
    {
      config,
      schema: {
        tags,
        summary: 'Get a revision',
        params: RevisionParams,
        querystring: RevisionQuery,
        response: { 200: RevisionSchema, ...errors(404) },
      },
    },
    // A prepared answer: serialized once per revision (see revisionAnswer).
    async (request, reply) => sendJson(request, reply, await getRevisionById(ctxOf(request), request.params, request.query)),
  );

  app.get(
    '/revisions/:revisionId/pages',
    {
      config,
      schema: {
        tags,
        summary: 'List the pages of a revision (as a tree)',
        params: RevisionParams,
        querystring: RevisionQuery,
        response: { 200: RevisionPages, ...errors(404) },
      },
    },
    async (request) => listRevisionPages(ctxOf(request), request.params, request.query),
  );

  app.get(
    '/revisions/:revisionId/page/:pageId',
    {
      config,
      schema: {
        tags,
        summary: 'Get a page of a revision',
        params: RevisionPageParams,
        querystring: RevisionPageQuery,
        response: { 200: RevisionPage, ...errors(404) },
      },
    },
    async (request) => getRevisionPage(ctxOf(request), request.params, request.query),
  );

  // `pagePath` holds `/` URL-encoded (`guides%2Finstall`), as GitBook's clients send it; the same
  // read with the slashes as they are goes to the second route, left out of the API document.
  app.get(
    '/revisions/:revisionId/path/:pagePath',
    {
      config,
      schema: {
        tags,
        summary: 'Get a page of a revision by its path',
        params: RevisionPathParams,
        querystring: RevisionPageQuery,
        response: { 200: RevisionPage, ...errors(404) },
      },
    },
    async (request) => getRevisionPageByPath(ctxOf(request), request.params, request.query),
  );

  app.get(
    '/revisions/:revisionId/path/*',
    {
      config,
      schema: {
        hide: true,
        params: RevisionNestedPathParams,
        querystring: RevisionPageQuery,
        response: { 200: RevisionPage, ...errors(404) },
      },
    },
    async (request) => {
      const { spaceId, revisionId } = request.params;
      return getRevisionPageByPath(ctxOf(request), { spaceId, revisionId, pagePath: request.params['*'] }, request.query);
    },
  );

  app.get(
    '/revisions/:revisionId/page/:pageId/document',
    {
      config,
      schema: {
        tags,
        summary: 'Get the document of a page',
        params: RevisionPageParams,
        querystring: DocumentQuery,
        response: { 200: JsonDocument, ...errors(404) },
      },
    },
    async (request, reply) => sendJson(request, reply, await getRevisionPageDocument(ctxOf(request), request.params, request.query)),
  );

  app.get(
    '/revisions/:revisionId/page/:pageId/meta-links',
    {
      config,
      schema: {
        tags,
        summary: 'List the meta links of a page',
        params: RevisionPageParams,
        response: { 200: RevisionPageMetaLinks, ...errors(404) },
      },
    },
    async (request) => listRevisionPageMetaLinks(ctxOf(request), request.params),
  );

  app.get(
    '/revisions/:revisionId/files',
    {
      config,
      schema: {
        tags,
        summary: 'List the files of a revision',
        params: RevisionParams,
        querystring: RevisionFilesQuery,
        response: { 200: RevisionFileList, ...errors(404) },
      },
    },
    async (request) => listRevisionFiles(ctxOf(request), request.params, request.query),
  );

  app.get(
    '/revisions/:revisionId/files/:fileId',
    {
      config,
      schema: {
        tags,
        summary: 'Get a file of a revision',
        params: RevisionFileParams,
        querystring: RevisionQuery,
        response: { 200: RevisionFile, ...errors(404) },
      },
    },
    async (request) => getRevisionFile(ctxOf(request), request.params, request.query),
  );

  app.get(
    '/revisions/:revisionId/reusable-contents/:reusableContentId',
    {
      config,
      schema: {
        tags,
        summary: 'Get a reusable content',
        params: RevisionReusableContentParams,
        querystring: RevisionQuery,
        response: { 200: RevisionReusableContent, ...errors(404) },
      },
    },
    async (request) => getRevisionReusableContent(ctxOf(request), request.params),
  );

  app.get(
    '/revisions/:revisionId/reusable-contents/:reusableContentId/document',
    {
      config,
      schema: {
        tags,
        summary: 'Get the document of a reusable content',
        params: RevisionReusableContentParams,
        querystring: DocumentQuery,
        response: { 200: JsonDocument, ...errors(404) },
      },
    },
    async (request, reply) =>
      sendJson(request, reply, await getRevisionReusableContentDocument(ctxOf(request), request.params, request.query)),
  );

  app.get(
    '/revisions/:revisionId/changes',
    {
      schema: {
        tags,
        summary: 'Get the semantic changes of a revision against its first parent',
        operationId: 'getRevisionSemanticChanges',
        params: RevisionParams,
        querystring: RevisionChangesQuery,
        response: { 200: RevisionSemanticChanges, ...errors(404) },
      },
    },
    async (request) => getRevisionSemanticChanges(ctxOf(request), request.params, request.query),
  );

  app.get(
    '/change-requests/:changeRequestId/changes',
    {
      // What a preview of the change request shows as changed.
      config: { visitor: 'preview', installation: true },
      schema: {
        tags: ['change-request content'],
        summary: "Get the semantic changes of a change request's content against its base",
        operationId: 'getChangeRequestChanges',
        params: ChangeRequestChangesParams,
        querystring: ChangeRequestChangesQuery,
        response: { 200: RevisionSemanticChanges, ...errors(404) },
      },
    },
    async (request) => getChangeRequestChanges(ctxOf(request), request.params, request.query),
  );
};

/**
 * Reusable contents and page meta links of a space's current content and of a change request's
 * content: one plugin registered under both prefixes (src/api/app.ts), like the content routes.
 */
export const contentReadRoutes: RoutePlugin<ScopeOptions> = async (app, { changeRequest }) => {
  const tags = [changeRequest ? 'change-request content' : 'space content'];
  // A site visitor reads a published space's content; never a change request's.
  const config = { visitor: changeRequest ? ('preview' as const) : true, installation: true };

  app.get(
    '/content/reusable-contents/:reusableContentId',
    {
      config,
      schema: {
        tags,
        summary: 'Get a reusable content',
        params: ContentReusableContentParams(changeRequest),
        querystring: RevisionQuery,
        response: { 200: RevisionReusableContent, ...errors(404) },
      },
    },
    async (request) => getContentReusableContent(ctxOf(request), request.params),
  );

  app.get(
    '/content/page/:pageId/meta-links',
    {
      config,
      schema: {
        tags,
        summary: 'List the meta links of a page',
        params: PageParams(changeRequest),
        response: { 200: RevisionPageMetaLinks, ...errors(404) },
      },
    },
    async (request) => listContentPageMetaLinks(ctxOf(request), request.params),
  );
};

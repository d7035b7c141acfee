import { ctxOf, type RoutePlugin } from '../context.ts';
import { errors, NoContent } from '../schemas.ts';
import {
  ExportGitBody,
  GitInfo,
  GitSpaceParams,
  ImportGitBody,
  WebhookAnswer,
  WebhookBody,
  WebhookConfig,
  WebhookHeaders,
} from './schemas.ts';
import { configureWebhook, exportGit, getGitInfo, importGit, receivePush } from './service.ts';

/** Git Sync: HTTP only. The rules are in ./service.ts. */
export const gitRoutes: RoutePlugin = async (app) => {
  const tags = ['git'];

  app.post(
    '/v1/spaces/:spaceId/git/import',
    {
      schema: {
        tags,
        summary: 'Import a Git ref into the space (runs in the background)',
        params: GitSpaceParams,
        body: ImportGitBody,
        response: { 204: NoContent, ...errors(400, 403, 404) },
      },
    },
    async (request, reply) => {
      await importGit(ctxOf(request), request.params.spaceId, request.body);
      return reply.status(204).send();
    },
  );

  app.post(
    '/v1/spaces/:spaceId/git/export',
    {
      schema: {
        tags,
        summary: 'Export the space to a Git ref (runs in the background)',
        params: GitSpaceParams,
        body: ExportGitBody,
        response: { 204: NoContent, ...errors(400, 403, 404) },
      },
    },
    async (request, reply) => {
      await exportGit(ctxOf(request), request.params.spaceId, request.body);
      return reply.status(204).send();
    },
  );

  app.get(
    '/v1/spaces/:spaceId/git/info',
    {
      schema: {
        tags,
        summary: 'The Git Sync set up on the space and the state of its last sync',
        params: GitSpaceParams,
        response: { 200: GitInfo, ...errors(404) },
      },
    },
    async (request) => getGitInfo(ctxOf(request), request.params.spaceId),
  );

  app.put(
    '/v1/spaces/:spaceId/git/webhook',
    {
      schema: {
        tags,
        summary: 'Set up the push webhook of the space (repository, branch, secret)',
        params: GitSpaceParams,
        body: WebhookBody,
        response: { 200: WebhookConfig, ...errors(400, 403, 404) },
      },
    },
    async (request) => configureWebhook(ctxOf(request), request.params.spaceId, request.body),
  );
};

/**
 * The push webhook receiver, outside /v1 (no bearer token: deliveries are authenticated by their
 * signature). Its own plugin, so that JSON bodies are kept raw for signature checks here only.
 */
export const gitWebhookRoutes: RoutePlugin = async (app) => {
  app.removeContentTypeParser('application/json');
  // Within BODY_LIMIT like every other route (10 MiB by default; GitHub sends pushes of up to 25 MB:
  // raise BODY_LIMIT where pushes of thousands of commits must start a sync).
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

  app.post(
    '/hooks/git/:spaceId',
    {
      config: { public: true },
      schema: {
        tags: ['git'],
        summary: 'Receive a GitHub or GitLab push delivery',
        params: GitSpaceParams,
        headers: WebhookHeaders,
        response: { 200: WebhookAnswer, 202: WebhookAnswer, ...errors(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.from(JSON.stringify(request.body ?? {}));
      const answer = await receivePush(request.server.deps, request.em, request.log, request.params.spaceId, request.headers, raw);
      return reply.status(answer.status === 'accepted' ? 202 : 200).send(answer);
    },
  );
};

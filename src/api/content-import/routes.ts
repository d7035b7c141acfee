import { ctxOf, type RoutePlugin } from '../context.ts';
import { errors } from '../schemas.ts';
import { ChangeRequestImportParams, ImportContentBody, ImportResult, SpaceImportParams } from './schemas.ts';
import { importContent } from './service.ts';

export interface ContentImportRouteOptions extends Record<string, unknown> {
  /** Registered under `/v1/spaces/:spaceId` (`space`) or `…/change-requests/:changeRequestId` (`change-request`). */
  target: 'space' | 'change-request';
}

/** `POST …/content/import` into a space's primary content or into a change request: HTTP only. */
export const contentImportRoutes: RoutePlugin<ContentImportRouteOptions> = async (app, options) => {
  const intoChangeRequest = options.target === 'change-request';
  app.post(
    '/content/import',
    {
      schema: {
        tags: [intoChangeRequest ? 'change-request content' : 'space content'],
        summary: intoChangeRequest ? 'Import content into the change request' : 'Import content into the space',
        params: intoChangeRequest ? ChangeRequestImportParams : SpaceImportParams,
        body: ImportContentBody,
        response: { 201: ImportResult, ...errors(400, 403, 404, 409, 503) },
      },
    },
    async (request, reply) => {
      const { params } = request;
      const changeRequestId = 'changeRequestId' in params && typeof params.changeRequestId === 'string' ? params.changeRequestId : null;
      return reply
        .status(201)
        .send(await importContent(ctxOf(request), { spaceId: request.params.spaceId, changeRequestId }, request.body));
    },
  );
};

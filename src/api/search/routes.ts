import { ctxOf, type RoutePlugin } from '../context.ts';
import { errors } from '../schemas.ts';
import { SearchParams, SearchQuery, SearchResults } from './schemas.ts';
import { searchContent } from './service.ts';

/** Search: HTTP only. The rules are in ./service.ts. */
export const searchRoutes: RoutePlugin = async (app) => {
  app.get(
    '/v1/spaces/:spaceId/search',
    {
      config: { installation: true },
      schema: {
        tags: ['space content'],
        summary: 'Search the current content of a space',
        params: SearchParams,
        querystring: SearchQuery,
        response: { 200: SearchResults, ...errors(403, 404) },
      },
    },
    async (request) => searchContent(ctxOf(request), request.params.spaceId, request.query),
  );
};

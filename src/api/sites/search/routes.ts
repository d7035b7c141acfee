import { ctxOf, type RoutePlugin } from '../../context.ts';
import { errors } from '../../schemas.ts';
import { SiteParams } from '../schemas.ts';
import { SiteSearchBody, SiteSearchQuery, SiteSearchResults } from './schemas.ts';
import { searchSite } from './service.ts';

/** Site search: HTTP only. The rules are in ./service.ts. */
export const siteSearchRoutes: RoutePlugin = async (app) => {
  app.post(
    '/v1/orgs/:organizationId/sites/:siteId/search',
    {
      config: { visitor: true },
      schema: {
        tags: ['sites'],
        summary: 'Search the content of a site',
        params: SiteParams,
        querystring: SiteSearchQuery,
        body: SiteSearchBody,
        response: { 200: SiteSearchResults, ...errors(404) },
      },
    },
    async (request) => searchSite(ctxOf(request), request.params.organizationId, request.params.siteId, request.body, request.query),
  );
};

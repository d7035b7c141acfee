import { ctxOf, type RoutePlugin } from '../context.ts';
import { errors, ListQuery } from '../schemas.ts';
import { OrganizationList, OrganizationSchema, OrgParams, UpdateOrganizationBody } from './schemas.ts';
import { getOrganization, listOrganizations, updateOrganization } from './service.ts';

/** Organizations: HTTP only. The rules are in ./service.ts. */
export const organizationRoutes: RoutePlugin = async (app) => {
  const tags = ['organizations'];

  app.get(
    '/v1/orgs',
    {
      schema: {
        tags,
        summary: 'List the organizations of the authenticated user',
        querystring: ListQuery,
        response: { 200: OrganizationList, ...errors() },
      },
    },
    async (request) => listOrganizations(ctxOf(request), request.query),
  );

  app.get(
    '/v1/orgs/:organizationId',
    {
      schema: { tags, summary: 'Get an organization', params: OrgParams, response: { 200: OrganizationSchema, ...errors(404) } },
      // A token acting as an installation reads its own organization.
      config: { installation: true },
    },
    async (request) => getOrganization(ctxOf(request), request.params.organizationId),
  );

  app.patch(
    '/v1/orgs/:organizationId',
    {
      schema: {
        tags,
        summary: 'Update an organization (its merge rules)',
        params: OrgParams,
        body: UpdateOrganizationBody,
        response: { 200: OrganizationSchema, ...errors(400, 403, 404) },
      },
    },
    async (request) => updateOrganization(ctxOf(request), request.params.organizationId, request.body),
  );
};

import { ctxOf, type RoutePlugin } from '../../context.ts';
import { errors, ListQuery, NoContent } from '../../schemas.ts';
import { SiteParams } from '../schemas.ts';
import {
  InviteSiteBody,
  SiteAccessList,
  SiteAccessQuery,
  SiteTeamGrantParams,
  SiteTeamPermissionList,
  SiteUserGrantParams,
  SiteUserPermissionList,
  UpdateSiteGrantBody,
} from './schemas.ts';
import { inviteToSite, listSiteAccess, listSiteTeamGrants, listSiteUserGrants, removeSiteGrant, updateSiteGrantOf } from './service.ts';

/** Site permissions: HTTP only. The rules are in ./service.ts. */
export const sitePermissionRoutes: RoutePlugin = async (app) => {
  const tags = ['site-permissions'];
  const base = '/v1/orgs/:organizationId/sites/:siteId/permissions';

  app.post(
    base,
    {
      schema: {
        tags,
        summary: 'Grant a role on the site to members and teams (role null removes their grants)',
        params: SiteParams,
        body: InviteSiteBody,
        response: { 204: NoContent, ...errors(403, 404) },
      },
    },
    async (request, reply) => {
      await inviteToSite(ctxOf(request), request.params.organizationId, request.params.siteId, request.body);
      return reply.status(204).send();
    },
  );

  app.get(
    `${base}/aggregate`,
    {
      schema: {
        tags,
        summary: 'List everyone who can access the site, with their effective role there and where it comes from',
        params: SiteParams,
        querystring: SiteAccessQuery,
        response: { 200: SiteAccessList, ...errors(403, 404) },
      },
    },
    async (request) => listSiteAccess(ctxOf(request), request.params.organizationId, request.params.siteId, request.query),
  );

  app.get(
    `${base}/users`,
    {
      schema: {
        tags,
        summary: 'List the users granted a role on the site',
        params: SiteParams,
        querystring: ListQuery,
        response: { 200: SiteUserPermissionList, ...errors(403, 404) },
      },
    },
    async (request) => listSiteUserGrants(ctxOf(request), request.params.organizationId, request.params.siteId, request.query),
  );

  app.get(
    `${base}/teams`,
    {
      schema: {
        tags,
        summary: 'List the teams granted a role on the site',
        params: SiteParams,
        querystring: ListQuery,
        response: { 200: SiteTeamPermissionList, ...errors(403, 404) },
      },
    },
    async (request) => listSiteTeamGrants(ctxOf(request), request.params.organizationId, request.params.siteId, request.query),
  );

  app.patch(
    `${base}/users/:userId`,
    {
      schema: {
        tags,
        summary: 'Change the role granted to a user on the site (null removes the grant)',
        params: SiteUserGrantParams,
        body: UpdateSiteGrantBody,
        response: { 204: NoContent, ...errors(403, 404) },
      },
    },
    async (request, reply) => {
      const { organizationId, siteId, userId } = request.params;
      await updateSiteGrantOf(ctxOf(request), organizationId, siteId, 'user', userId, request.body);
      return reply.status(204).send();
    },
  );

  app.delete(
    `${base}/users/:userId`,
    {
      schema: {
        tags,
        summary: 'Remove the grant of a user on the site: 205 when removed, 204 when there was none',
        params: SiteUserGrantParams,
        response: { 204: NoContent, 205: NoContent, ...errors(403, 404) },
      },
    },
    async (request, reply) => {
      const { organizationId, siteId, userId } = request.params;
      const removed = await removeSiteGrant(ctxOf(request), organizationId, siteId, 'user', userId);
      return reply.status(removed ? 205 : 204).send();
    },
  );

  app.patch(
    `${base}/teams/:teamId`,
    {
      schema: {
        tags,
        summary: 'Change the role granted to a team on the site (null removes the grant)',
        params: SiteTeamGrantParams,
        body: UpdateSiteGrantBody,
        response: { 204: NoContent, ...errors(403, 404) },
      },
    },
    async (request, reply) => {
      const { organizationId, siteId, teamId } = request.params;
      await updateSiteGrantOf(ctxOf(request), organizationId, siteId, 'team', teamId, request.body);
      return reply.status(204).send();
    },
  );

  app.delete(
    `${base}/teams/:teamId`,
    {
      schema: {
        tags,
        summary: 'Remove the grant of a team on the site: 205 when removed, 204 when there was none',
        params: SiteTeamGrantParams,
        response: { 204: NoContent, 205: NoContent, ...errors(403, 404) },
      },
    },
    async (request, reply) => {
      const { organizationId, siteId, teamId } = request.params;
      const removed = await removeSiteGrant(ctxOf(request), organizationId, siteId, 'team', teamId);
      return reply.status(removed ? 205 : 204).send();
    },
  );
};

import type { ContentKind } from '../../db/access.ts';
import { ctxOf, type RoutePlugin } from '../context.ts';
import { errors, ListQuery, NoContent } from '../schemas.ts';
import {
  CollectionGrantParams,
  CollectionTeamGrantParams,
  CollectionUserGrantParams,
  InviteBody,
  SpaceGrantParams,
  SpaceTeamGrantParams,
  SpaceUserGrantParams,
  TeamPermissionList,
  UpdateGrantBody,
  UserPermissionList,
} from './schemas.ts';
import { invite, listTeamGrants, listUserGrants, removePrincipalGrant, updatePrincipalGrant } from './service.ts';

/** The space or collection id of a request, whichever prefix the plugin is registered under. */
const targetId = (params: { spaceId: string } | { collectionId: string }) => ('spaceId' in params ? params.spaceId : params.collectionId);

/**
 * Grants on a space or a collection: HTTP only, the rules are in ./service.ts. Registered twice, under
 * `/v1/spaces/:spaceId` (kind `space`) and `/v1/collections/:collectionId` (kind `collection`).
 */
export const permissionRoutes: RoutePlugin<{ kind: ContentKind }> = async (app, { kind }) => {
  const tags = [kind === 'space' ? 'space-permissions' : 'collection-permissions'];
  const params = kind === 'space' ? SpaceGrantParams : CollectionGrantParams;
  const userParams = kind === 'space' ? SpaceUserGrantParams : CollectionUserGrantParams;
  const teamParams = kind === 'space' ? SpaceTeamGrantParams : CollectionTeamGrantParams;

  app.post(
    '/permissions',
    {
      schema: {
        tags,
        summary: `Grant a role on the ${kind} to members and teams (role null removes their grants)`,
        params,
        body: InviteBody,
        response: { 204: NoContent, ...errors(403, 404) },
      },
    },
    async (request, reply) => {
      await invite(ctxOf(request), kind, targetId(request.params), request.body);
      return reply.status(204).send();
    },
  );

  app.get(
    '/permissions/users',
    {
      schema: {
        tags,
        summary: `List the users granted a role on the ${kind}`,
        params,
        querystring: ListQuery,
        response: { 200: UserPermissionList, ...errors(404) },
      },
    },
    async (request) => listUserGrants(ctxOf(request), kind, targetId(request.params), request.query),
  );

  app.get(
    '/permissions/teams',
    {
      schema: {
        tags,
        summary: `List the teams granted a role on the ${kind}`,
        params,
        querystring: ListQuery,
        response: { 200: TeamPermissionList, ...errors(404) },
      },
    },
    async (request) => listTeamGrants(ctxOf(request), kind, targetId(request.params), request.query),
  );

  app.patch(
    '/permissions/users/:userId',
    {
      schema: {
        tags,
        summary: `Change the role granted to a user on the ${kind} (null removes the grant)`,
        params: userParams,
        body: UpdateGrantBody,
        response: { 204: NoContent, ...errors(403, 404) },
      },
    },
    async (request, reply) => {
      await updatePrincipalGrant(ctxOf(request), kind, targetId(request.params), 'user', request.params.userId, request.body);
      return reply.status(204).send();
    },
  );

  app.delete(
    '/permissions/users/:userId',
    {
      schema: {
        tags,
        summary: `Remove the grant of a user on the ${kind}: 205 when removed, 204 when there was none`,
        params: userParams,
        response: { 204: NoContent, 205: NoContent, ...errors(403, 404) },
      },
    },
    async (request, reply) => {
      const removed = await removePrincipalGrant(ctxOf(request), kind, targetId(request.params), 'user', request.params.userId);
      return reply.status(removed ? 205 : 204).send();
    },
  );

  app.patch(
    '/permissions/teams/:teamId',
    {
      schema: {
        tags,
        summary: `Change the role granted to a team on the ${kind} (null removes the grant)`,
        params: teamParams,
        body: UpdateGrantBody,
        response: { 204: NoContent, ...errors(403, 404) },
      },
    },
    async (request, reply) => {
      await updatePrincipalGrant(ctxOf(request), kind, targetId(request.params), 'team', request.params.teamId, request.body);
      return reply.status(204).send();
    },
  );

  app.delete(
    '/permissions/teams/:teamId',
    {
      schema: {
        tags,
        summary: `Remove the grant of a team on the ${kind}: 205 when removed, 204 when there was none`,
        params: teamParams,
        response: { 204: NoContent, 205: NoContent, ...errors(403, 404) },
      },
    },
    async (request, reply) => {
      const removed = await removePrincipalGrant(ctxOf(request), kind, targetId(request.params), 'team', request.params.teamId);
      return reply.status(removed ? 205 : 204).send();
    },
  );
};

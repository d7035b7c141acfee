import { ctxOf, type RoutePlugin } from '../context.ts';
import { errors, ListQuery, NoContent } from '../schemas.ts';
import {
  CreateInviteLinkBody,
  InviteLinkList,
  InviteLinkSchema,
  InviteParams,
  InviteUsersBody,
  InviteUsersResult,
  JoinResult,
  OrgInvitesParams,
  PendingInviteList,
  PendingInviteParams,
  UpdateInviteLinkBody,
} from './schemas.ts';
import {
  acceptPendingInvite,
  createInviteLink,
  declinePendingInvite,
  deleteInviteLinkById,
  getInviteLink,
  inviteUsers,
  joinWithInvite,
  listInviteLinks,
  listPendingInvites,
  updateInviteLinkById,
} from './service.ts';

/** Organization invites by email and invite links: HTTP only. The rules are in ./service.ts. */
export const inviteRoutes: RoutePlugin = async (app) => {
  const tags = ['invites'];

  app.post(
    '/v1/orgs/:organizationId/invites',
    {
      schema: {
        tags,
        summary:
          'Invite users by email: members get the role (a higher one is kept); anyone else with an account gets an invitation they accept or decline (GET /v1/user/invites); the answer lists the members only',
        params: OrgInvitesParams,
        body: InviteUsersBody,
        response: { 200: InviteUsersResult, ...errors(403, 404) },
      },
    },
    async (request) => inviteUsers(ctxOf(request), request.params.organizationId, request.body),
  );

  app.post(
    '/v1/orgs/:organizationId/invites/:inviteId',
    {
      schema: {
        tags,
        summary:
          "Join an organization with an invite link: the caller becomes a member with the link's role (a higher role is kept); with a link to a space or collection, a guest with the link's level on it",
        params: InviteParams,
        response: { 200: JoinResult, ...errors(403, 404) },
      },
    },
    async (request) => joinWithInvite(ctxOf(request), request.params.organizationId, request.params.inviteId),
  );

  app.get(
    '/v1/orgs/:organizationId/link-invites',
    {
      schema: {
        tags,
        summary: 'List every invite link of an organization (to it, or to its spaces and collections), whoever created it',
        params: OrgInvitesParams,
        querystring: ListQuery,
        response: { 200: InviteLinkList, ...errors(403, 404) },
      },
    },
    async (request) => listInviteLinks(ctxOf(request), request.params.organizationId, request.query),
  );

  app.post(
    '/v1/orgs/:organizationId/link-invites',
    {
      schema: {
        tags,
        summary: 'Create an invite link to the organization (admins), or to a space or collection (the create role on it)',
        params: OrgInvitesParams,
        body: CreateInviteLinkBody,
        response: { 201: InviteLinkSchema, ...errors(400, 403, 404) },
      },
    },
    async (request, reply) => reply.status(201).send(await createInviteLink(ctxOf(request), request.params.organizationId, request.body)),
  );

  app.get(
    '/v1/orgs/:organizationId/link-invites/:inviteId',
    {
      schema: { tags, summary: 'Get an invite link', params: InviteParams, response: { 200: InviteLinkSchema, ...errors(403, 404) } },
    },
    async (request) => getInviteLink(ctxOf(request), request.params.organizationId, request.params.inviteId),
  );

  app.patch(
    '/v1/orgs/:organizationId/link-invites/:inviteId',
    {
      schema: {
        tags,
        summary: 'Change the role (or level) or expiry of an invite link, or disable it',
        params: InviteParams,
        body: UpdateInviteLinkBody,
        response: { 200: InviteLinkSchema, ...errors(400, 403, 404) },
      },
    },
    async (request) => {
      const { organizationId, inviteId } = request.params;
      return updateInviteLinkById(ctxOf(request), organizationId, inviteId, request.body);
    },
  );

  app.delete(
    '/v1/orgs/:organizationId/link-invites/:inviteId',
    {
      schema: {
        tags,
        summary: 'Delete an invite link: 205 when deleted, 204 when there was no such link',
        params: InviteParams,
        response: { 204: NoContent, 205: NoContent, ...errors(403, 404) },
      },
    },
    async (request, reply) => {
      const deleted = await deleteInviteLinkById(ctxOf(request), request.params.organizationId, request.params.inviteId);
      return reply.status(deleted ? 205 : 204).send();
    },
  );

  app.get(
    '/v1/user/invites',
    {
      schema: {
        tags,
        summary: 'List the invitations by email waiting for the caller (not in GitBook’s API)',
        querystring: ListQuery,
        response: { 200: PendingInviteList },
      },
    },
    async (request) => listPendingInvites(ctxOf(request), request.query),
  );

  app.post(
    '/v1/user/invites/:inviteId',
    {
      schema: {
        tags,
        summary: "Accept an invitation by email: the caller becomes a member with its role (a higher role is kept; not in GitBook's API)",
        params: PendingInviteParams,
        response: { 200: JoinResult, ...errors(403, 404) },
      },
    },
    async (request) => acceptPendingInvite(ctxOf(request), request.params.inviteId),
  );

  app.delete(
    '/v1/user/invites/:inviteId',
    {
      schema: {
        tags,
        summary: "Decline an invitation by email (not in GitBook's API)",
        params: PendingInviteParams,
        response: { 204: NoContent, ...errors(404) },
      },
    },
    async (request, reply) => {
      await declinePendingInvite(ctxOf(request), request.params.inviteId);
      return reply.status(204).send();
    },
  );
};

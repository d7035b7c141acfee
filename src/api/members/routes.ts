import { ctxOf, type RoutePlugin } from '../context.ts';
import { errors, NoContent } from '../schemas.ts';
import {
  ListMembersQuery,
  MemberList,
  MemberParams,
  MemberSchema,
  MemberSpaceList,
  MemberSpacesQuery,
  MemberTeamList,
  MemberTeamsQuery,
  OrgMembersParams,
  PingResponse,
  UpdateMemberBody,
} from './schemas.ts';
import { deleteMember, getMember, listMembers, listMemberSpaces, listMemberTeams, markSso, ping, updateMember } from './service.ts';

/** Organization members: HTTP only. The rules are in ./service.ts. */
export const memberRoutes: RoutePlugin = async (app) => {
  const tags = ['organization-members'];

  app.get(
    '/v1/orgs/:organizationId/members',
    {
      schema: {
        tags,
        summary: 'List the members of an organization',
        params: OrgMembersParams,
        querystring: ListMembersQuery,
        response: { 200: MemberList, ...errors(403, 404) },
      },
    },
    async (request) => listMembers(ctxOf(request), request.params.organizationId, request.query),
  );

  app.get(
    '/v1/orgs/:organizationId/members/:userId',
    {
      schema: {
        tags,
        summary: 'Get a member of an organization',
        params: MemberParams,
        response: { 200: MemberSchema, ...errors(403, 404) },
      },
    },
    async (request) => getMember(ctxOf(request), request.params.organizationId, request.params.userId),
  );

  app.patch(
    '/v1/orgs/:organizationId/members/:userId',
    {
      schema: {
        tags,
        summary: "Change a member's role (null: guest)",
        params: MemberParams,
        body: UpdateMemberBody,
        response: { 200: MemberSchema, ...errors(403, 404, 409) },
      },
    },
    async (request) => updateMember(ctxOf(request), request.params.organizationId, request.params.userId, request.body),
  );

  app.delete(
    '/v1/orgs/:organizationId/members/:userId',
    {
      schema: {
        tags,
        summary: 'Remove a member from the organization (admins, or members leaving)',
        params: MemberParams,
        response: { 204: NoContent, ...errors(403, 404, 409) },
      },
    },
    async (request, reply) => {
      await deleteMember(ctxOf(request), request.params.organizationId, request.params.userId);
      return reply.status(204).send();
    },
  );

  app.post(
    '/v1/orgs/:organizationId/ping',
    {
      schema: {
        tags,
        summary: "Record that the caller was active in the organization (updates the caller's lastSeenAt)",
        params: OrgMembersParams,
        response: { 200: PingResponse, ...errors(404) },
      },
    },
    async (request) => ping(ctxOf(request), request.params.organizationId),
  );

  app.post(
    '/v1/orgs/:organizationId/members/:userId/sso',
    {
      schema: {
        tags,
        summary: 'Mark a member as signing in with SSO',
        params: MemberParams,
        response: { 200: MemberSchema, ...errors(403, 404) },
      },
    },
    async (request) => markSso(ctxOf(request), request.params.organizationId, request.params.userId),
  );

  app.get(
    '/v1/orgs/:organizationId/members/:userId/spaces',
    {
      schema: {
        tags,
        summary: 'List the spaces a member can access, with their effective permission on each',
        params: MemberParams,
        querystring: MemberSpacesQuery,
        response: { 200: MemberSpaceList, ...errors(403, 404) },
      },
    },
    async (request) => listMemberSpaces(ctxOf(request), request.params.organizationId, request.params.userId, request.query),
  );

  app.get(
    '/v1/orgs/:organizationId/members/:userId/teams',
    {
      schema: {
        tags,
        summary: 'List the teams of a member, with their role in each',
        params: MemberParams,
        querystring: MemberTeamsQuery,
        response: { 200: MemberTeamList, ...errors(403, 404) },
      },
    },
    async (request) => listMemberTeams(ctxOf(request), request.params.organizationId, request.params.userId, request.query),
  );
};

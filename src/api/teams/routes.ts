import { ctxOf, type RoutePlugin } from '../context.ts';
import { TeamMemberList } from '../members/schemas.ts';
import { errors, ListQuery, NoContent } from '../schemas.ts';
import {
  AddTeamMemberBody,
  CreateTeamBody,
  ListTeamsQuery,
  OrgTeamsParams,
  TeamList,
  TeamMemberParams,
  TeamParams,
  TeamSchema,
  UpdateTeamBody,
  UpdateTeamMembersBody,
} from './schemas.ts';
import {
  createTeam,
  deleteTeam,
  getTeam,
  listTeamMembers,
  listTeams,
  putTeamMember,
  removeTeamMember,
  renameTeam,
  updateTeamMembers,
} from './service.ts';

/** Teams and their members: HTTP only. The rules are in ./service.ts. */
export const teamRoutes: RoutePlugin = async (app) => {
  const tags = ['teams'];
  const memberTags = ['team-members'];

  app.get(
    '/v1/orgs/:organizationId/teams',
    {
      schema: {
        tags,
        summary: 'List the teams of an organization',
        params: OrgTeamsParams,
        querystring: ListTeamsQuery,
        response: { 200: TeamList, ...errors(403, 404) },
      },
    },
    async (request) => listTeams(ctxOf(request), request.params.organizationId, request.query),
  );

  app.put(
    '/v1/orgs/:organizationId/teams',
    {
      schema: {
        tags,
        summary: 'Create a team',
        params: OrgTeamsParams,
        body: CreateTeamBody,
        response: { 201: TeamSchema, ...errors(403, 404) },
      },
    },
    async (request, reply) => reply.status(201).send(await createTeam(ctxOf(request), request.params.organizationId, request.body)),
  );

  app.get(
    '/v1/orgs/:organizationId/teams/:teamId',
    {
      schema: { tags, summary: 'Get a team', params: TeamParams, response: { 200: TeamSchema, ...errors(403, 404) } },
    },
    async (request) => getTeam(ctxOf(request), request.params.organizationId, request.params.teamId),
  );

  app.patch(
    '/v1/orgs/:organizationId/teams/:teamId',
    {
      schema: {
        tags,
        summary: 'Rename a team',
        params: TeamParams,
        body: UpdateTeamBody,
        response: { 200: TeamSchema, ...errors(403, 404) },
      },
    },
    async (request) => renameTeam(ctxOf(request), request.params.organizationId, request.params.teamId, request.body),
  );

  app.delete(
    '/v1/orgs/:organizationId/teams/:teamId',
    {
      schema: {
        tags,
        summary: 'Delete a team (its grants go with it)',
        params: TeamParams,
        response: { 204: NoContent, ...errors(403, 404) },
      },
    },
    async (request, reply) => {
      await deleteTeam(ctxOf(request), request.params.organizationId, request.params.teamId);
      return reply.status(204).send();
    },
  );

  app.get(
    '/v1/orgs/:organizationId/teams/:teamId/members',
    {
      schema: {
        tags: memberTags,
        summary: 'List the members of a team',
        params: TeamParams,
        querystring: ListQuery,
        response: { 200: TeamMemberList, ...errors(403, 404) },
      },
    },
    async (request) => listTeamMembers(ctxOf(request), request.params.organizationId, request.params.teamId, request.query),
  );

  app.put(
    '/v1/orgs/:organizationId/teams/:teamId/members',
    {
      schema: {
        tags: memberTags,
        summary: 'Add, remove and change the role of team members (a user both added and removed is removed)',
        params: TeamParams,
        body: UpdateTeamMembersBody,
        response: { 204: NoContent, ...errors(403, 404) },
      },
    },
    async (request, reply) => {
      await updateTeamMembers(ctxOf(request), request.params.organizationId, request.params.teamId, request.body);
      return reply.status(204).send();
    },
  );

  app.put(
    '/v1/orgs/:organizationId/teams/:teamId/members/:userId',
    {
      schema: {
        tags: memberTags,
        summary: 'Add a member to a team, or change their role in it',
        params: TeamMemberParams,
        body: AddTeamMemberBody,
        response: { 204: NoContent, ...errors(403, 404) },
      },
    },
    async (request, reply) => {
      const { organizationId, teamId, userId } = request.params;
      await putTeamMember(ctxOf(request), organizationId, teamId, userId, request.body);
      return reply.status(204).send();
    },
  );

  app.delete(
    '/v1/orgs/:organizationId/teams/:teamId/members/:userId',
    {
      schema: {
        tags: memberTags,
        summary: 'Remove a member from a team: 205 when removed, 204 when they were not in it',
        params: TeamMemberParams,
        response: { 204: NoContent, 205: NoContent, ...errors(403, 404) },
      },
    },
    async (request, reply) => {
      const { organizationId, teamId, userId } = request.params;
      const removed = await removeTeamMember(ctxOf(request), organizationId, teamId, userId);
      return reply.status(removed ? 205 : 204).send();
    },
  );
};

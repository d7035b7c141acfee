import type { Static } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { Team, TeamMember } from '../../db/team-entities.ts';
import type { Em } from '../../db/orm.ts';
import { canManageTeam, containsPattern, type TeamRole } from '../../domain/membership.ts';
import { newId } from '../../domain/ids.ts';
import { loadOrganization, requireRole } from '../access.ts';
import { textArray } from '../../db/sql.ts';
import type { Caller } from '../context.ts';
import { badRequest, forbidden, notFound } from '../errors.ts';
import { MEMBER_SELECT, presentMembers, type MemberRow } from '../members/present.ts';
import { TeamMemberList } from '../members/schemas.ts';
import { paginateSql } from '../pagination.ts';
import { errors, ListQuery, NoContent } from '../schemas.ts';
import { urlsFor } from '../urls.ts';
import { presentTeams } from './present.ts';
import {
  AddTeamMemberBody, CreateTeamBody, ListTeamsQuery, OrgTeamsParams, TeamList, TeamMemberParams, TeamParams, TeamSchema, UpdateTeamBody,
  UpdateTeamMembersBody,
} from './schemas.ts';

type OrgParams = { organizationId: string };
type Params = { organizationId: string; teamId: string };

/** Loads a team of the organization with the caller's organization role and team role; 404 when not there. */
async function loadTeam(em: Em, caller: Caller, organizationId: string, teamId: string) {
  const { role } = await loadOrganization(em, caller, organizationId);
  const team = await em.findOne(Team, { id: teamId, organizationId });
  if (!team) throw notFound('Team');
  const own = await em.findOne(TeamMember, { teamId, userId: caller.user.id });
  const teamRole = (own?.role as TeamRole | undefined) ?? null;
  return { team, role, teamRole };
}

function requireTeamManager(role: Parameters<typeof canManageTeam>[0], teamRole: TeamRole | null) {
  if (!canManageTeam(role, teamRole)) throw forbidden('You need to be an admin of the organization or an owner of the team to manage it');
}

/**
 * Resolves users given as ids or emails to members of the organization; answers 400 naming the
 * first one that is not a member.
 */
async function resolveMembers(em: Em, organizationId: string, handles: string[], field: string): Promise<string[]> {
  if (handles.length === 0) return [];
  const rows = await em.execute<{ user_id: string; email: string }[]>(
    `select m.user_id, u.email from member m join app_user u on u.id = m.user_id
      where m.organization_id = ? and (m.user_id = any(?::text[]) or lower(u.email) = any(?::text[]))`,
    [organizationId, textArray(handles), textArray(handles.map((h) => h.toLowerCase()))],
  );
  const byHandle = new Map<string, string>();
  for (const row of rows) {
    byHandle.set(row.user_id, row.user_id);
    byHandle.set(row.email.toLowerCase(), row.user_id);
  }
  return handles.map((handle, i) => {
    const id = byHandle.get(handle) ?? byHandle.get(handle.toLowerCase());
    if (!id) throw badRequest(`${field}[${i}]: ${handle} is not a member of the organization`);
    return id;
  });
}

/** Adds users to a team with `role`, or changes the role of those already in it. */
async function upsertTeamMembers(em: Em, teamId: string, userIds: string[], role: TeamRole | 'keep') {
  const now = new Date();
  for (const userId of new Set(userIds)) {
    await em.execute(
      `insert into team_member (team_id, user_id, role, joined_at) values (?, ?, ?, ?)
       on conflict (team_id, user_id) do ${role === 'keep' ? 'nothing' : 'update set role = excluded.role'}`,
      [teamId, userId, role === 'keep' ? 'member' : role, now],
    );
  }
}

export async function teamRoutes(app: FastifyInstance) {
  const urls = urlsFor(app.deps.config.publicUrl);
  const tags = ['teams'];

  async function presentOne(em: Em, caller: Caller, teamId: string, role: Parameters<typeof presentTeams>[3]) {
    em.clear();
    const team = await em.findOneOrFail(Team, { id: teamId });
    return (await presentTeams(em, [team], caller.user.id, role))[0];
  }

  app.get('/v1/orgs/:organizationId/teams', {
    schema: { tags, summary: 'List the teams of an organization', params: OrgTeamsParams, querystring: ListTeamsQuery, response: { 200: TeamList, ...errors(403, 404) } },
  }, async (request) => {
    const { organizationId } = request.params as OrgParams;
    const query = request.query as Static<typeof ListTeamsQuery>;
    const { em, caller } = request;
    const { role } = await loadOrganization(em, caller, organizationId);
    requireRole(role, 'read', 'list the teams of this organization');
    const params: unknown[] = [organizationId];
    let sql = `select date_trunc('milliseconds', t.created_at) as sort_key, t.id, t.organization_id, t.title, t.created_at from team t where t.organization_id = ?`;
    if (query.title) {
      sql += ' and t.title ilike ?';
      params.push(containsPattern(query.title));
    }
    if (query.owner !== undefined) {
      // Teams the given member can manage: all of them for an organization admin, else those they own.
      sql += ` and exists (select 1 from member m where m.organization_id = t.organization_id and m.user_id = ? and not m.disabled
                 and (m.role = 'admin' or exists (select 1 from team_member tm where tm.team_id = t.id and tm.user_id = m.user_id and tm.role = 'owner')))`;
      params.push(query.owner);
    }
    type Row = { id: string; organization_id: string; title: string; created_at: Date };
    return paginateSql<Row, unknown>(
      em,
      { sql, params, keys: [{ field: 'sort_key', kind: 'date' }, { field: 'id', kind: 'string' }] },
      query,
      (rows) => presentTeams(em, rows.map((r) => ({ id: r.id, organizationId: r.organization_id, title: r.title, createdAt: r.created_at })), caller.user.id, role),
    );
  });

  app.put('/v1/orgs/:organizationId/teams', {
    schema: { tags, summary: 'Create a team', params: OrgTeamsParams, body: CreateTeamBody, response: { 201: TeamSchema, ...errors(403, 404) } },
  }, async (request, reply) => {
    const { organizationId } = request.params as OrgParams;
    const body = request.body as Static<typeof CreateTeamBody>;
    const { em, caller } = request;
    const { role } = await loadOrganization(em, caller, organizationId);
    requireRole(role, 'admin', 'create teams');
    const members = await resolveMembers(em, organizationId, body.members ?? [], 'members');
    const id = newId();
    await em.transactional(async (tx) => {
      const now = new Date();
      tx.create(Team, { id, organizationId, title: body.title, createdAt: now, updatedAt: now });
      await tx.flush();
      await upsertTeamMembers(tx, id, members, 'keep');
    });
    return reply.status(201).send(await presentOne(em, caller, id, role));
  });

  app.get('/v1/orgs/:organizationId/teams/:teamId', {
    schema: { tags, summary: 'Get a team', params: TeamParams, response: { 200: TeamSchema, ...errors(403, 404) } },
  }, async (request) => {
    const { organizationId, teamId } = request.params as Params;
    const { em, caller } = request;
    const { role, teamRole } = await loadTeam(em, caller, organizationId, teamId);
    if (teamRole === null) requireRole(role, 'read', 'see the teams of this organization');
    return presentOne(em, caller, teamId, role);
  });

  app.patch('/v1/orgs/:organizationId/teams/:teamId', {
    schema: { tags, summary: 'Rename a team', params: TeamParams, body: UpdateTeamBody, response: { 200: TeamSchema, ...errors(403, 404) } },
  }, async (request) => {
    const { organizationId, teamId } = request.params as Params;
    const { em, caller } = request;
    const { team, role, teamRole } = await loadTeam(em, caller, organizationId, teamId);
    requireTeamManager(role, teamRole);
    team.title = (request.body as Static<typeof UpdateTeamBody>).title;
    team.updatedAt = new Date();
    await em.flush();
    return presentOne(em, caller, teamId, role);
  });

  app.delete('/v1/orgs/:organizationId/teams/:teamId', {
    schema: { tags, summary: 'Delete a team (its grants go with it)', params: TeamParams, response: { 204: NoContent, ...errors(403, 404) } },
  }, async (request, reply) => {
    const { organizationId, teamId } = request.params as Params;
    const { em, caller } = request;
    const { role, teamRole } = await loadTeam(em, caller, organizationId, teamId);
    requireTeamManager(role, teamRole);
    await em.nativeDelete(Team, { id: teamId });
    return reply.status(204).send();
  });

  app.get('/v1/orgs/:organizationId/teams/:teamId/members', {
    schema: { tags: ['team-members'], summary: 'List the members of a team', params: TeamParams, querystring: ListQuery, response: { 200: TeamMemberList, ...errors(403, 404) } },
  }, async (request) => {
    const { organizationId, teamId } = request.params as Params;
    const { em, caller } = request;
    const { role, teamRole } = await loadTeam(em, caller, organizationId, teamId);
    if (teamRole === null) requireRole(role, 'read', 'see the members of this team');
    const sql = MEMBER_SELECT.replace('select m.user_id,', `select date_trunc('milliseconds', tm.joined_at) as sort_key, tm.role as team_role, m.user_id,`)
      .replace('from member m join app_user u on u.id = m.user_id', 'from team_member tm join member m on m.user_id = tm.user_id join app_user u on u.id = m.user_id')
      + ' and tm.team_id = ?';
    return paginateSql<MemberRow, unknown>(
      em,
      { sql, params: [organizationId, teamId], keys: [{ field: 'sort_key', kind: 'date' }, { field: 'user_id', kind: 'string' }] },
      request.query as object,
      async (rows) => {
        const members = await presentMembers(em, organizationId, rows, urls);
        return rows.map((r, i) => ({ organization: members[i], team: { role: r.team_role === 'owner' ? 'owner' : 'member' }, permissions: { view: true } }));
      },
    );
  });

  app.put('/v1/orgs/:organizationId/teams/:teamId/members', {
    schema: {
      tags: ['team-members'],
      summary: 'Add, remove and change the role of team members (a user both added and removed is removed)',
      params: TeamParams,
      body: UpdateTeamMembersBody,
      response: { 204: NoContent, ...errors(403, 404) },
    },
  }, async (request, reply) => {
    const { organizationId, teamId } = request.params as Params;
    const body = request.body as Static<typeof UpdateTeamMembersBody>;
    const { em, caller } = request;
    const { role, teamRole } = await loadTeam(em, caller, organizationId, teamId);
    requireTeamManager(role, teamRole);
    const add = await resolveMembers(em, organizationId, body.add ?? [], 'add');
    const entries = Object.entries(body.memberships ?? {});
    const changed = await resolveMembers(em, organizationId, entries.map(([userId]) => userId), 'memberships');
    // Removing someone who is not there is nothing to do, so unknown users in `remove` are ignored.
    const remove = (await Promise.all((body.remove ?? []).map((h) => resolveMembers(em, organizationId, [h], 'remove').catch(() => [])))).flat();
    await em.transactional(async (tx) => {
      await upsertTeamMembers(tx, teamId, add, 'keep');
      for (let i = 0; i < entries.length; i++) await upsertTeamMembers(tx, teamId, [changed[i]], entries[i][1].role);
      if (remove.length > 0) await tx.nativeDelete(TeamMember, { teamId, userId: { $in: remove } });
    });
    return reply.status(204).send();
  });

  app.put('/v1/orgs/:organizationId/teams/:teamId/members/:userId', {
    schema: { tags: ['team-members'], summary: 'Add a member to a team, or change their role in it', params: TeamMemberParams, body: AddTeamMemberBody, response: { 204: NoContent, ...errors(403, 404) } },
  }, async (request, reply) => {
    const { organizationId, teamId, userId } = request.params as Params & { userId: string };
    const { em, caller } = request;
    const { role, teamRole } = await loadTeam(em, caller, organizationId, teamId);
    requireTeamManager(role, teamRole);
    const [id] = await resolveMembers(em, organizationId, [userId], 'userId').catch(() => {
      throw notFound('Member');
    });
    const wanted = (request.body as Static<typeof AddTeamMemberBody>).role;
    await upsertTeamMembers(em, teamId, [id], wanted ?? 'keep');
    return reply.status(204).send();
  });

  app.delete('/v1/orgs/:organizationId/teams/:teamId/members/:userId', {
    schema: {
      tags: ['team-members'],
      summary: 'Remove a member from a team: 205 when removed, 204 when they were not in it',
      params: TeamMemberParams,
      response: { 204: NoContent, 205: NoContent, ...errors(403, 404) },
    },
  }, async (request, reply) => {
    const { organizationId, teamId, userId } = request.params as Params & { userId: string };
    const { em, caller } = request;
    const { role, teamRole } = await loadTeam(em, caller, organizationId, teamId);
    requireTeamManager(role, teamRole);
    const removed = await em.nativeDelete(TeamMember, { teamId, userId });
    return reply.status(removed > 0 ? 205 : 204).send();
  });
}

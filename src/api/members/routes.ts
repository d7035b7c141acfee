import type { Static } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { Space } from '../../db/entities.ts';
import type { Em } from '../../db/orm.ts';
import { containsPattern } from '../../domain/membership.ts';
import type { Role } from '../../domain/roles.ts';
import { contentRoles, grantedContent, loadOrganization, requireRole, type Viewer } from '../access.ts';
import type { Caller } from '../context.ts';
import { notFound } from '../errors.ts';
import { paginate, paginateSql } from '../pagination.ts';
import { errors, NoContent } from '../schemas.ts';
import { presentSpace } from '../spaces/present.ts';
import { presentTeams } from '../teams/present.ts';
import { urlsFor } from '../urls.ts';
import { activeRole, findMember, MEMBER_SELECT, presentMembers, type MemberRow } from './present.ts';
import {
  ListMembersQuery, MemberList, MemberParams, MemberSchema, MemberSpaceList, MemberSpacesQuery, MemberTeamList, MemberTeamsQuery,
  OrgMembersParams, PingResponse, UpdateMemberBody,
} from './schemas.ts';
import { changeRole, removeMember } from './service.ts';

type OrgParams = { organizationId: string };
type Params = { organizationId: string; userId: string };

/** Members with a role may look at every member; anyone may look at themselves. */
function requireMemberReader(role: Role | null, caller: Caller, userId?: string) {
  if (userId !== undefined && userId === caller.user.id) return;
  requireRole(role, 'read', 'see the members of this organization');
}

export async function memberRoutes(app: FastifyInstance) {
  const urls = urlsFor(app.deps.config.publicUrl);
  const tags = ['organization-members'];

  /** Loads the organization for the caller and the target member (404 when not a member). */
  async function target(request: { em: Em; caller: Caller; params: unknown }) {
    const { organizationId, userId } = request.params as Params;
    const { role } = await loadOrganization(request.em, request.caller, organizationId);
    const member = await findMember(request.em, organizationId, userId);
    return { organizationId, userId, role, member };
  }

  async function present(em: Em, organizationId: string, userId: string) {
    const row = await findMember(em, organizationId, userId);
    if (!row) throw notFound('Member');
    return (await presentMembers(em, organizationId, [row], urls))[0];
  }

  app.get('/v1/orgs/:organizationId/members', {
    schema: { tags, summary: 'List the members of an organization', params: OrgMembersParams, querystring: ListMembersQuery, response: { 200: MemberList, ...errors(403, 404) } },
  }, async (request) => {
    const { organizationId } = request.params as OrgParams;
    const query = request.query as Static<typeof ListMembersQuery>;
    const { em, caller } = request;
    const { role } = await loadOrganization(em, caller, organizationId);
    requireMemberReader(role, caller);
    const sort = query.sort ?? 'joinedAt';
    const params: unknown[] = [organizationId];
    let sql = MEMBER_SELECT;
    if (query.role === 'guest') sql += ' and m.role is null';
    else if (query.role !== undefined) {
      sql += ' and m.role = ?';
      params.push(query.role);
    }
    if (query.search) {
      sql += ' and (u.display_name ilike ? or u.email ilike ?)';
      params.push(containsPattern(query.search), containsPattern(query.search));
    }
    if (sort === 'lastSeenAt') sql += ' and m.last_seen_at is not null';
    // Timestamps are compared at millisecond precision, the precision of the page cursor.
    const sortKey = sort === 'name'
      ? 'lower(u.display_name)'
      : `date_trunc('milliseconds', ${sort === 'joinedAt' ? 'm.joined_at' : 'm.last_seen_at'})`;
    sql = sql.replace('select m.user_id,', `select ${sortKey} as sort_key, m.user_id,`);
    return paginateSql<MemberRow, unknown>(
      em,
      { sql, params, keys: [{ field: 'sort_key', kind: sort === 'name' ? 'string' : 'date' }, { field: 'user_id', kind: 'string' }], order: query.order ?? 'desc' },
      query,
      (rows) => presentMembers(em, organizationId, rows, urls),
    );
  });

  app.get('/v1/orgs/:organizationId/members/:userId', {
    schema: { tags, summary: 'Get a member of an organization', params: MemberParams, response: { 200: MemberSchema, ...errors(403, 404) } },
  }, async (request) => {
    const { organizationId, userId, role, member } = await target(request);
    requireMemberReader(role, request.caller, userId);
    if (!member) throw notFound('Member');
    return present(request.em, organizationId, userId);
  });

  app.patch('/v1/orgs/:organizationId/members/:userId', {
    schema: { tags, summary: "Change a member's role (null: guest)", params: MemberParams, body: UpdateMemberBody, response: { 200: MemberSchema, ...errors(403, 404, 409) } },
  }, async (request) => {
    const { organizationId, userId, role, member } = await target(request);
    requireRole(role, 'admin', 'change the role of members');
    if (!member) throw notFound('Member');
    await changeRole(request.em, organizationId, userId, (request.body as Static<typeof UpdateMemberBody>).role);
    return present(request.em, organizationId, userId);
  });

  app.delete('/v1/orgs/:organizationId/members/:userId', {
    schema: { tags, summary: 'Remove a member from the organization (admins, or members leaving)', params: MemberParams, response: { 204: NoContent, ...errors(403, 404, 409) } },
  }, async (request, reply) => {
    const { organizationId, userId, role, member } = await target(request);
    if (userId !== request.caller.user.id) requireRole(role, 'admin', 'remove members');
    if (!member) throw notFound('Member');
    await removeMember(request.em, organizationId, userId);
    return reply.status(204).send();
  });

  app.post('/v1/orgs/:organizationId/ping', {
    schema: { tags, summary: "Record that the caller was active in the organization (updates the caller's lastSeenAt)", params: OrgMembersParams, response: { 200: PingResponse, ...errors(404) } },
  }, async (request) => {
    const { organizationId } = request.params as OrgParams;
    await loadOrganization(request.em, request.caller, organizationId);
    await request.em.execute('update member set last_seen_at = ? where organization_id = ? and user_id = ?', [new Date(), organizationId, request.caller.user.id]);
    return {};
  });

  app.post('/v1/orgs/:organizationId/members/:userId/sso', {
    schema: { tags, summary: 'Mark a member as signing in with SSO', params: MemberParams, response: { 200: MemberSchema, ...errors(403, 404) } },
  }, async (request) => {
    const { organizationId, userId, role, member } = await target(request);
    requireRole(role, 'admin', 'set members as SSO members');
    if (!member) throw notFound('Member');
    await request.em.execute('update member set sso = true where organization_id = ? and user_id = ?', [organizationId, userId]);
    return present(request.em, organizationId, userId);
  });

  app.get('/v1/orgs/:organizationId/members/:userId/spaces', {
    schema: {
      tags,
      summary: 'List the spaces a member can access, with their effective permission on each',
      params: MemberParams,
      querystring: MemberSpacesQuery,
      response: { 200: MemberSpaceList, ...errors(403, 404) },
    },
  }, async (request) => {
    const { organizationId, userId, role, member } = await target(request);
    const { em, caller } = request;
    requireMemberReader(role, caller, userId);
    if (!member) throw notFound('Member');
    const query = request.query as Static<typeof MemberSpacesQuery>;
    const subject: Viewer = { userId, role: activeRole(member) };
    if (subject.role === undefined) return { items: [], count: 0 };
    const where = subject.role === null
      ? { organizationId, deletedAt: null, id: { $in: (await grantedContent(em, organizationId, userId)).spaces } }
      : { organizationId, deletedAt: null };
    const page = await paginate(em, Space, where, [{ field: 'createdAt', kind: 'date' }, { field: 'id', kind: 'string' }], query, (s) => s, { order: query.order ?? 'desc' });
    const [theirs, mine] = await Promise.all([
      contentRoles(em, subject, 'space', page.items),
      contentRoles(em, { userId: caller.user.id, role }, 'space', page.items),
    ]);
    return {
      ...page,
      items: page.items.map((s) => ({ permission: theirs.get(s.id) ?? 'read', space: presentSpace(s, mine.get(s.id) ?? null, urls) })),
    };
  });

  app.get('/v1/orgs/:organizationId/members/:userId/teams', {
    schema: { tags, summary: 'List the teams of a member, with their role in each', params: MemberParams, querystring: MemberTeamsQuery, response: { 200: MemberTeamList, ...errors(403, 404) } },
  }, async (request) => {
    const { organizationId, userId, role, member } = await target(request);
    const { em, caller } = request;
    requireMemberReader(role, caller, userId);
    if (!member) throw notFound('Member');
    const query = request.query as Static<typeof MemberTeamsQuery>;
    const params: unknown[] = [organizationId, userId];
    let sql = `
      select date_trunc('milliseconds', t.created_at) as sort_key, t.id, t.organization_id, t.title, t.created_at, tm.role as team_role
        from team t join team_member tm on tm.team_id = t.id
       where t.organization_id = ? and tm.user_id = ?`;
    if (query.title) {
      sql += ' and t.title ilike ?';
      params.push(containsPattern(query.title));
    }
    type Row = { id: string; organization_id: string; title: string; created_at: Date; team_role: string };
    return paginateSql<Row, unknown>(
      em,
      { sql, params, keys: [{ field: 'sort_key', kind: 'date' }, { field: 'id', kind: 'string' }] },
      query,
      async (rows) => {
        const teams = await presentTeams(em, rows.map((r) => ({ id: r.id, organizationId: r.organization_id, title: r.title, createdAt: r.created_at })), caller.user.id, role);
        return rows.map((r, i) => ({ team: teams[i], member: { role: r.team_role === 'owner' ? 'owner' : 'member' } }));
      },
    );
  });
}

import type { Static } from 'typebox';
import type { FastifyInstance } from 'fastify';
import type { Em } from '../../db/orm.ts';
import { newId } from '../../domain/ids.ts';
import type { Role } from '../../domain/roles.ts';
import { loadCollection, loadOrganization, loadSpace, requireRole, type ContentKind } from '../access.ts';
import { textArray } from '../../db/sql.ts';
import type { Caller } from '../context.ts';
import { badRequest, notFound } from '../errors.ts';
import { paginateSql } from '../pagination.ts';
import { errors, ListQuery, NoContent } from '../schemas.ts';
import { presentTeams } from '../teams/present.ts';
import { presentUser } from '../users/present.ts';
import { urlsFor } from '../urls.ts';
import {
  CollectionGrantParams, CollectionTeamGrantParams, CollectionUserGrantParams, InviteBody, SpaceGrantParams, SpaceTeamGrantParams,
  SpaceUserGrantParams, TeamPermissionList, UpdateGrantBody, UserPermissionList,
} from './schemas.ts';

/**
 * Explicit grants of a role on a space or a collection to organization members and teams
 * (GitBook's space and collection permissions). Anyone who can see the object can list its grants;
 * changing them needs the admin role on the object. A grant on a collection reaches every
 * collection and space below it; the rule that combines grants with organization roles and default
 * levels is in ../access.ts.
 */

interface Target {
  kind: ContentKind;
  id: string;
  organizationId: string;
  role: Role | null;
}

type Principal = 'user' | 'team';

const column = (kind: ContentKind) => (kind === 'space' ? 'space_id' : 'collection_id');
const principalColumn = (principal: Principal) => (principal === 'user' ? 'user_id' : 'team_id');

async function loadTarget(em: Em, caller: Caller, kind: ContentKind, id: string): Promise<Target> {
  if (kind === 'space') {
    const { space, role } = await loadSpace(em, caller, id);
    return { kind, id: space.id, organizationId: space.organizationId, role };
  }
  const { collection, role } = await loadCollection(em, caller, id);
  return { kind, id: collection.id, organizationId: collection.organizationId, role };
}

/** Checks that every id is a member (users) or a team (teams) of the organization; 400 naming the first that is not. */
async function checkPrincipals(em: Em, organizationId: string, principal: Principal, ids: string[]) {
  if (ids.length === 0) return;
  const sql = principal === 'user'
    ? 'select user_id as id from member where organization_id = ? and user_id = any(?::text[])'
    : 'select id from team where organization_id = ? and id = any(?::text[])';
  const found = new Set((await em.execute<{ id: string }[]>(sql, [organizationId, textArray(ids)])).map((r) => r.id));
  const bad = ids.findIndex((id) => !found.has(id));
  if (bad >= 0) {
    throw badRequest(principal === 'user'
      ? `users[${bad}]: ${ids[bad]} is not a member of the organization`
      : `teams[${bad}]: ${ids[bad]} is not a team of the organization`);
  }
}

/** Sets (or with null removes) the grant of `role` on the target for each principal. */
async function setGrants(em: Em, target: Target, principal: Principal, ids: string[], role: Role | null) {
  const on = column(target.kind);
  const who = principalColumn(principal);
  for (const id of new Set(ids)) {
    if (role === null) {
      await em.execute(`delete from content_permission where ${on} = ? and ${who} = ?`, [target.id, id]);
      continue;
    }
    await em.execute(
      `insert into content_permission (id, organization_id, ${on}, ${who}, role, created_at) values (?, ?, ?, ?, ?, ?)
       on conflict (${on}, ${who}) where ${on} is not null and ${who} is not null do update set role = excluded.role`,
      [newId(), target.organizationId, target.id, id, role, new Date()],
    );
  }
}

export async function permissionRoutes(app: FastifyInstance) {
  const urls = urlsFor(app.deps.config.publicUrl);

  for (const kind of ['space', 'collection'] as const) {
    const base = kind === 'space' ? '/v1/spaces/:spaceId/permissions' : '/v1/collections/:collectionId/permissions';
    const idOf = (params: unknown) => (kind === 'space' ? (params as { spaceId: string }).spaceId : (params as { collectionId: string }).collectionId);
    const tags = [kind === 'space' ? 'space-permissions' : 'collection-permissions'];
    const params = kind === 'space' ? SpaceGrantParams : CollectionGrantParams;
    const userParams = kind === 'space' ? SpaceUserGrantParams : CollectionUserGrantParams;
    const teamParams = kind === 'space' ? SpaceTeamGrantParams : CollectionTeamGrantParams;
    const on = column(kind);

    app.post(base, {
      schema: { tags, summary: `Grant a role on the ${kind} to members and teams (role null removes their grants)`, params, body: InviteBody, response: { 204: NoContent, ...errors(403, 404) } },
    }, async (request, reply) => {
      const body = request.body as Static<typeof InviteBody>;
      const { em, caller } = request;
      const target = await loadTarget(em, caller, kind, idOf(request.params));
      requireRole(target.role, 'admin', `manage who can access this ${kind}`);
      if (!body.users && !body.teams) throw badRequest('body.users or body.teams is required');
      await checkPrincipals(em, target.organizationId, 'user', body.users ?? []);
      await checkPrincipals(em, target.organizationId, 'team', body.teams ?? []);
      await em.transactional(async (tx) => {
        await setGrants(tx, target, 'user', body.users ?? [], body.role);
        await setGrants(tx, target, 'team', body.teams ?? [], body.role);
      });
      return reply.status(204).send();
    });

    app.get(`${base}/users`, {
      schema: { tags, summary: `List the users granted a role on the ${kind}`, params, querystring: ListQuery, response: { 200: UserPermissionList, ...errors(404) } },
    }, async (request) => {
      const { em, caller } = request;
      const target = await loadTarget(em, caller, kind, idOf(request.params));
      type Row = { role: Role; user_id: string; display_name: string; email: string; photo_url: string | null };
      return paginateSql<Row, unknown>(
        em,
        {
          sql: `select date_trunc('milliseconds', p.created_at) as sort_key, p.id, p.role, u.id as user_id, u.display_name, u.email, u.photo_url
                  from content_permission p join app_user u on u.id = p.user_id where p.${on} = ?`,
          params: [target.id],
          keys: [{ field: 'sort_key', kind: 'date' }, { field: 'id', kind: 'string' }],
        },
        request.query as object,
        (rows) => rows.map((r) => ({
          permission: r.role,
          user: presentUser({ id: r.user_id, displayName: r.display_name, email: r.email, photoUrl: r.photo_url }, urls),
        })),
      );
    });

    app.get(`${base}/teams`, {
      schema: { tags, summary: `List the teams granted a role on the ${kind}`, params, querystring: ListQuery, response: { 200: TeamPermissionList, ...errors(404) } },
    }, async (request) => {
      const { em, caller } = request;
      const target = await loadTarget(em, caller, kind, idOf(request.params));
      const { role } = await loadOrganization(em, caller, target.organizationId);
      type Row = { role: Role; team_id: string; organization_id: string; title: string; created: Date };
      return paginateSql<Row, unknown>(
        em,
        {
          sql: `select date_trunc('milliseconds', p.created_at) as sort_key, p.id, p.role, t.id as team_id, t.organization_id, t.title, t.created_at as created
                  from content_permission p join team t on t.id = p.team_id where p.${on} = ?`,
          params: [target.id],
          keys: [{ field: 'sort_key', kind: 'date' }, { field: 'id', kind: 'string' }],
        },
        request.query as object,
        async (rows) => {
          const teams = await presentTeams(em, rows.map((r) => ({ id: r.team_id, organizationId: r.organization_id, title: r.title, createdAt: r.created })), caller.user.id, role);
          return rows.map((r, i) => ({ permission: r.role, team: teams[i] }));
        },
      );
    });

    for (const principal of ['user', 'team'] as const) {
      const path = `${base}/${principal}s/:${principal}Id`;
      const who = principalColumn(principal);
      const principalId = (p: unknown) => (p as Record<string, string>)[`${principal}Id`];

      app.patch(path, {
        schema: {
          tags,
          summary: `Change the role granted to a ${principal} on the ${kind} (null removes the grant)`,
          params: principal === 'user' ? userParams : teamParams,
          body: UpdateGrantBody,
          response: { 204: NoContent, ...errors(403, 404) },
        },
      }, async (request, reply) => {
        const { em, caller } = request;
        const target = await loadTarget(em, caller, kind, idOf(request.params));
        requireRole(target.role, 'admin', `manage who can access this ${kind}`);
        const id = principalId(request.params);
        const role = (request.body as Static<typeof UpdateGrantBody>).role;
        const changed = role === null
          ? await em.execute(`delete from content_permission where ${on} = ? and ${who} = ? returning id`, [target.id, id])
          : await em.execute(`update content_permission set role = ? where ${on} = ? and ${who} = ? returning id`, [role, target.id, id]);
        if ((changed as unknown[]).length === 0) throw notFound(principal === 'user' ? 'User permission' : 'Team permission');
        return reply.status(204).send();
      });

      app.delete(path, {
        schema: {
          tags,
          summary: `Remove the grant of a ${principal} on the ${kind}: 205 when removed, 204 when there was none`,
          params: principal === 'user' ? userParams : teamParams,
          response: { 204: NoContent, 205: NoContent, ...errors(403, 404) },
        },
      }, async (request, reply) => {
        const { em, caller } = request;
        const target = await loadTarget(em, caller, kind, idOf(request.params));
        requireRole(target.role, 'admin', `manage who can access this ${kind}`);
        const removed = await em.execute<{ id: string }[]>(`delete from content_permission where ${on} = ? and ${who} = ? returning id`, [target.id, principalId(request.params)]);
        return reply.status(removed.length > 0 ? 205 : 204).send();
      });
    }
  }
}

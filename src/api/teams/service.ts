import type { Static } from 'typebox';
import { memberCounts, teamMemberListing } from '../../db/members.ts';
import { transaction, type Em } from '../../db/orm.ts';
import {
  deleteTeamRow,
  findTeam,
  insertTeam,
  membersByHandle,
  removeTeamMembers,
  renameTeamRow,
  teamFacts,
  teamListing,
  teamRoleOf,
  upsertTeamMember,
} from '../../db/teams.ts';
import { newId } from '../../domain/ids.ts';
import { canManageTeam, type TeamRole } from '../../domain/membership.ts';
import type { Role } from '../../domain/roles.ts';
import { requireOrganization, requireRole } from '../access.ts';
import type { Ctx } from '../context.ts';
import { badRequest, forbidden, isRefusal, notFound } from '../errors.ts';
import { paginate } from '../pagination.ts';
import { presentTeam, presentTeamMember } from '../people/present.ts';
import type { ListQuery } from '../schemas.ts';
import { urlsFor } from '../object-urls.ts';
import type { AddTeamMemberBody, CreateTeamBody, ListTeamsQuery, UpdateTeamBody, UpdateTeamMembersBody } from './schemas.ts';

/**
 * The rules of teams: members with a role see every team, team members see their own; admins of
 * the organization and owners of a team manage it; only admins create teams.
 */

/** A team of the organization with the caller's organization role and team role; 404 when not there. */
async function loadTeam(ctx: Ctx, organizationId: string, teamId: string) {
  const { role } = await requireOrganization(ctx, organizationId);
  const team = await findTeam(ctx.em, organizationId, teamId);
  if (!team) throw notFound('Team');
  const teamRole = await teamRoleOf(ctx.em, teamId, ctx.caller.user.id);
  return { team, role, teamRole };
}

function requireTeamManager(role: Role | null, teamRole: TeamRole | null) {
  if (!canManageTeam(role, teamRole)) throw forbidden('You need to be an admin of the organization or an owner of the team to manage it');
}

/** A team read again (after a write), as a caller with `role` in the organization sees it. */
async function fresh(ctx: Ctx, organizationId: string, teamId: string, role: Role | null) {
  const team = await findTeam(ctx.em, organizationId, teamId);
  if (!team) throw notFound('Team');
  const facts = await teamFacts(ctx.em, [teamId], ctx.caller.user.id);
  return presentTeam(team, facts.get(teamId), role);
}

/**
 * Resolves users given as ids or emails to members of the organization; answers 400 naming the
 * first one that is not a member.
 */
async function resolveMembers(em: Em, organizationId: string, handles: string[], field: string): Promise<string[]> {
  const rows = await membersByHandle(em, organizationId, handles);
  const byHandle = new Map<string, string>();
  for (const row of rows) {
    byHandle.set(row.userId, row.userId);
    byHandle.set(row.email.toLowerCase(), row.userId);
  }
  return handles.map((handle, i) => {
    const id = byHandle.get(handle) ?? byHandle.get(handle.toLowerCase());
    if (!id) throw badRequest(`${field}[${i}]: ${handle} is not a member of the organization`);
    return id;
  });
}

/** Adds users to a team with `role`, or changes the role of those already in it (`keep`: add as members, change nothing). */
async function addTeamMembers(em: Em, teamId: string, userIds: string[], role: TeamRole | 'keep') {
  const now = new Date();
  for (const userId of new Set(userIds)) await upsertTeamMember(em, teamId, userId, role, now);
}

export async function listTeams(ctx: Ctx, organizationId: string, query: Static<typeof ListTeamsQuery>) {
  const { role } = await requireOrganization(ctx, organizationId, 'read', 'list the teams of this organization');
  return paginate(ctx.em, teamListing(ctx.em, organizationId, query), query, async (rows) => {
    const facts = await teamFacts(
      ctx.em,
      rows.map((r) => r.id),
      ctx.caller.user.id,
    );
    return rows.map((r) => presentTeam(r, facts.get(r.id), role));
  });
}

export async function createTeam(ctx: Ctx, organizationId: string, body: Static<typeof CreateTeamBody>) {
  const { role } = await requireOrganization(ctx, organizationId, 'admin', 'create teams');
  const members = await resolveMembers(ctx.em, organizationId, body.members ?? [], 'members');
  const id = newId();
  await transaction(ctx.em, async (tx) => {
    await insertTeam(tx, { id, organizationId, title: body.title, at: new Date() });
    await addTeamMembers(tx, id, members, 'keep');
  });
  return fresh(ctx, organizationId, id, role);
}

export async function getTeam(ctx: Ctx, organizationId: string, teamId: string) {
  const { role, teamRole } = await loadTeam(ctx, organizationId, teamId);
  if (teamRole === null) requireRole(role, 'read', 'see the teams of this organization');
  return fresh(ctx, organizationId, teamId, role);
}

export async function renameTeam(ctx: Ctx, organizationId: string, teamId: string, body: Static<typeof UpdateTeamBody>) {
  const { role, teamRole } = await loadTeam(ctx, organizationId, teamId);
  requireTeamManager(role, teamRole);
  await renameTeamRow(ctx.em, teamId, body.title, new Date());
  return fresh(ctx, organizationId, teamId, role);
}

/** Deletes a team; its memberships and grants go with it (foreign keys cascade). */
export async function deleteTeam(ctx: Ctx, organizationId: string, teamId: string): Promise<void> {
  const { role, teamRole } = await loadTeam(ctx, organizationId, teamId);
  requireTeamManager(role, teamRole);
  await deleteTeamRow(ctx.em, teamId);
}

export async function listTeamMembers(ctx: Ctx, organizationId: string, teamId: string, query: Static<typeof ListQuery>) {
  const { role, teamRole } = await loadTeam(ctx, organizationId, teamId);
  if (teamRole === null) requireRole(role, 'read', 'see the members of this team');
  const urls = urlsFor(ctx.deps.config.publicUrl);
  return paginate(ctx.em, teamMemberListing(ctx.em, organizationId, teamId), query, async (rows) => {
    const counts = await memberCounts(
      ctx.em,
      organizationId,
      rows.map((r) => r.userId),
    );
    return rows.map((r) => presentTeamMember(r, counts.get(r.userId), urls));
  });
}

/** Adds, removes and changes the role of team members in one transaction; a user both added and removed is removed. */
export async function updateTeamMembers(
  ctx: Ctx,
  organizationId: string,
  teamId: string,
  body: Static<typeof UpdateTeamMembersBody>,
): Promise<void> {
  const { em } = ctx;
  const { role, teamRole } = await loadTeam(ctx, organizationId, teamId);
  requireTeamManager(role, teamRole);
  const add = await resolveMembers(em, organizationId, body.add ?? [], 'add');
  const entries = Object.entries(body.memberships ?? {});
  const changed = await resolveMembers(
    em,
    organizationId,
    entries.map(([userId]) => userId),
    'memberships',
  );
  // Removing someone who is not there is nothing to do, so unknown users in `remove` are ignored.
  const remove = (
    await Promise.all(
      (body.remove ?? []).map((h) =>
        resolveMembers(em, organizationId, [h], 'remove').catch((error: unknown) => {
          if (isRefusal(error)) return [];
          throw error;
        }),
      ),
    )
  ).flat();
  await transaction(em, async (tx) => {
    await addTeamMembers(tx, teamId, add, 'keep');
    for (let i = 0; i < entries.length; i++) await addTeamMembers(tx, teamId, [changed[i]], entries[i][1].role);
    await removeTeamMembers(tx, teamId, remove);
  });
}

/** Adds a member of the organization (by id or email) to a team, or changes their role in it. */
export async function putTeamMember(
  ctx: Ctx,
  organizationId: string,
  teamId: string,
  userId: string,
  body: Static<typeof AddTeamMemberBody>,
): Promise<void> {
  const { role, teamRole } = await loadTeam(ctx, organizationId, teamId);
  requireTeamManager(role, teamRole);
  const [id] = await resolveMembers(ctx.em, organizationId, [userId], 'userId').catch((error: unknown) => {
    throw isRefusal(error) ? notFound('Member') : error;
  });
  await addTeamMembers(ctx.em, teamId, [id], body.role ?? 'keep');
}

/** Removes a member from a team; true when they were in it. */
export async function removeTeamMember(ctx: Ctx, organizationId: string, teamId: string, userId: string): Promise<boolean> {
  const { role, teamRole } = await loadTeam(ctx, organizationId, teamId);
  requireTeamManager(role, teamRole);
  return (await removeTeamMembers(ctx.em, teamId, [userId])) > 0;
}

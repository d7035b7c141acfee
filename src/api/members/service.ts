import type { Static } from 'typebox';
import {
  deleteMembership,
  findMember,
  lockActiveAdmins,
  markSsoMember,
  memberCounts,
  memberListing,
  setMemberRole,
  touchLastSeen,
  type MemberRow,
} from '../../db/members.ts';
import { deleteLinksCreatedBy } from '../../db/invites.ts';
import { transaction, type Em } from '../../db/orm.ts';
import { memberTeamListing, teamFacts } from '../../db/teams.ts';
import { leavesNoAdmin } from '../../domain/membership.ts';
import type { Role } from '../../domain/roles.ts';
import { contentRoles, requireOrganization, requireRole, type Viewer } from '../access.ts';
import type { Ctx } from '../context.ts';
import { conflict, notFound } from '../errors.ts';
import { paginate } from '../pagination.ts';
import { presentSpace } from '../spaces/present.ts';
import { visibleSpacesPage } from '../spaces/service.ts';
import { urlsFor } from '../object-urls.ts';
import { activeRole, presentMember, presentMemberTeam } from '../people/present.ts';
import type { ListMembersQuery, MemberSpacesQuery, MemberTeamsQuery, UpdateMemberBody } from './schemas.ts';

/**
 * The rules of organization membership: members with a role may look at every member, anyone may
 * look at themselves; admins change roles and remove members; the organization always keeps an
 * active admin.
 */

const urlsOf = (ctx: Ctx) => urlsFor(ctx.deps.config.publicUrl);

function requireMemberReader(ctx: Ctx, role: Role | null, userId?: string) {
  if (userId !== undefined && userId === ctx.caller.user.id) return;
  requireRole(role, 'read', 'see the members of this organization');
}

/** The caller's role in the organization and the target member (undefined when not a member). */
async function target(ctx: Ctx, organizationId: string, userId: string) {
  const { role } = await requireOrganization(ctx, organizationId);
  const member = await findMember(ctx.em, organizationId, userId);
  return { role, member };
}

/** Members presented with their counts, loaded for the whole page at once. */
async function presentMembers(ctx: Ctx, organizationId: string, rows: MemberRow[]) {
  const counts = await memberCounts(
    ctx.em,
    organizationId,
    rows.map((r) => r.userId),
  );
  return rows.map((r) => presentMember(r, counts.get(r.userId), urlsOf(ctx)));
}

/** A member read again (after a write). */
async function fresh(ctx: Ctx, organizationId: string, userId: string) {
  const row = await findMember(ctx.em, organizationId, userId);
  if (!row) throw notFound('Member');
  return (await presentMembers(ctx, organizationId, [row]))[0];
}

export async function listMembers(ctx: Ctx, organizationId: string, query: Static<typeof ListMembersQuery>) {
  const { role } = await requireOrganization(ctx, organizationId);
  requireMemberReader(ctx, role);
  const listing = memberListing(ctx.em, organizationId, {
    role: query.role,
    search: query.search,
    sort: query.sort ?? 'joinedAt',
    order: query.order ?? 'desc',
  });
  return paginate(ctx.em, listing, query, (rows) => presentMembers(ctx, organizationId, rows));
}

export async function getMember(ctx: Ctx, organizationId: string, userId: string) {
  const { role, member } = await target(ctx, organizationId, userId);
  requireMemberReader(ctx, role, userId);
  if (!member) throw notFound('Member');
  return fresh(ctx, organizationId, userId);
}

export async function updateMember(ctx: Ctx, organizationId: string, userId: string, body: Static<typeof UpdateMemberBody>) {
  const { role, member } = await target(ctx, organizationId, userId);
  requireRole(role, 'admin', 'change the role of members');
  if (!member) throw notFound('Member');
  await changeRole(ctx.em, organizationId, userId, body.role);
  return fresh(ctx, organizationId, userId);
}

/** Admins remove members; any member may leave. */
export async function deleteMember(ctx: Ctx, organizationId: string, userId: string): Promise<void> {
  const { role, member } = await target(ctx, organizationId, userId);
  if (userId !== ctx.caller.user.id) requireRole(role, 'admin', 'remove members');
  if (!member) throw notFound('Member');
  await removeMember(ctx.em, organizationId, userId);
}

/** Records that the caller was active in the organization. */
export async function ping(ctx: Ctx, organizationId: string) {
  await requireOrganization(ctx, organizationId);
  await touchLastSeen(ctx.em, organizationId, ctx.caller.user.id, new Date());
  return {};
}

export async function markSso(ctx: Ctx, organizationId: string, userId: string) {
  const { role, member } = await target(ctx, organizationId, userId);
  requireRole(role, 'admin', 'set members as SSO members');
  if (!member) throw notFound('Member');
  await markSsoMember(ctx.em, organizationId, userId);
  return fresh(ctx, organizationId, userId);
}

/** The spaces a member can access, with their effective role on each and the caller's view of each space. */
export async function listMemberSpaces(ctx: Ctx, organizationId: string, userId: string, query: Static<typeof MemberSpacesQuery>) {
  const { em, caller } = ctx;
  const { role, member } = await target(ctx, organizationId, userId);
  requireMemberReader(ctx, role, userId);
  if (!member) throw notFound('Member');
  const subject: Viewer = { userId, role: activeRole(member) };
  if (subject.role === undefined) return { items: [], count: 0 };
  const page = await visibleSpacesPage(em, organizationId, { userId, role: subject.role }, query, query.order ?? 'desc');
  const [theirs, mine] = await Promise.all([
    contentRoles(em, subject, 'space', page.items),
    contentRoles(em, { userId: caller.user.id, role }, 'space', page.items),
  ]);
  return {
    ...page,
    items: page.items.map((s) => ({ permission: theirs.get(s.id) ?? 'read', space: presentSpace(s, mine.get(s.id) ?? null, urlsOf(ctx)) })),
  };
}

/** The teams of a member, with their role in each. */
export async function listMemberTeams(ctx: Ctx, organizationId: string, userId: string, query: Static<typeof MemberTeamsQuery>) {
  const { role, member } = await target(ctx, organizationId, userId);
  requireMemberReader(ctx, role, userId);
  if (!member) throw notFound('Member');
  return paginate(ctx.em, memberTeamListing(ctx.em, organizationId, userId, query), query, async (rows) => {
    const facts = await teamFacts(
      ctx.em,
      rows.map((r) => r.id),
      ctx.caller.user.id,
    );
    return rows.map((r) => presentMemberTeam(r, facts.get(r.id), role));
  });
}

/**
 * Fails with 409 when changing `userId` to `next` would leave the organization without an active
 * admin. The admins' rows stay locked until the transaction of `tx` ends.
 */
async function guardLastAdmin(tx: Em, organizationId: string, userId: string, next: Role | null | 'removed') {
  if (leavesNoAdmin(await lockActiveAdmins(tx, organizationId), userId, next)) {
    throw conflict(
      next === 'removed'
        ? 'This member is the last admin of the organization: make another member admin before removing them'
        : 'This member is the last admin of the organization: make another member admin before changing their role',
    );
  }
}

/** Changes a member's role (null: guest). Runs in its own transaction. */
async function changeRole(em: Em, organizationId: string, userId: string, role: Role | null): Promise<void> {
  await transaction(em, async (tx) => {
    await guardLastAdmin(tx, organizationId, userId, role);
    await setMemberRole(tx, organizationId, userId, role);
  });
}

/**
 * Removes a member, with their places in the organization's teams, the grants made to them on
 * the organization's content and the invite links they made (a link is worth its creator's
 * rights). Runs in its own transaction.
 */
async function removeMember(em: Em, organizationId: string, userId: string): Promise<void> {
  await transaction(em, async (tx) => {
    await guardLastAdmin(tx, organizationId, userId, 'removed');
    await deleteMembership(tx, organizationId, userId);
    await deleteLinksCreatedBy(tx, organizationId, userId);
  });
}

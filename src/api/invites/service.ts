import type { Static } from 'typebox';
import {
  deleteInviteLink,
  findInviteLink,
  insertInviteLink,
  insertMembership,
  inviteLinkListing,
  lockMemberships,
  updateInviteLink,
  usersByEmail,
  type InviteLinkRow,
} from '../../db/invites.ts';
import { setMemberRole } from '../../db/members.ts';
import { transaction, type Em } from '../../db/orm.ts';
import { hashToken, newId } from '../../domain/ids.ts';
import {
  canInviteWith,
  INVITE_ID_LENGTH,
  inviteChangesRole,
  isEmailAddress,
  linkState,
  roleAfterInvite,
  rolesByEmail,
} from '../../domain/invites.ts';
import { isRole, type Role } from '../../domain/roles.ts';
import { inScope, requireOrganization } from '../access.ts';
import type { Ctx } from '../context.ts';
import { badRequest, forbidden, notFound } from '../errors.ts';
import { paginate } from '../pagination.ts';
import type { ListQuery } from '../schemas.ts';
import { linkRole, presentInviteLink } from './present.ts';
import type { CreateInviteLinkBody, InviteUsersBody, UpdateInviteLinkBody } from './schemas.ts';

/**
 * Organization invites. Admins invite users with an account by email, and create links that make
 * whoever holds them a member. Nobody invites with a role above their own, and accepting an invite
 * never lowers a role. A link's id is its secret: rows keep its hash (for lookups) and the id
 * sealed with the secrets key (for admins' lists), and it never appears in a log line.
 */

const ADMIN_ACTION = 'manage the invites of this organization';

const sealContext = (organizationId: string, keyHash: string) => `organization-invite-link:${organizationId}:${keyHash}`;

function requireInviteRole(creator: Role | null, role: Role | null) {
  if (!canInviteWith(creator, role)) throw forbidden(`You cannot invite with the ${role ?? 'guest'} role: it is above your own`);
}

/** An expiry from the body: undefined (unchanged), null (never) or a date, which must be in the future. */
function expiryOf(value: string | null | undefined, now: Date): Date | null | undefined {
  if (value === undefined || value === null) return value;
  const at = new Date(value);
  if (Number.isNaN(at.getTime())) throw badRequest('expiresAt must be a date-time');
  if (at.getTime() <= now.getTime()) throw badRequest('expiresAt must be in the future');
  return at;
}

/** Only invite links to the organization itself exist; links to a space or a collection are refused clearly. */
function refuseContentLinks(body: { level?: unknown; space?: unknown; collection?: unknown }) {
  if (body.space !== undefined || body.collection !== undefined || body.level !== undefined) {
    throw badRequest('Invite links to a space or a collection are not supported: create an organization link with `role`');
  }
}

type Outcome = 'added' | 'raised' | 'unchanged' | 'disabled';

/** Makes a user a member with `offered`, or raises a member's role to it; a disabled membership stays as it is. */
async function acceptInvite(tx: Em, organizationId: string, userId: string, offered: Role | null): Promise<Outcome> {
  for (let attempt = 0; attempt < 2; attempt++) {
    const member = (await lockMemberships(tx, organizationId, [userId])).get(userId);
    if (member === undefined) {
      if (await insertMembership(tx, organizationId, userId, offered, new Date())) return 'added';
      continue; // a concurrent invite made them a member: read that membership and raise it
    }
    if (member.disabled) return 'disabled';
    const current = isRole(member.role) ? member.role : null;
    if (!inviteChangesRole(current, offered)) return 'unchanged';
    await setMemberRole(tx, organizationId, userId, roleAfterInvite(current, offered));
    return 'raised';
  }
  return 'unchanged';
}

/**
 * Invites users by email. Users with an account become members with the role they are invited
 * with (members keep a higher role they hold); emails without an account are left out of the
 * answer and no account is created for them.
 */
export async function inviteUsers(ctx: Ctx, organizationId: string, body: Static<typeof InviteUsersBody>) {
  const { role } = await requireOrganization(ctx, organizationId, 'admin', ADMIN_ACTION);
  if (body.sso === true) throw badRequest('Inviting SSO users is not supported');
  const entries = body.emails.map((entry, i) => {
    const email = typeof entry === 'string' ? entry : entry.email;
    if (!isEmailAddress(email)) throw badRequest(`emails[${i}]: ${JSON.stringify(email)} is not an email address`);
    const offered = typeof entry === 'string' ? body.role : entry.role;
    if (offered === undefined) throw badRequest(`emails[${i}]: give a role for this email or a default \`role\``);
    requireInviteRole(role, offered);
    return { email, role: offered };
  });
  const wanted = rolesByEmail(entries);
  const users = await usersByEmail(ctx.em, [...wanted.keys()]);
  const reached = await transaction(ctx.em, async (tx) => {
    const out: string[] = [];
    // Memberships are locked in one order (by user id), so concurrent invites cannot deadlock.
    for (const user of [...users].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))) {
      const offered = wanted.get(user.email.toLowerCase());
      if (offered === undefined) continue;
      const outcome = await acceptInvite(tx, organizationId, user.id, offered);
      if (outcome === 'added' || outcome === 'raised') out.push(user.id);
    }
    return out;
  });
  return { users: reached, invited: reached.length };
}

/** A link of the organization by its id, with the id itself (the caller gave it). 404 when there is none. */
async function loadLink(ctx: Ctx, organizationId: string, inviteId: string): Promise<InviteLinkRow> {
  const link = await findInviteLink(ctx.em, organizationId, hashToken(inviteId));
  if (!link) throw notFound('Invite');
  return link;
}

export async function listInviteLinks(ctx: Ctx, organizationId: string, query: Static<typeof ListQuery>) {
  const { role } = await requireOrganization(ctx, organizationId, 'admin', ADMIN_ACTION);
  const box = await ctx.deps.secrets();
  return paginate(ctx.em, inviteLinkListing(ctx.em, organizationId), query, (rows) =>
    rows.map((row) => presentInviteLink(row, box.open(row.sealedId, sealContext(organizationId, row.keyHash)), role)),
  );
}

export async function createInviteLink(ctx: Ctx, organizationId: string, body: Static<typeof CreateInviteLinkBody>) {
  const { role } = await requireOrganization(ctx, organizationId, 'admin', ADMIN_ACTION);
  refuseContentLinks(body);
  if (body.role === undefined) throw badRequest('role is required (null invites as a guest)');
  requireInviteRole(role, body.role);
  const expiresAt = expiryOf(body.expiresAt, new Date()) ?? null;
  const id = newId(INVITE_ID_LENGTH);
  const keyHash = hashToken(id);
  const sealedId = (await ctx.deps.secrets()).seal(id, sealContext(organizationId, keyHash));
  await insertInviteLink(ctx.em, { keyHash, organizationId, sealedId, role: body.role, expiresAt, createdBy: ctx.caller.user.id });
  return presentInviteLink(await loadLink(ctx, organizationId, id), id, role);
}

export async function getInviteLink(ctx: Ctx, organizationId: string, inviteId: string) {
  const { role } = await requireOrganization(ctx, organizationId, 'admin', ADMIN_ACTION);
  return presentInviteLink(await loadLink(ctx, organizationId, inviteId), inviteId, role);
}

export async function updateInviteLinkById(ctx: Ctx, organizationId: string, inviteId: string, body: Static<typeof UpdateInviteLinkBody>) {
  const { role } = await requireOrganization(ctx, organizationId, 'admin', ADMIN_ACTION);
  const link = await loadLink(ctx, organizationId, inviteId);
  refuseContentLinks(body);
  if (body.role === undefined && body.expiresAt === undefined && body.disabled === undefined) {
    throw badRequest('Give at least one of role, expiresAt and disabled');
  }
  // Changing anything about a link hands out its role again: the same rule as creating it.
  requireInviteRole(role, body.role === undefined ? linkRole(link) : body.role);
  const expiresAt = expiryOf(body.expiresAt, new Date());
  await updateInviteLink(ctx.em, link.keyHash, { role: body.role, expiresAt, disabled: body.disabled }, new Date());
  return presentInviteLink(await loadLink(ctx, organizationId, inviteId), inviteId, role);
}

/** Deletes a link; false when the organization had no such link. */
export async function deleteInviteLinkById(ctx: Ctx, organizationId: string, inviteId: string): Promise<boolean> {
  await requireOrganization(ctx, organizationId, 'admin', ADMIN_ACTION);
  return deleteInviteLink(ctx.em, organizationId, hashToken(inviteId));
}

/**
 * Joins an organization with one of its links: the caller becomes a member with the link's role,
 * or keeps a higher role they already hold. Any signed-in user may try; a link of another
 * organization, or none, is 404; a disabled or expired link is 403.
 */
export async function joinWithInvite(ctx: Ctx, organizationId: string, inviteId: string): Promise<Record<string, never>> {
  if (!inScope(ctx.caller, organizationId)) throw notFound('Invite');
  const link = await loadLink(ctx, organizationId, inviteId);
  const state = linkState(link, new Date());
  if (state !== 'active') throw forbidden(`This invite link is ${state}`);
  const outcome = await transaction(ctx.em, (tx) => acceptInvite(tx, organizationId, ctx.caller.user.id, linkRole(link)));
  if (outcome === 'disabled') throw forbidden('Your membership of this organization is disabled');
  return {};
}

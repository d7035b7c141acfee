import type { Static } from 'typebox';
import type { ContentKind } from '../../db/access.ts';
import type { Collection, Space } from '../../db/entities.ts';
import { memberRole } from '../../db/access.ts';
import {
  deleteInviteLink,
  findInviteLink,
  insertInviteLink,
  insertMembership,
  inviteLinkListing,
  linkContent,
  lockMemberships,
  lockUserGrant,
  membersByEmail,
  pendingInviteListing,
  takePendingInvite,
  updateInviteLink,
  upsertEmailInvites,
  type InviteLinkRow,
} from '../../db/invites.ts';
import { setMemberRole } from '../../db/members.ts';
import { transaction, type Em } from '../../db/orm.ts';
import { upsertGrant } from '../../db/permissions.ts';
import { hashToken, newId } from '../../domain/ids.ts';
import {
  canInviteWith,
  INVITE_ID_LENGTH,
  inviteChangesRole,
  inviteTargetOf,
  isEmailAddress,
  linkGrant,
  linkState,
  roleAfterInvite,
  rolesByEmail,
} from '../../domain/invites.ts';
import { atLeast, isRole, type Role } from '../../domain/roles.ts';
import { contentRoles, inScope, loadCollection, loadSpace, requireOrganization, requireRole } from '../access.ts';
import { presentCollection } from '../collections/present.ts';
import type { Ctx } from '../context.ts';
import { badRequest, forbidden, notFound } from '../errors.ts';
import { urlsFor } from '../object-urls.ts';
import { paginate } from '../pagination.ts';
import type { ListQuery } from '../schemas.ts';
import { presentSpace } from '../spaces/present.ts';
import { linkContentOf, linkRole, presentInviteLink, presentPendingInvite, type LinkContent } from './present.ts';
import type { CreateInviteLinkBody, InviteUsersBody, UpdateInviteLinkBody } from './schemas.ts';

/**
 * Organization invites. Admins invite users by email: a user with an account gets an invitation
 * they accept or decline with their own token (never a membership they did not ask for), and the
 * answer is the same whether an email has an account or not. Admins create links that make
 * whoever holds them a member. Links to one space or collection (content links) are created by
 * anyone with the `create` role on that content (or above) and make whoever holds them a guest of
 * the organization (a member keeps their role) with the link's level on that content only. Nobody
 * invites with a role above their own (on the content, for a content link), and accepting an
 * invite never lowers a role. A link's power is its creator's current rights: it joins only while
 * its creator could still make it, and never gives more than they hold now. Admins list, change
 * and delete every link of the organization, whoever made it. A link's id is its secret: rows
 * keep its hash (for lookups) and the id sealed with the secrets key (for lists), and it never
 * appears in a log line.
 */

const ADMIN_ACTION = 'manage the invites of this organization';

const sealContext = (organizationId: string, keyHash: string) => `organization-invite-link:${organizationId}:${keyHash}`;

function requireInviteRole(creator: Role | null, role: Role | null, on?: ContentKind) {
  if (!canInviteWith(creator, role)) {
    throw forbidden(
      on
        ? `You cannot invite with the ${role ?? 'guest'} level: it is above your own role on this ${on}`
        : `You cannot invite with the ${role ?? 'guest'} role: it is above your own`,
    );
  }
}

const CONTENT_ACTION = (kind: ContentKind) => `invite people to this ${kind}`;

/** The content of a content link as the caller sees it, with their role on it (404 when they cannot see it, or it is of another organization). */
interface LoadedContent {
  kind: ContentKind;
  id: string;
  organizationId: string;
  role: Role | null;
  space?: Space;
  collection?: Collection;
}

async function loadContent(ctx: Ctx, organizationId: string, kind: ContentKind, id: string): Promise<LoadedContent> {
  if (kind === 'space') {
    const { space, role } = await loadSpace(ctx.em, ctx.caller, id);
    if (space.organizationId !== organizationId) throw notFound('Space');
    return { kind, id: space.id, organizationId, role, space };
  }
  const { collection, role } = await loadCollection(ctx.em, ctx.caller, id);
  if (collection.organizationId !== organizationId) throw notFound('Collection');
  return { kind, id: collection.id, organizationId, role, collection };
}

/** A content as a link shows it (GitBook's Space or Collection), with the caller's role on it. */
function showContent(ctx: Ctx, content: { kind: ContentKind; space?: Space; collection?: Collection }, role: Role | null): LinkContent {
  const urls = urlsFor(ctx.deps.config.publicUrl);
  if (content.kind === 'space') return { kind: 'space', space: presentSpace(content.space!, role, urls), role };
  return { kind: 'collection', collection: presentCollection(content.collection!, role, urls), role };
}

/**
 * The caller's standing on a link they want to read, change or delete: organization admins manage
 * every link; a content link is also managed by whoever has `create` on its content. Answers the
 * role links are compared with (the organization role, or the role on the content).
 */
async function authorizeLink(ctx: Ctx, organizationId: string, link: InviteLinkRow): Promise<{ role: Role | null; content?: LinkContent }> {
  const target = linkContentOf(link);
  const { role } = await requireOrganization(ctx, organizationId, target ? undefined : 'admin', ADMIN_ACTION);
  if (!target) return { role };
  const content = await loadContent(ctx, organizationId, target.kind, target.id);
  if (!atLeast(role, 'admin')) requireRole(content.role, 'create', CONTENT_ACTION(target.kind));
  return { role: content.role, content: showContent(ctx, content, content.role) };
}

/** An expiry from the body: undefined (unchanged), null (never) or a date, which must be in the future. */
function expiryOf(value: string | null | undefined, now: Date): Date | null | undefined {
  if (value === undefined || value === null) return value;
  const at = new Date(value);
  if (Number.isNaN(at.getTime())) throw badRequest('expiresAt must be a date-time');
  if (at.getTime() <= now.getTime()) throw badRequest('expiresAt must be in the future');
  return at;
}

type Outcome = 'added' | 'raised' | 'unchanged' | 'disabled';

/**
 * Makes a user a member with `offered`, or raises a member's role to it; a disabled membership
 * stays as it is. With `join` false, only raises a membership there is (never makes a member).
 */
async function acceptInvite(tx: Em, organizationId: string, userId: string, offered: Role | null, join = true): Promise<Outcome> {
  for (let attempt = 0; attempt < 2; attempt++) {
    const member = (await lockMemberships(tx, organizationId, [userId])).get(userId);
    if (member === undefined) {
      if (!join) return 'unchanged';
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
 * Invites users by email. Members of the organization get the role they are invited with (they
 * keep a higher one) and are in the answer. Everyone else gets an invitation that waits for them:
 * a user with an account sees it (GET /v1/user/invites) and accepts or declines it; an email
 * without an account gets nothing, and no account is made for it. Both are written by the same
 * one statement and neither is in the answer, so the answer does not tell them apart.
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
  const members = await membersByEmail(ctx.em, organizationId, [...wanted.keys()]);
  const reached = await transaction(ctx.em, async (tx) => {
    const out: string[] = [];
    // Memberships are locked in one order (by user id), so concurrent invites cannot deadlock.
    for (const user of [...members].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))) {
      const offered = wanted.get(user.email.toLowerCase());
      if (offered === undefined) continue;
      const outcome = await acceptInvite(tx, organizationId, user.id, offered, false);
      if (outcome === 'raised') out.push(user.id);
    }
    const invites = [...wanted].map(([email, role]) => ({ email, role, id: newId() }));
    await upsertEmailInvites(tx, organizationId, invites, ctx.caller.user.id);
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

/**
 * Every link of the organization, oldest first, whoever made it: links to the organization, and
 * links to its spaces and collections (with `level` and the content, and `role` null: joining
 * with one makes a guest of the organization), so admins find and revoke each of them.
 */
export async function listInviteLinks(ctx: Ctx, organizationId: string, query: Static<typeof ListQuery>) {
  const { role } = await requireOrganization(ctx, organizationId, 'admin', ADMIN_ACTION);
  const box = await ctx.deps.secrets();
  return paginate(ctx.em, inviteLinkListing(ctx.em, organizationId), query, async (rows) => {
    const content = await linkedContent(ctx, { userId: ctx.caller.user.id, role }, rows);
    return rows.map((row) => {
      const id = box.open(row.sealedId, sealContext(organizationId, row.keyHash));
      const target = linkContentOf(row);
      return target ? { ...presentInviteLink(row, id, role, content.get(target.id)), role: null } : presentInviteLink(row, id, role);
    });
  });
}

/** The spaces and collections of these links, as each link shows its content to `viewer`, by id. */
async function linkedContent(ctx: Ctx, viewer: { userId: string; role: Role | null }, rows: InviteLinkRow[]) {
  const spaceIds = rows.flatMap((r) => (r.spaceId ? [r.spaceId] : []));
  const collectionIds = rows.flatMap((r) => (r.collectionId ? [r.collectionId] : []));
  const { spaces, collections } = await linkContent(ctx.em, spaceIds, collectionIds);
  const [spaceRoles, collectionRoles] = await Promise.all([
    contentRoles(ctx.em, viewer, 'space', [...spaces.values()]),
    contentRoles(ctx.em, viewer, 'collection', [...collections.values()]),
  ]);
  const out = new Map<string, LinkContent>();
  for (const space of spaces.values()) out.set(space.id, showContent(ctx, { kind: 'space', space }, spaceRoles.get(space.id) ?? null));
  for (const collection of collections.values()) {
    out.set(collection.id, showContent(ctx, { kind: 'collection', collection }, collectionRoles.get(collection.id) ?? null));
  }
  return out;
}

/**
 * A new link: to the organization (`{role}`, admins), or to one space or collection of it
 * (`{level, space}` / `{level, collection}`, the `create` role on that content). The role or level
 * is never above the creator's own (on the content, for a content link).
 */
export async function createInviteLink(ctx: Ctx, organizationId: string, body: Static<typeof CreateInviteLinkBody>) {
  const target = inviteTargetOf(body);
  if ('error' in target) {
    await requireOrganization(ctx, organizationId);
    throw badRequest(target.error);
  }
  let role: Role | null;
  let content: LoadedContent | undefined;
  if (target.kind === 'organization') {
    role = (await requireOrganization(ctx, organizationId, 'admin', ADMIN_ACTION)).role;
    requireInviteRole(role, target.role);
  } else {
    await requireOrganization(ctx, organizationId);
    content = await loadContent(ctx, organizationId, target.kind, target.id);
    role = content.role;
    requireRole(role, 'create', CONTENT_ACTION(target.kind));
    requireInviteRole(role, target.level, target.kind);
  }
  const expiresAt = expiryOf(body.expiresAt, new Date()) ?? null;
  const id = newId(INVITE_ID_LENGTH);
  const keyHash = hashToken(id);
  const sealedId = (await ctx.deps.secrets()).seal(id, sealContext(organizationId, keyHash));
  await insertInviteLink(ctx.em, {
    keyHash,
    organizationId,
    sealedId,
    role: target.kind === 'organization' ? target.role : target.level,
    spaceId: target.kind === 'space' ? target.id : null,
    collectionId: target.kind === 'collection' ? target.id : null,
    expiresAt,
    createdBy: ctx.caller.user.id,
  });
  return presentInviteLink(await loadLink(ctx, organizationId, id), id, role, content && showContent(ctx, content, role));
}

export async function getInviteLink(ctx: Ctx, organizationId: string, inviteId: string) {
  await requireOrganization(ctx, organizationId);
  const link = await loadLink(ctx, organizationId, inviteId);
  const { role, content } = await authorizeLink(ctx, organizationId, link);
  return presentInviteLink(link, inviteId, role, content);
}

/**
 * Changes a link's role (organization links) or level (content links), expiry or state. Changing
 * anything about a link hands out its role again: the same rule as creating it.
 */
export async function updateInviteLinkById(ctx: Ctx, organizationId: string, inviteId: string, body: Static<typeof UpdateInviteLinkBody>) {
  await requireOrganization(ctx, organizationId);
  const link = await loadLink(ctx, organizationId, inviteId);
  const { role, content } = await authorizeLink(ctx, organizationId, link);
  const target = linkContentOf(link);
  if (target && body.role !== undefined) throw badRequest(`This link invites to a ${target.kind}: change its level, not a role`);
  if (!target && body.level !== undefined) throw badRequest('This link invites to the organization: change its role, not a level');
  if (target && body.level === null) throw badRequest('level must be a role: a link to a space or a collection always gives one');
  const newRole = target ? body.level : body.role;
  if (newRole === undefined && body.expiresAt === undefined && body.disabled === undefined) {
    throw badRequest(`Give at least one of ${target ? 'level' : 'role'}, expiresAt and disabled`);
  }
  requireInviteRole(role, newRole === undefined ? linkRole(link) : newRole, target?.kind);
  const expiresAt = expiryOf(body.expiresAt, new Date());
  await updateInviteLink(ctx.em, link.keyHash, { role: newRole, expiresAt, disabled: body.disabled }, new Date());
  return presentInviteLink(await loadLink(ctx, organizationId, inviteId), inviteId, role, content);
}

/** Deletes a link (organization admins; for a content link, also `create` on its content); false when the organization had no such link. */
export async function deleteInviteLinkById(ctx: Ctx, organizationId: string, inviteId: string): Promise<boolean> {
  const { role } = await requireOrganization(ctx, organizationId);
  const link = await findInviteLink(ctx.em, organizationId, hashToken(inviteId));
  if (!link) {
    requireRole(role, 'admin', ADMIN_ACTION);
    return false;
  }
  // Admins delete every link of the organization, also one whose space is in the bin (and so not loaded).
  if (!atLeast(role, 'admin')) await authorizeLink(ctx, organizationId, link);
  return deleteInviteLink(ctx.em, organizationId, link.keyHash);
}

/**
 * Gives a member the link's level on a space or collection: a grant to them there, never lowering
 * one they already hold. Run it in the transaction that made them a member.
 */
async function grantContent(tx: Em, organizationId: string, userId: string, target: { kind: ContentKind; id: string }, level: Role) {
  const held = await lockUserGrant(tx, target.kind, target.id, userId);
  const current = isRole(held) ? held : undefined;
  if (current !== undefined && !inviteChangesRole(current, level)) return;
  const role = roleAfterInvite(current, level) ?? level;
  await upsertGrant(tx, newId(), { ...target, organizationId }, 'user', userId, role, new Date());
}

/**
 * Joins an organization with one of its links: the caller becomes a member with the link's role,
 * or keeps a higher role they already hold. With a content link, the caller becomes a guest of the
 * organization (a member keeps their role) and gets the link's level on that space or collection
 * only. Any signed-in user may try; a link of another organization, or none, is 404; a disabled
 * or expired link is 403; a link whose content is gone is 404. A link is worth its creator's
 * current rights (linkGrant): once its creator is no longer an active member, or could no longer
 * make it (admin for a link to the organization, create on the content for a content link), it
 * is 404, as a deleted link; and it never gives more than its creator holds now.
 */
export async function joinWithInvite(ctx: Ctx, organizationId: string, inviteId: string): Promise<Record<string, never>> {
  if (!inScope(ctx.caller, organizationId)) throw notFound('Invite');
  const link = await loadLink(ctx, organizationId, inviteId);
  const state = linkState(link, new Date());
  if (state !== 'active') throw forbidden(`This invite link is ${state}`);
  const target = linkContentOf(link);
  const offered = linkRole(link);
  const creatorRole = await memberRole(ctx.em, organizationId, link.createdBy);
  const creator = creatorRole === undefined ? undefined : isRole(creatorRole) ? creatorRole : null;
  let level: Role | null | undefined;
  if (target) {
    const { spaces, collections } = await linkContent(
      ctx.em,
      target.kind === 'space' ? [target.id] : [],
      target.kind === 'collection' ? [target.id] : [],
    );
    const space = spaces.get(target.id);
    const item = target.kind === 'space' ? space : collections.get(target.id);
    if (!item || space?.deletedAt || offered === null) throw notFound('Invite');
    const onContent =
      creator === undefined
        ? undefined
        : (await contentRoles(ctx.em, { userId: link.createdBy, role: creator }, target.kind, [item])).get(item.id);
    level = linkGrant(offered, onContent, 'create');
    if (level === undefined || level === null) throw notFound('Invite');
  } else {
    level = linkGrant(offered, creator, 'admin');
    if (level === undefined) throw notFound('Invite');
  }
  const outcome = await transaction(ctx.em, async (tx) => {
    const joined = await acceptInvite(tx, organizationId, ctx.caller.user.id, target ? null : level);
    if (joined !== 'disabled' && target && level !== null) await grantContent(tx, organizationId, ctx.caller.user.id, target, level);
    return joined;
  });
  if (outcome === 'disabled') throw forbidden('Your membership of this organization is disabled');
  return {};
}

/** The invitations by email waiting for the caller (of the token's organization only, for a token bound to one), oldest first. */
export async function listPendingInvites(ctx: Ctx, query: Static<typeof ListQuery>) {
  const listing = pendingInviteListing(ctx.em, ctx.caller.user.id, ctx.caller.organizationId);
  return paginate(ctx.em, listing, query, (rows) => rows.map(presentPendingInvite));
}

/**
 * Accepts an invitation by email: the caller becomes a member with its role (a member keeps a
 * higher role). Only the invited user accepts it; anyone else's request is 404, as for none.
 */
export async function acceptPendingInvite(ctx: Ctx, inviteId: string): Promise<Record<string, never>> {
  await transaction(ctx.em, async (tx) => {
    const invite = await takePendingInvite(tx, inviteId, ctx.caller.user.id, ctx.caller.organizationId);
    if (!invite) throw notFound('Invite');
    const joined = await acceptInvite(tx, invite.organizationId, ctx.caller.user.id, isRole(invite.role) ? invite.role : null);
    // Thrown inside the transaction: the invitation stays for when the membership is enabled again.
    if (joined === 'disabled') throw forbidden('Your membership of this organization is disabled');
  });
  return {};
}

/** Declines an invitation by email: it is deleted, and the caller stays out. 404 when the caller has no such invitation. */
export async function declinePendingInvite(ctx: Ctx, inviteId: string): Promise<void> {
  const invite = await takePendingInvite(ctx.em, inviteId, ctx.caller.user.id, ctx.caller.organizationId);
  if (!invite) throw notFound('Invite');
}

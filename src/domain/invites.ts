import { atLeast, highest, type Role } from './roles.ts';

/** The rules of organization invites (by email and by link), free of I/O. */

/** Length of an invite link's id: the id is the secret that joins, so it is longer than an object id (about 190 bits). */
export const INVITE_ID_LENGTH = 32;

/**
 * Whether a member with `creator` role may invite with `role` (null: as a guest): never above their
 * own role, and only with a role at all.
 */
export function canInviteWith(creator: Role | null, role: Role | null): boolean {
  if (creator === null) return false;
  return role === null || atLeast(creator, role);
}

/**
 * The role a user holds after accepting an invite for `offered`: a newcomer gets exactly the offered
 * role; a member keeps the higher of the two, so an invite never lowers a role (a guest, null, is
 * the lowest).
 */
export function roleAfterInvite(current: Role | null | undefined, offered: Role | null): Role | null {
  if (current === undefined) return offered;
  return highest(current, offered);
}

/** Whether accepting an invite for `offered` changes anything for a user holding `current`. */
export function inviteChangesRole(current: Role | null | undefined, offered: Role | null): boolean {
  return current === undefined || roleAfterInvite(current, offered) !== current;
}

export type LinkState = 'active' | 'disabled' | 'expired';

/** Whether an invite link still joins at `now`. */
export function linkState(link: { disabled: boolean; expiresAt: string | Date | null }, now: Date): LinkState {
  if (link.disabled) return 'disabled';
  if (link.expiresAt !== null && new Date(link.expiresAt).getTime() <= now.getTime()) return 'expired';
  return 'active';
}

/**
 * A plausible email address: one `@`, something before it, a dotted domain after it, no spaces or
 * angle brackets. Deliverability is not checked; the address only has to name an account.
 */
export function isEmailAddress(value: string): boolean {
  return value.length <= 320 && /^[^\s@<>]+@[^\s@<>.]+(\.[^\s@<>.]+)+$/.test(value);
}

/** Emails (any case) to the role each is invited with; an email given twice keeps its highest role. */
export function rolesByEmail(entries: { email: string; role: Role | null }[]): Map<string, Role | null> {
  const out = new Map<string, Role | null>();
  for (const { email, role } of entries) {
    const key = email.toLowerCase();
    out.set(key, out.has(key) ? highest(out.get(key), role) : role);
  }
  return out;
}

/** What an invite link invites to: the organization with a role, or one space or collection with a level. */
export type InviteTarget = { kind: 'organization'; role: Role | null } | { kind: 'space' | 'collection'; id: string; level: Role };

/**
 * The target of a new invite link from GitBook's CreateOrganizationInvite body (`{role}`,
 * `{level, space}` or `{level, collection}`), or why the body is not one of them. A content link
 * always has a level: a guest, null, has no access to give.
 */
export function inviteTargetOf(body: {
  role?: Role | null;
  level?: Role | null;
  space?: string;
  collection?: string;
}): InviteTarget | { error: string } {
  const { role, level, space, collection } = body;
  if (space !== undefined && collection !== undefined) return { error: 'Give space or collection, not both' };
  const id = space ?? collection;
  if (id === undefined) {
    if (level !== undefined) return { error: 'level is for links to a space or a collection: give space or collection, or use role' };
    if (role === undefined) return { error: 'role is required (null invites as a guest)' };
    return { kind: 'organization', role };
  }
  if (role !== undefined) return { error: 'role is for links to the organization: a link to a space or a collection takes level' };
  if (level === undefined || level === null)
    return { error: 'level is required for a link to a space or a collection, and must be a role' };
  return { kind: space !== undefined ? 'space' : 'collection', id, level };
}

/**
 * What a link grants when it is used: a link's power is its creator's current rights. `creator` is
 * the creator's role now (in the organization for a link to it, on the content for a content
 * link; undefined when they are no longer an active member). The link works only while its
 * creator could still make it (`toCreate`: admin for an organization link, create for a content
 * link), and never gives more than the creator holds now. Undefined: the link no longer joins.
 */
export function linkGrant(offered: Role | null, creator: Role | null | undefined, toCreate: Role): Role | null | undefined {
  if (!atLeast(creator, toCreate)) return undefined;
  if (offered === null || atLeast(creator, offered)) return offered;
  return creator ?? undefined;
}

import { ApiToken, Member, Organization, User } from './entities.ts';
import { db } from './kysely.ts';
import type { Em } from './orm.ts';
import { hashToken, newId, newToken } from '../domain/ids.ts';
import type { Role } from '../domain/roles.ts';

/**
 * Creating organizations, users, memberships and API tokens (the spec leaves how credentials are
 * obtained open; operators do it with the admin command). Rows are flushed parent first because
 * foreign keys are plain columns.
 */

export async function findOrCreateUser(em: Em, email: string, displayName?: string): Promise<User> {
  const existing = await em.findOne(User, { email });
  if (existing) return existing;
  const user = em.create(User, {
    id: newId(),
    email,
    displayName: displayName ?? email.split('@')[0],
    photoUrl: null,
    createdAt: new Date(),
  });
  await em.flush();
  return user;
}

/**
 * Issues a new token; the secret is returned once and only its hash is stored. With
 * `organizationId`, the token works in that organization only.
 */
export async function issueToken(
  em: Em,
  userId: string,
  label: string,
  organizationId: string | null = null,
): Promise<{ token: string; tokenId: string }> {
  const token = newToken();
  const row = em.create(ApiToken, {
    id: newId(),
    userId,
    organizationId,
    tokenHash: hashToken(token),
    label,
    createdAt: new Date(),
    lastUsedAt: null,
    revokedAt: null,
  });
  await em.flush();
  return { token, tokenId: row.id };
}

/** A user by email (exactly as stored). */
export async function findUserByEmail(em: Em, email: string): Promise<{ id: string } | undefined> {
  return db(em).selectFrom('app_user').select('id').where('email', '=', email).executeTakeFirst();
}

/** A token that is not revoked, found by the hash of its secret, with its user. */
export interface LiveToken {
  id: string;
  organizationId: string | null;
  lastUsedAt: Date | null;
  user: { id: string; displayName: string; email: string; photoUrl: string | null };
}

/** The live token whose secret hashes to `tokenHash`, with its user; undefined when there is none (or it was revoked). */
export async function liveToken(em: Em, tokenHash: string): Promise<LiveToken | undefined> {
  const row = await db(em)
    .selectFrom('api_token as t')
    .innerJoin('app_user as u', 'u.id', 't.user_id')
    .select(['t.id', 't.organization_id', 't.last_used_at', 'u.id as user_id', 'u.display_name', 'u.email', 'u.photo_url'])
    .where('t.token_hash', '=', tokenHash)
    .where('t.revoked_at', 'is', null)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    id: row.id,
    organizationId: row.organization_id,
    // The driver hands `timestamptz` over as text (the ORM's type parsers keep it raw), whatever the row type says.
    lastUsedAt: row.last_used_at === null ? null : new Date(row.last_used_at),
    user: { id: row.user_id, displayName: row.display_name, email: row.email, photoUrl: row.photo_url },
  };
}

/** Records when a token was last used. */
export async function touchToken(em: Em, tokenId: string, at: Date): Promise<void> {
  await em.nativeUpdate(ApiToken, { id: tokenId }, { lastUsedAt: at });
}

export async function revokeToken(em: Em, where: { token: string } | { tokenId: string }): Promise<boolean> {
  const filter = 'token' in where ? { tokenHash: hashToken(where.token) } : { id: where.tokenId };
  return (await em.nativeUpdate(ApiToken, { ...filter, revokedAt: null }, { revokedAt: new Date() })) > 0;
}

export async function createOrganization(em: Em, title: string): Promise<Organization> {
  const org = em.create(Organization, { id: newId(), title, createdAt: new Date() });
  await em.flush();
  return org;
}

/** Adds the user to the organization with `role` (null: guest), or changes the role of a member. */
export async function setMembership(em: Em, organizationId: string, userId: string, role: Role | null): Promise<void> {
  const member = await em.findOne(Member, { organizationId, userId });
  if (member) member.role = role;
  else em.create(Member, { organizationId, userId, role, disabled: false, sso: false, joinedAt: new Date(), lastSeenAt: null });
  await em.flush();
}

import { ApiToken, Member, Organization, User } from './entities.ts';
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

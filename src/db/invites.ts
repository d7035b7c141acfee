import { expressionBuilder, sql, type InferResult } from 'kysely';
import { Collection, Space } from './entities.ts';
import { db, type Db } from './kysely.ts';
import type { Listing } from './listing.ts';
import type { Em } from './orm.ts';

/**
 * Invite links of organizations (to the organization, or to one space or collection of it), and
 * the membership and grant writes that invites make.
 */

function linkRows(em: Em) {
  return db(em)
    .selectFrom('organization_invite_link as l')
    .select([
      'l.key_hash as keyHash',
      'l.organization_id as organizationId',
      'l.sealed_id as sealedId',
      'l.role',
      'l.space_id as spaceId',
      'l.collection_id as collectionId',
      'l.expires_at as expiresAt',
      'l.disabled',
      'l.created_at as createdAt',
    ]);
}

/** An invite link as it is shown (its id still sealed). */
export type InviteLinkRow = InferResult<ReturnType<typeof linkRows>>[number];

/** Links are listed oldest first, compared at millisecond precision (the precision of a page cursor). */
const byCreation = expressionBuilder<Db>().fn<string>('date_trunc', [sql.lit('milliseconds'), sql.ref('l.created_at')]);

export async function insertInviteLink(
  em: Em,
  link: {
    keyHash: string;
    organizationId: string;
    sealedId: string;
    role: string | null;
    spaceId?: string | null;
    collectionId?: string | null;
    expiresAt: Date | null;
    createdBy: string;
  },
): Promise<void> {
  await db(em)
    .insertInto('organization_invite_link')
    .values({
      key_hash: link.keyHash,
      organization_id: link.organizationId,
      sealed_id: link.sealedId,
      role: link.role,
      space_id: link.spaceId ?? null,
      collection_id: link.collectionId ?? null,
      expires_at: link.expiresAt,
      created_by: link.createdBy,
    })
    .execute();
}

/** The invite link of an organization whose id hashes to `keyHash`; undefined when it has none. */
export async function findInviteLink(em: Em, organizationId: string, keyHash: string): Promise<InviteLinkRow | undefined> {
  return linkRows(em).where('l.key_hash', '=', keyHash).where('l.organization_id', '=', organizationId).executeTakeFirst();
}

/** The invite links of an organization to itself (not to one space or collection of it), oldest first. */
export function inviteLinkListing(em: Em, organizationId: string): Listing<InviteLinkRow & { sortKey: string }> {
  const query = linkRows(em)
    .select(byCreation.as('sortKey'))
    .where('l.organization_id', '=', organizationId)
    .where('l.space_id', 'is', null)
    .where('l.collection_id', 'is', null);
  return {
    query,
    keys: [
      { field: 'sortKey', kind: 'date' },
      { field: 'keyHash', kind: 'string' },
    ],
  };
}

/** Changes the role, expiry or state of a link; fields left undefined stay as they are. */
export async function updateInviteLink(
  em: Em,
  keyHash: string,
  patch: { role?: string | null; expiresAt?: Date | null; disabled?: boolean },
  at: Date,
): Promise<void> {
  await db(em)
    .updateTable('organization_invite_link')
    .set({ role: patch.role, expires_at: patch.expiresAt, disabled: patch.disabled, updated_at: at })
    .where('key_hash', '=', keyHash)
    .execute();
}

/** Deletes a link of an organization; whether there was one. */
export async function deleteInviteLink(em: Em, organizationId: string, keyHash: string): Promise<boolean> {
  const result = await db(em)
    .deleteFrom('organization_invite_link')
    .where('key_hash', '=', keyHash)
    .where('organization_id', '=', organizationId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Users whose email (any case) is one of `emails`. */
export async function usersByEmail(em: Em, emails: string[]): Promise<{ id: string; email: string }[]> {
  if (emails.length === 0) return [];
  return db(em)
    .selectFrom('app_user as u')
    .select(['u.id', 'u.email'])
    .where(
      (eb) => eb.fn<string>('lower', ['u.email']),
      'in',
      emails.map((e) => e.toLowerCase()),
    )
    .execute();
}

/** The memberships of users in an organization, locked until the transaction ends (an invite reads, then raises them). */
export async function lockMemberships(
  tx: Em,
  organizationId: string,
  userIds: string[],
): Promise<Map<string, { role: string | null; disabled: boolean }>> {
  const out = new Map<string, { role: string | null; disabled: boolean }>();
  if (userIds.length === 0) return out;
  const rows = await db(tx)
    .selectFrom('member')
    .select(['user_id', 'role', 'disabled'])
    .where('organization_id', '=', organizationId)
    .where('user_id', 'in', userIds)
    .forUpdate()
    .execute();
  for (const row of rows) out.set(row.user_id, { role: row.role, disabled: row.disabled });
  return out;
}

/** Makes a user a member with `role`; false when they already were one (a concurrent invite got there first). */
export async function insertMembership(em: Em, organizationId: string, userId: string, role: string | null, at: Date): Promise<boolean> {
  const rows = await db(em)
    .insertInto('member')
    .values({ organization_id: organizationId, user_id: userId, role, disabled: false, sso: false, joined_at: at, last_seen_at: null })
    .onConflict((oc) => oc.columns(['organization_id', 'user_id']).doNothing())
    .returning('user_id')
    .execute();
  return rows.length > 0;
}

/** The spaces and collections content links point at (deleted spaces too), by id. */
export async function linkContent(
  em: Em,
  spaceIds: string[],
  collectionIds: string[],
): Promise<{ spaces: Map<string, Space>; collections: Map<string, Collection> }> {
  const [spaces, collections] = await Promise.all([
    spaceIds.length ? em.find(Space, { id: { $in: spaceIds } }) : Promise.resolve([]),
    collectionIds.length ? em.find(Collection, { id: { $in: collectionIds } }) : Promise.resolve([]),
  ]);
  return { spaces: new Map(spaces.map((x) => [x.id, x])), collections: new Map(collections.map((x) => [x.id, x])) };
}

/** The role granted to a user on a space or collection, locked until the transaction ends; undefined when none. */
export async function lockUserGrant(tx: Em, kind: 'space' | 'collection', targetId: string, userId: string): Promise<string | undefined> {
  const row = await db(tx)
    .selectFrom('content_permission')
    .select('role')
    .where(kind === 'space' ? 'space_id' : 'collection_id', '=', targetId)
    .where('user_id', '=', userId)
    .forUpdate()
    .executeTakeFirst();
  return row?.role;
}

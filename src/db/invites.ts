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
      'l.created_by as createdBy',
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

/** Every invite link of an organization (to itself, or to one space or collection of it), whoever made it, oldest first. */
export function inviteLinkListing(em: Em, organizationId: string): Listing<InviteLinkRow & { sortKey: string }> {
  const query = linkRows(em).select(byCreation.as('sortKey')).where('l.organization_id', '=', organizationId);
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

/** Deletes the invite links a user made in an organization (they are no longer a member); how many. */
export async function deleteLinksCreatedBy(tx: Em, organizationId: string, userId: string): Promise<number> {
  const result = await db(tx)
    .deleteFrom('organization_invite_link')
    .where('organization_id', '=', organizationId)
    .where('created_by', '=', userId)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** The members of an organization (disabled ones too) whose email (any case) is one of `emails`. */
export async function membersByEmail(em: Em, organizationId: string, emails: string[]): Promise<{ id: string; email: string }[]> {
  if (emails.length === 0) return [];
  return db(em)
    .selectFrom('app_user as u')
    .innerJoin('member as m', 'm.user_id', 'u.id')
    .select(['u.id', 'u.email'])
    .where('m.organization_id', '=', organizationId)
    .where(
      (eb) => eb.fn<string>('lower', ['u.email']),
      'in',
      emails.map((e) => e.toLowerCase()),
    )
    .execute();
}

/**
 * Invitations by email to the users with an account among `invites` who are not members of the
 * organization, in one statement whatever the emails are (an email without an account, or of a
 * member, matches no row): an invitation already waiting gets the new role. `ids` gives each email
 * the id its invitation gets if it is new (one id per email; unused ids are dropped).
 */
export async function upsertEmailInvites(
  tx: Em,
  organizationId: string,
  invites: { email: string; role: string | null; id: string }[],
  invitedBy: string,
): Promise<void> {
  if (invites.length === 0) return;
  const emails = invites.map((i) => i.email.toLowerCase());
  const roles = invites.map((i) => i.role);
  const ids = invites.map((i) => i.id);
  // The emails as a table, one row each: Kysely has no builder for `unnest` of several arrays with column names.
  const given = sql<{
    email: string;
    role: string | null;
    id: string;
  }>`unnest(${emails}::text[], ${roles}::text[], ${ids}::text[])`.as<'e'>(sql`e(email, role, id)`);
  await db(tx)
    .insertInto('organization_email_invite')
    .columns(['id', 'organization_id', 'user_id', 'role', 'invited_by'])
    .expression((eb) =>
      eb
        .selectFrom(given)
        .innerJoin('app_user as u', (join) => join.on((e) => e(e.fn<string>('lower', ['u.email']), '=', e.ref('e.email'))))
        .select((e) => [
          'e.id',
          e.val(organizationId).as('organization_id'),
          'u.id as user_id',
          'e.role',
          e.val(invitedBy).as('invited_by'),
        ])
        .where((e) =>
          e.not(
            e.exists(
              e
                .selectFrom('member as m')
                .select('m.user_id')
                .whereRef('m.user_id', '=', 'u.id')
                .where('m.organization_id', '=', organizationId),
            ),
          ),
        ),
    )
    .onConflict((oc) =>
      oc
        .columns(['organization_id', 'user_id'])
        .doUpdateSet((eb) => ({ role: eb.ref('excluded.role'), invited_by: eb.ref('excluded.invited_by') })),
    )
    .execute();
}

function pendingInviteRows(em: Em) {
  return db(em)
    .selectFrom('organization_email_invite as i')
    .innerJoin('organization as o', 'o.id', 'i.organization_id')
    .select(['i.id', 'i.organization_id as organizationId', 'o.title as organizationTitle', 'i.role', 'i.created_at as createdAt']);
}

/** An invitation by email waiting for its user, with the organization it invites to. */
export type PendingInviteRow = InferResult<ReturnType<typeof pendingInviteRows>>[number];

/** The invitations waiting for a user (of one organization only, with `organizationId`), oldest first. */
export function pendingInviteListing(
  em: Em,
  userId: string,
  organizationId: string | null,
): Listing<PendingInviteRow & { sortKey: string }> {
  let query = pendingInviteRows(em)
    .select(
      expressionBuilder<Db>()
        .fn<string>('date_trunc', [sql.lit('milliseconds'), sql.ref('i.created_at')])
        .as('sortKey'),
    )
    .where('i.user_id', '=', userId);
  if (organizationId !== null) query = query.where('i.organization_id', '=', organizationId);
  return {
    query,
    keys: [
      { field: 'sortKey', kind: 'date' },
      { field: 'id', kind: 'string' },
    ],
  };
}

/**
 * Takes (deletes and answers) the invitation `id` of `userId`; undefined when they have no such
 * invitation (or it is of another organization than `organizationId`, when given).
 */
export async function takePendingInvite(
  tx: Em,
  id: string,
  userId: string,
  organizationId: string | null,
): Promise<{ organizationId: string; role: string | null } | undefined> {
  let query = db(tx).deleteFrom('organization_email_invite').where('id', '=', id).where('user_id', '=', userId);
  if (organizationId !== null) query = query.where('organization_id', '=', organizationId);
  const row = await query.returning(['organization_id', 'role']).executeTakeFirst();
  return row && { organizationId: row.organization_id, role: row.role };
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

/** The organizations among `organizationIds` that have an invite link anyone holding it can use now (not disabled, not expired). */
export async function organizationsWithActiveInviteLinks(em: Em, organizationIds: string[], now: Date): Promise<Set<string>> {
  if (organizationIds.length === 0) return new Set();
  const rows = await db(em)
    .selectFrom('organization_invite_link as l')
    .select('l.organization_id')
    .distinct()
    .where('l.organization_id', 'in', organizationIds)
    .where('l.disabled', '=', false)
    .where((eb) => eb.or([eb('l.expires_at', 'is', null), eb('l.expires_at', '>', now.toISOString())]))
    .execute();
  return new Set(rows.map((r) => r.organization_id));
}

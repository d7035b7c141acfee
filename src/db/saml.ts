import { sql } from 'kysely';
import { db, type Read } from './kysely.ts';
import type { Listing } from './listing.ts';
import type { Em } from './orm.ts';
import type { SamlProvider } from './saml-entities.ts';

/**
 * SAML single sign-on: the providers of an organization (`saml_provider`), the teams a provider
 * puts people in, the login requests this service sent (`saml_request`), the assertions already
 * used (`saml_assertion`), and the writes of a sign-in.
 */

// --- Providers --------------------------------------------------------------------------------

/** A provider as the API presents it: the entity's fields, read as a plain row. */
export type SamlProviderRow = SamlProvider;

/** The provider fields an admin sets. */
export type SamlProviderChanges = Partial<
  Pick<SamlProvider, 'label' | 'ssoUrl' | 'entityId' | 'certificate' | 'defaultTeamId' | 'defaultRole'>
>;

/**
 * A provider row with its times as Dates. The driver hands `timestamptz` over as text (the ORM's type parsers
 * keep it raw), whatever the row type says: every row read here goes through this, and so must
 * the rows of `providerListing` before they are presented.
 */
export function providerRow(row: Read<SamlProviderRow>): SamlProviderRow {
  return { ...row, createdAt: new Date(row.createdAt), updatedAt: new Date(row.updatedAt) };
}

function providers(em: Em) {
  return db(em)
    .selectFrom('saml_provider')
    .select([
      'id',
      'organization_id as organizationId',
      'label',
      'sso_url as ssoUrl',
      'entity_id as entityId',
      'certificate',
      'default_team_id as defaultTeamId',
      'default_role as defaultRole',
      'created_at as createdAt',
      'updated_at as updatedAt',
    ]);
}

/** A provider by id, whatever its organization. */
export async function findProvider(em: Em, id: string): Promise<SamlProviderRow | undefined> {
  const row = await providers(em).where('id', '=', id).executeTakeFirst();
  return row && providerRow(row);
}

/** A provider of the organization. */
export async function findProviderOf(em: Em, organizationId: string, id: string): Promise<SamlProviderRow | undefined> {
  const row = await providers(em).where('id', '=', id).where('organization_id', '=', organizationId).executeTakeFirst();
  return row && providerRow(row);
}

/** The providers of an organization, oldest first. */
export async function providersOf(em: Em, organizationId: string): Promise<SamlProviderRow[]> {
  const rows = await providers(em)
    .where('organization_id', '=', organizationId)
    .orderBy('created_at', 'asc')
    .orderBy('id', 'asc')
    .execute();
  return rows.map(providerRow);
}

/** The providers of an organization as a listing, oldest first. */
export function providerListing(em: Em, organizationId: string): Listing<Read<SamlProviderRow>> {
  return {
    query: providers(em).where('organization_id', '=', organizationId),
    keys: [
      { field: 'createdAt', kind: 'date' },
      { field: 'id', kind: 'string' },
    ],
  };
}

/** Creates a provider; returns it as read back. */
export async function createProvider(
  em: Em,
  provider: { id: string; organizationId: string; label: string } & SamlProviderChanges,
  at: Date,
): Promise<SamlProviderRow> {
  await db(em)
    .insertInto('saml_provider')
    .values({
      id: provider.id,
      organization_id: provider.organizationId,
      label: provider.label,
      sso_url: provider.ssoUrl ?? null,
      entity_id: provider.entityId ?? null,
      certificate: provider.certificate ?? null,
      default_team_id: provider.defaultTeamId ?? null,
      default_role: provider.defaultRole === undefined ? 'read' : provider.defaultRole,
      created_at: at,
      updated_at: at,
    })
    .execute();
  return (await findProvider(em, provider.id))!;
}

/** Applies `changes` to a provider (and its update time); returns it as read back. */
export async function updateProvider(em: Em, id: string, changes: SamlProviderChanges, at: Date): Promise<SamlProviderRow | undefined> {
  await db(em)
    .updateTable('saml_provider')
    .set({
      ...(changes.label !== undefined ? { label: changes.label } : {}),
      ...(changes.ssoUrl !== undefined ? { sso_url: changes.ssoUrl } : {}),
      ...(changes.entityId !== undefined ? { entity_id: changes.entityId } : {}),
      ...(changes.certificate !== undefined ? { certificate: changes.certificate } : {}),
      ...(changes.defaultTeamId !== undefined ? { default_team_id: changes.defaultTeamId } : {}),
      ...(changes.defaultRole !== undefined ? { default_role: changes.defaultRole } : {}),
      updated_at: at,
    })
    .where('id', '=', id)
    .execute();
  return findProvider(em, id);
}

/** Removes a provider (members who joined through it stay members). */
export async function deleteProvider(em: Em, id: string): Promise<void> {
  await db(em).deleteFrom('saml_provider').where('id', '=', id).execute();
}

// --- Teams a provider puts people in ----------------------------------------------------------

/** A team as a provider shows it (its default team), with its member and space counts. */
export interface TeamSummary {
  id: string;
  title: string;
  createdAt: Date;
  members: number;
  spaces: number;
}

/** Whether the team exists in this organization. */
export async function isTeamOf(em: Em, teamId: string, organizationId: string): Promise<boolean> {
  const row = await db(em)
    .selectFrom('team')
    .select('id')
    .where('id', '=', teamId)
    .where('organization_id', '=', organizationId)
    .executeTakeFirst();
  return row !== undefined;
}

/** The given teams (ids may repeat or be empty), with their member and space counts, in one query. */
export async function teamSummaries(em: Em, teamIds: (string | null | undefined)[]): Promise<Map<string, TeamSummary>> {
  const ids = [...new Set(teamIds.filter((id): id is string => !!id))];
  const out = new Map<string, TeamSummary>();
  if (ids.length === 0) return out;
  const rows = await db(em)
    .selectFrom('team as t')
    .select((eb) => [
      't.id',
      't.title',
      't.created_at',
      eb
        .selectFrom('team_member as tm')
        .select((sub) => sub.fn.countAll().as('n'))
        .whereRef('tm.team_id', '=', 't.id')
        .as('members'),
      eb
        .selectFrom('content_permission as cp')
        .select((sub) => sub.fn.count('cp.space_id').distinct().as('n'))
        .whereRef('cp.team_id', '=', 't.id')
        .where('cp.space_id', 'is not', null)
        .as('spaces'),
    ])
    .where('t.id', 'in', ids)
    .execute();
  for (const row of rows) {
    out.set(row.id, {
      id: row.id,
      title: row.title,
      createdAt: new Date(row.created_at),
      members: Number(row.members),
      spaces: Number(row.spaces),
    });
  }
  return out;
}

// --- Login requests this service sent: an answer's InResponseTo must name one ------------------

/** Records a login request sent to a provider, after removing those older than `expiredBefore`. */
export async function saveLoginRequest(em: Em, providerId: string, requestId: string, createdAt: Date, expiredBefore: Date): Promise<void> {
  await db(em).deleteFrom('saml_request').where('created_at', '<', expiredBefore.toISOString()).execute();
  await db(em)
    .insertInto('saml_request')
    .values({ provider_id: providerId, id: requestId, created_at: createdAt })
    .onConflict((oc) => oc.doNothing())
    .execute();
}

/** When a login request was sent, if it was and not before `notBefore`. */
export async function loginRequestCreatedAt(em: Em, providerId: string, requestId: string, notBefore: Date): Promise<Date | undefined> {
  const row = await db(em)
    .selectFrom('saml_request')
    .select('created_at')
    .where('provider_id', '=', providerId)
    .where('id', '=', requestId)
    .where('created_at', '>=', notBefore.toISOString())
    .executeTakeFirst();
  return row ? new Date(row.created_at) : undefined;
}

/** Removes a login request (they are single-use); false when there was none. */
export async function removeLoginRequest(em: Em, providerId: string, requestId: string): Promise<boolean> {
  const removed = await db(em)
    .deleteFrom('saml_request')
    .where('provider_id', '=', providerId)
    .where('id', '=', requestId)
    .returning('id')
    .execute();
  return removed.length > 0;
}

// --- A sign-in --------------------------------------------------------------------------------

/**
 * Records an assertion as used (after removing those expired before `expiredBefore`); false when
 * it was already used, i.e. replayed.
 */
export async function useAssertion(
  tx: Em,
  assertion: { providerId: string; id: string; notOnOrAfter: Date; usedAt: Date },
  expiredBefore: Date,
): Promise<boolean> {
  await db(tx).deleteFrom('saml_assertion').where('not_on_or_after', '<', expiredBefore.toISOString()).execute();
  const fresh = await db(tx)
    .insertInto('saml_assertion')
    .values({ provider_id: assertion.providerId, id: assertion.id, not_on_or_after: assertion.notOnOrAfter, used_at: assertion.usedAt })
    .onConflict((oc) => oc.doNothing())
    .returning('id')
    .execute();
  return fresh.length > 0;
}

/**
 * Who an organization's SAML provider may sign in under this email: the user with it (any case)
 * when the organization already holds them as a member, or a new user created with `displayName`
 * when nobody has the email yet. An existing user the organization does not hold is refused
 * (`foreign`): a provider vouches for its own organization's people only, so it can never take
 * over an account that signs in elsewhere.
 */
export async function ssoUserFor(
  tx: Em,
  organizationId: string,
  newUserId: string,
  email: string,
  displayName: string,
  at: Date,
): Promise<{ userId: string } | { foreign: true }> {
  await db(tx)
    .insertInto('app_user')
    .values({ id: newUserId, display_name: displayName, email, photo_url: null, created_at: at })
    // The unique index is on an expression, lower(email), which is what the conflict must name.
    .onConflict((oc) => oc.expression(sql`lower(email)`).doNothing())
    .execute();
  const user = await db(tx)
    .selectFrom('app_user as u')
    .select((eb) => [
      'u.id',
      eb
        .exists(
          eb
            .selectFrom('member as m')
            .select('m.user_id')
            .where('m.organization_id', '=', organizationId)
            .whereRef('m.user_id', '=', 'u.id'),
        )
        .as('is_member'),
    ])
    .where((eb) => eb(eb.fn('lower', ['u.email']), '=', eb.fn('lower', [eb.cast(eb.val(email), 'text')])))
    .executeTakeFirstOrThrow();
  if (user.id === newUserId || user.is_member) return { userId: user.id };
  return { foreign: true };
}

/**
 * Makes the user an SSO member of the organization: a new member gets `role`, an existing one
 * keeps theirs. Whether the membership is disabled.
 */
export async function joinAsSsoMember(
  tx: Em,
  organizationId: string,
  userId: string,
  role: string | null,
  at: Date,
): Promise<{ disabled: boolean }> {
  await db(tx)
    .insertInto('member')
    .values({ organization_id: organizationId, user_id: userId, role, disabled: false, sso: true, joined_at: at })
    .onConflict((oc) => oc.doNothing())
    .execute();
  const member = await db(tx)
    .updateTable('member')
    .set({ sso: true })
    .where('organization_id', '=', organizationId)
    .where('user_id', '=', userId)
    .returning('disabled')
    .executeTakeFirstOrThrow();
  return { disabled: member.disabled };
}

/** Adds the user to the team as a member, if the team (still) belongs to the organization. */
export async function joinTeamOf(tx: Em, teamId: string, organizationId: string, userId: string, at: Date): Promise<void> {
  await db(tx)
    .insertInto('team_member')
    .columns(['team_id', 'user_id', 'role', 'joined_at'])
    .expression((eb) =>
      eb
        .selectFrom('team as t')
        .select((s) => [
          't.id',
          s.cast<string>(s.val(userId), 'text').as('user_id'),
          s.cast<string>(s.val('member'), 'text').as('role'),
          s.cast<Date>(s.val(at), 'timestamptz').as('joined_at'),
        ])
        .where('t.id', '=', teamId)
        .where('t.organization_id', '=', organizationId),
    )
    .onConflict((oc) => oc.doNothing())
    .execute();
}

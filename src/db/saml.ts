import type { Em } from './orm.ts';
import { sql, textArray } from './sql.ts';

/**
 * SAML single sign-on beyond the provider rows (which are plain entity CRUD, SamlProvider in
 * saml-entities.ts): the teams a provider puts people in, the login requests this service sent
 * (`saml_request`), the assertions already used (`saml_assertion`), and the writes of a sign-in.
 */

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
  return (await sql(em, 'select 1 from team where id = ? and organization_id = ?', [teamId, organizationId])).length > 0;
}

/** The given teams (ids may repeat or be empty), with their member and space counts, in one query. */
export async function teamSummaries(em: Em, teamIds: (string | null | undefined)[]): Promise<Map<string, TeamSummary>> {
  const ids = [...new Set(teamIds.filter((id): id is string => !!id))];
  const out = new Map<string, TeamSummary>();
  if (ids.length === 0) return out;
  const rows = await sql<{ id: string; title: string; created_at: Date | string; members: number; spaces: number }>(
    em,
    `select t.id, t.title, t.created_at,
            (select count(*) from team_member tm where tm.team_id = t.id)::int as members,
            (select count(distinct cp.space_id) from content_permission cp where cp.team_id = t.id and cp.space_id is not null)::int as spaces
       from team t where t.id = any(?::text[])`,
    [textArray(ids)],
  );
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
  await sql(em, 'delete from saml_request where created_at < ?', [expiredBefore]);
  await sql(em, 'insert into saml_request (provider_id, id, created_at) values (?, ?, ?) on conflict do nothing', [
    providerId,
    requestId,
    createdAt,
  ]);
}

/** When a login request was sent, if it was and not before `notBefore`. */
export async function loginRequestCreatedAt(em: Em, providerId: string, requestId: string, notBefore: Date): Promise<Date | undefined> {
  const rows = await sql<{ created_at: Date | string }>(
    em,
    'select created_at from saml_request where provider_id = ? and id = ? and created_at >= ?',
    [providerId, requestId, notBefore],
  );
  return rows.length ? new Date(rows[0].created_at) : undefined;
}

/** Removes a login request (they are single-use); false when there was none. */
export async function removeLoginRequest(em: Em, providerId: string, requestId: string): Promise<boolean> {
  return (await sql(em, 'delete from saml_request where provider_id = ? and id = ? returning id', [providerId, requestId])).length > 0;
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
  await sql(tx, 'delete from saml_assertion where not_on_or_after < ?', [expiredBefore]);
  const fresh = await sql(
    tx,
    'insert into saml_assertion (provider_id, id, not_on_or_after, used_at) values (?, ?, ?, ?) on conflict do nothing returning id',
    [assertion.providerId, assertion.id, assertion.notOnOrAfter, assertion.usedAt],
  );
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
  await sql(
    tx,
    'insert into app_user (id, display_name, email, photo_url, created_at) values (?, ?, ?, null, ?) on conflict ((lower(email))) do nothing',
    [newUserId, displayName, email, at],
  );
  const [user] = await sql<{ id: string; is_member: boolean }>(
    tx,
    `select u.id, exists (select 1 from member m where m.organization_id = ? and m.user_id = u.id) as is_member
       from app_user u where lower(u.email) = lower(?)`,
    [organizationId, email],
  );
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
  await sql(
    tx,
    'insert into member (organization_id, user_id, role, disabled, sso, joined_at) values (?, ?, ?, false, true, ?) on conflict do nothing',
    [organizationId, userId, role, at],
  );
  const [member] = await sql<{ disabled: boolean }>(
    tx,
    'update member set sso = true where organization_id = ? and user_id = ? returning disabled',
    [organizationId, userId],
  );
  return { disabled: member.disabled };
}

/** Adds the user to the team as a member, if the team (still) belongs to the organization. */
export async function joinTeamOf(tx: Em, teamId: string, organizationId: string, userId: string, at: Date): Promise<void> {
  await sql(
    tx,
    `insert into team_member (team_id, user_id, role, joined_at)
     select t.id, ?, 'member', ? from team t where t.id = ? and t.organization_id = ?
     on conflict do nothing`,
    [userId, at, teamId, organizationId],
  );
}

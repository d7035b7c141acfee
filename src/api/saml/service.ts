import { SAML, ValidateInResponseTo, type CacheProvider, type Profile } from '@node-saml/node-saml';
import { issueToken } from '../../db/accounts.ts';
import type { Em } from '../../db/orm.ts';
import { SamlProvider } from '../../db/saml-entities.ts';
import { newId } from '../../domain/ids.ts';
import {
  assertionFacts, assertionProblem, CLOCK_SKEW_MS, describeSamlFailure, hasSignatureElement, identityFromProfile, missingSettings,
} from '../../domain/saml.ts';
import { conflict, forbidden, HttpError, notFound, badRequest } from '../errors.ts';
import type { Urls } from '../urls.ts';

/** How long a sign-in started at the start URL may take at the identity provider. */
export const REQUEST_TTL_MS = 60 * 60_000;

/**
 * The login requests this service sent, in the database so any API process can check an answer's
 * InResponseTo. Request IDs are single-use: the SAML library removes them once answered.
 */
class RequestStore implements CacheProvider {
  private readonly em: Em;
  private readonly providerId: string;
  constructor(em: Em, providerId: string) {
    this.em = em;
    this.providerId = providerId;
  }

  async saveAsync(key: string, value: string) {
    const createdAt = new Date(value);
    const conn = this.em.getConnection();
    await conn.execute('delete from saml_request where created_at < ?', [new Date(Date.now() - REQUEST_TTL_MS)]);
    await conn.execute('insert into saml_request (provider_id, id, created_at) values (?, ?, ?) on conflict do nothing', [this.providerId, key, createdAt]);
    return { value, createdAt: createdAt.getTime() };
  }

  async getAsync(key: string) {
    const rows = await this.em.getConnection().execute<{ created_at: Date }[]>(
      'select created_at from saml_request where provider_id = ? and id = ? and created_at >= ?',
      [this.providerId, key, new Date(Date.now() - REQUEST_TTL_MS)],
    );
    return rows.length ? new Date(rows[0].created_at).toISOString() : null;
  }

  async removeAsync(key: string | null) {
    if (!key) return null;
    const rows = await this.em.getConnection().execute<{ id: string }[]>(
      'delete from saml_request where provider_id = ? and id = ? returning id',
      [this.providerId, key],
    );
    return rows.length ? key : null;
  }
}

/** Loads a provider that can be used to sign in: 404 when unknown, 409 while settings are missing. */
export async function usableProvider(em: Em, id: string) {
  const provider = await em.findOne(SamlProvider, { id });
  if (!provider) throw notFound('SAML provider');
  const missing = missingSettings(provider);
  if (missing.length) throw conflict(`This SAML provider is not fully configured yet: set ${missing.join(', ')}`);
  return provider;
}

export function samlClient(em: Em, provider: SamlProvider, urls: Urls): SAML {
  const service = urls.samlService(provider.id);
  return new SAML({
    entryPoint: provider.ssoUrl!,
    idpCert: provider.certificate!,
    idpIssuer: provider.entityId!,
    issuer: service.entityID,
    audience: service.entityID,
    callbackUrl: service.acsURL,
    // Either the whole response or the assertion must carry a valid signature of the provider's certificate.
    wantAuthnResponseSigned: false,
    wantAssertionsSigned: false,
    acceptedClockSkewMs: CLOCK_SKEW_MS,
    // Answers to our own requests must name a request we sent; identity-provider-initiated sign-ins carry none.
    validateInResponseTo: ValidateInResponseTo.ifPresent,
    requestIdExpirationPeriodMs: REQUEST_TTL_MS,
    cacheProvider: new RequestStore(em, provider.id),
    disableRequestedAuthnContext: true,
  });
}

/** The URL of the identity provider with a SAML AuthnRequest (HTTP-Redirect binding). */
export async function startUrl(em: Em, providerId: string, urls: Urls, relayState?: string): Promise<string> {
  const provider = await usableProvider(em, providerId);
  return samlClient(em, provider, urls).getAuthorizeUrlAsync(relayState ?? '', undefined, {});
}

export interface SsoLogin {
  token: string;
  userId: string;
  organizationId: string;
}

/**
 * Verifies a SAML response posted to the ACS URL and signs its subject in: the user is found or
 * created by email, joins the organization as an SSO member (with the provider's default role when
 * new) and its default team, and receives a new API token. Each assertion works once.
 */
export async function consumeResponse(em: Em, providerId: string, samlResponse: string, urls: Urls): Promise<SsoLogin> {
  const provider = await usableProvider(em, providerId);
  const xml = Buffer.from(samlResponse, 'base64').toString('utf8');
  if (!/^\s*(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*)*<([A-Za-z_][\w.-]*:)?Response[\s>]/.test(xml)) {
    throw badRequest('SAMLResponse must be a base64-encoded SAML Response');
  }
  let profile: Profile | null;
  let loggedOut: boolean;
  try {
    ({ profile, loggedOut } = await samlClient(em, provider, urls).validatePostResponseAsync({ SAMLResponse: samlResponse }));
  } catch (error) {
    const { status, message } = describeSamlFailure(error, hasSignatureElement(xml));
    throw new HttpError(status, message);
  }
  if (loggedOut || !profile) throw new HttpError(401, 'The SAML response signs nobody in (no authenticated subject)');

  const now = Date.now();
  const facts = assertionFacts(profile.getAssertion?.() ?? {});
  const problem = assertionProblem(facts, provider.entityId!, now);
  if (problem) throw new HttpError(401, problem);
  const identity = identityFromProfile(profile as Parameters<typeof identityFromProfile>[0]);
  if (!identity) {
    throw badRequest('The SAML assertion carries no email address: send the NameID in emailAddress format or an "email" attribute');
  }

  return em.transactional(async (tx) => {
    await tx.execute('delete from saml_assertion where not_on_or_after < ?', [new Date(now - CLOCK_SKEW_MS)]);
    const fresh = await tx.execute<{ id: string }[]>(
      'insert into saml_assertion (provider_id, id, not_on_or_after, used_at) values (?, ?, ?, ?) on conflict do nothing returning id',
      [provider.id, facts.id, new Date(facts.notOnOrAfter!.getTime() + CLOCK_SKEW_MS), new Date(now)],
    );
    if (fresh.length === 0) throw new HttpError(401, 'This SAML assertion was already used to sign in (replayed)');

    await tx.execute(
      'insert into app_user (id, display_name, email, photo_url, created_at) values (?, ?, ?, null, ?) on conflict ((lower(email))) do nothing',
      [newId(), identity.displayName, identity.email, new Date(now)],
    );
    const [user] = await tx.execute<{ id: string }[]>('select id from app_user where lower(email) = lower(?)', [identity.email]);

    await tx.execute(
      'insert into member (organization_id, user_id, role, disabled, sso, joined_at) values (?, ?, ?, false, true, ?) on conflict do nothing',
      [provider.organizationId, user.id, provider.defaultRole ?? null, new Date(now)],
    );
    const [member] = await tx.execute<{ disabled: boolean }[]>(
      'update member set sso = true where organization_id = ? and user_id = ? returning disabled',
      [provider.organizationId, user.id],
    );
    if (member.disabled) throw forbidden('Your membership of this organization is disabled');
    if (provider.defaultTeamId) {
      await tx.execute(
        `insert into team_member (team_id, user_id, role, joined_at)
         select t.id, ?, 'member', ? from team t where t.id = ? and t.organization_id = ?
         on conflict do nothing`,
        [user.id, new Date(now), provider.defaultTeamId, provider.organizationId],
      );
    }
    const { token } = await issueToken(tx, user.id, `SAML sign-in: ${provider.label}`);
    return { token, userId: user.id, organizationId: provider.organizationId };
  });
}

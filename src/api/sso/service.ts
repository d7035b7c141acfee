import { noteAuditOrganization, refineAuditActor } from '../../db/audit.ts';
import type { Static } from 'typebox';
import type { CacheProvider, Profile, SAML } from '@node-saml/node-saml';
import { issueToken } from '../../db/accounts.ts';
import { transaction, type Em } from '../../db/orm.ts';
import {
  findProvider,
  joinAsSsoMember,
  joinTeamOf,
  loginRequestCreatedAt,
  removeLoginRequest,
  saveLoginRequest,
  useAssertion,
  ssoUserFor,
  type SamlProviderRow,
} from '../../db/saml.ts';
import { newId } from '../../domain/ids.ts';
import {
  assertionFacts,
  assertionProblem,
  CLOCK_SKEW_MS,
  describeSamlFailure,
  hasSignatureElement,
  identityFromProfile,
  missingSettings,
} from '../../domain/saml.ts';
import type { AppDeps } from '../context.ts';
import { conflict, forbidden, HttpError, notFound, badRequest } from '../errors.ts';
import { urlsFor, type Urls } from '../object-urls.ts';
import { presentLogin, presentMetadata } from './present.ts';
import type { AcsBody } from './schemas.ts';

/**
 * SAML sign-in, the service-provider side. No caller: the identity provider's signature is the
 * credential, so these operations work with the request's unit of work and the app's dependencies.
 */
export interface SsoCtx {
  em: Em;
  deps: AppDeps;
}

const urlsOf = (ctx: SsoCtx) => urlsFor(ctx.deps.config.publicUrl);

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
    await saveLoginRequest(this.em, this.providerId, key, createdAt, new Date(Date.now() - REQUEST_TTL_MS));
    return { value, createdAt: createdAt.getTime() };
  }

  async getAsync(key: string) {
    const createdAt = await loginRequestCreatedAt(this.em, this.providerId, key, new Date(Date.now() - REQUEST_TTL_MS));
    return createdAt ? createdAt.toISOString() : null;
  }

  async removeAsync(key: string | null) {
    if (!key) return null;
    return (await removeLoginRequest(this.em, this.providerId, key)) ? key : null;
  }
}

/** This service provider's SAML metadata for a provider (XML); 404 when unknown. */
export async function serviceMetadata(ctx: SsoCtx, providerId: string): Promise<string> {
  const provider = await findProvider(ctx.em, providerId);
  if (!provider) throw notFound('SAML provider');
  return presentMetadata(provider, urlsOf(ctx), (await samlLibrary()).generateServiceProviderMetadata);
}

/** Loads a provider that can be used to sign in: 404 when unknown, 409 while settings are missing. */
async function usableProvider(em: Em, id: string) {
  const provider = await findProvider(em, id);
  if (!provider) throw notFound('SAML provider');
  const missing = missingSettings(provider);
  if (missing.length) throw conflict(`This SAML provider is not fully configured yet: set ${missing.join(', ')}`);
  return provider;
}

/**
 * The SAML library (node-saml with xml-crypto, xmldom and xml2js: about 15 MB of an API process's
 * resident memory) loads with the first SAML request, not when the process starts.
 */
const samlLibrary = () => import('@node-saml/node-saml');

async function samlClient(em: Em, provider: SamlProviderRow, urls: Urls): Promise<SAML> {
  const service = urls.samlService(provider.id);
  const { SAML, ValidateInResponseTo } = await samlLibrary();
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
export async function startUrl(ctx: SsoCtx, providerId: string, relayState?: string): Promise<string> {
  const provider = await usableProvider(ctx.em, providerId);
  return (await samlClient(ctx.em, provider, urlsOf(ctx))).getAuthorizeUrlAsync(relayState ?? '', undefined, {});
}

/** Signs in the subject of the SAML response posted to the ACS URL; the answer carries a new API token. */
export async function signIn(ctx: SsoCtx, providerId: string, body: Static<typeof AcsBody>) {
  const login = await consumeResponse(ctx.em, providerId, body.SAMLResponse, urlsOf(ctx));
  return presentLogin(login, body.RelayState);
}

export interface SsoLogin {
  token: string;
  userId: string;
  organizationId: string;
}

/**
 * Verifies a SAML response posted to the ACS URL and signs its subject in: a member of the
 * provider's organization found by email, or a new user when nobody has the email (403 for an
 * existing user the organization does not hold). They are marked an SSO member (with the
 * provider's default role when new), join its default team, and receive a new API token that
 * works in this organization only. Each assertion works once.
 */
async function consumeResponse(em: Em, providerId: string, samlResponse: string, urls: Urls): Promise<SsoLogin> {
  const provider = await usableProvider(em, providerId);
  const xml = Buffer.from(samlResponse, 'base64').toString('utf8');
  if (!/^\s*(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*)*<([A-Za-z_][\w.-]*:)?Response[\s>]/.test(xml)) {
    throw badRequest('SAMLResponse must be a base64-encoded SAML Response');
  }
  let profile: Profile | null;
  let loggedOut: boolean;
  try {
    ({ profile, loggedOut } = await (await samlClient(em, provider, urls)).validatePostResponseAsync({ SAMLResponse: samlResponse }));
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

  return transaction(em, async (tx) => {
    const at = new Date(now);
    const fresh = await useAssertion(
      tx,
      { providerId: provider.id, id: facts.id!, notOnOrAfter: new Date(facts.notOnOrAfter!.getTime() + CLOCK_SKEW_MS), usedAt: at },
      new Date(now - CLOCK_SKEW_MS),
    );
    if (!fresh) throw new HttpError(401, 'This SAML assertion was already used to sign in (replayed)');
    const user = await ssoUserFor(tx, provider.organizationId, newId(), identity.email, identity.displayName, at);
    if ('foreign' in user) {
      throw forbidden(
        'This email belongs to an account that is not a member of this organization: an admin of the organization must add it as a member before it can sign in here',
      );
    }
    const { userId } = user;
    // The sign-in is the signed-in person's change, in the provider's organization (src/db/audit.ts).
    noteAuditOrganization(tx, provider.organizationId);
    refineAuditActor(tx, { type: 'user', id: userId, label: identity.displayName || identity.email }, 'saml');
    const member = await joinAsSsoMember(tx, provider.organizationId, userId, provider.defaultRole ?? null, at);
    if (member.disabled) throw forbidden('Your membership of this organization is disabled');
    if (provider.defaultTeamId) await joinTeamOf(tx, provider.defaultTeamId, provider.organizationId, userId, at);
    // The token works in this organization only: its provider vouches for nothing else.
    const { token } = await issueToken(tx, userId, `SAML sign-in: ${provider.label}`, provider.organizationId);
    return { token, userId, organizationId: provider.organizationId };
  });
}

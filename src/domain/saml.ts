import { X509Certificate } from 'node:crypto';

/**
 * Pure pieces of SAML single sign-on: certificate normalisation, provider readiness, who a verified
 * assertion names, when it expires, and how a verification failure is told to the caller.
 */

/** Clock difference tolerated between the identity provider and this service. */
export const CLOCK_SKEW_MS = 2 * 60_000;

const PEM_BLOCK = /-----BEGIN CERTIFICATE-----([\s\S]*?)-----END CERTIFICATE-----/;

/**
 * Parses an X.509 certificate given as PEM (or as the bare base64 body identity providers often
 * show) and returns it as one normalised PEM block, or an error message naming what is wrong.
 */
export function normalizeCertificate(input: string): { pem: string } | { error: string } {
  const text = input.trim();
  let body: string;
  const block = PEM_BLOCK.exec(text);
  if (block) {
    if (text.replace(PEM_BLOCK, '').trim() !== '') return { error: 'certificate must hold exactly one PEM certificate block' };
    body = block[1];
  } else if (/^[A-Za-z0-9+/=\s]+$/.test(text) && text.length > 0) {
    body = text;
  } else {
    return { error: 'certificate must be an X.509 certificate in PEM format (-----BEGIN CERTIFICATE----- …)' };
  }
  const base64 = body.replace(/\s+/g, '');
  const pem = `-----BEGIN CERTIFICATE-----\n${base64.match(/.{1,64}/g)?.join('\n') ?? ''}\n-----END CERTIFICATE-----\n`;
  try {
    const cert = new X509Certificate(pem);
    if (!cert.publicKey) return { error: 'certificate has no public key' };
  } catch {
    return { error: 'certificate is not a valid X.509 certificate in PEM format' };
  }
  return { pem };
}

export interface ProviderSettings {
  ssoUrl?: string | null;
  entityId?: string | null;
  certificate?: string | null;
}

/** Settings still missing before the provider can be used to sign in, by API field name. */
export function missingSettings(p: ProviderSettings): string[] {
  const missing: string[] = [];
  if (!p.ssoUrl) missing.push('ssoURL');
  if (!p.entityId) missing.push('entityID');
  if (!p.certificate) missing.push('certificate');
  return missing;
}

/** `active` once the identity provider's URL, entity ID and certificate are all known. */
export function providerStatus(p: ProviderSettings): 'active' | 'pending' {
  return missingSettings(p).length === 0 ? 'active' : 'pending';
}

/** SAML attributes, names compared case-insensitively; values may be strings or arrays of them. */
type Attributes = Record<string, unknown>;

export interface SamlProfileLike {
  nameID?: string;
  nameIDFormat?: string;
  attributes?: Attributes;
}

const EMAIL_ATTRIBUTES = [
  'email',
  'mail',
  'emailaddress',
  'urn:oid:0.9.2342.19200300.100.1.3',
  'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress',
  'http://schemas.xmlsoap.org/claims/emailaddress',
];
const DISPLAY_NAME_ATTRIBUTES = [
  'displayname',
  'urn:oid:2.16.840.1.113730.3.1.241',
  'http://schemas.microsoft.com/identity/claims/displayname',
  'cn',
  'urn:oid:2.5.4.3',
];
const GIVEN_NAME_ATTRIBUTES = [
  'givenname',
  'firstname',
  'urn:oid:2.5.4.42',
  'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/givenname',
];
const SURNAME_ATTRIBUTES = [
  'sn',
  'surname',
  'lastname',
  'urn:oid:2.5.4.4',
  'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/surname',
];

const EMAIL = /^[^\s@<>()[\],;:"]+@[^\s@<>()[\],;:"]+\.[^\s@<>()[\],;:"]+$/;

export function isEmail(value: string): boolean {
  return value.length <= 320 && EMAIL.test(value);
}

function firstString(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim() || undefined;
  if (Array.isArray(value)) for (const v of value) if (typeof v === 'string' && v.trim()) return v.trim();
  return undefined;
}

function attribute(attributes: Attributes, names: string[]): string | undefined {
  const byName = new Map(Object.entries(attributes).map(([k, v]) => [k.toLowerCase(), v]));
  for (const name of names) {
    const value = firstString(byName.get(name));
    if (value) return value;
  }
  return undefined;
}

/**
 * The person a verified assertion names: the email comes from an email attribute, else from the
 * NameID when it is an email address; the display name from the usual name attributes, else the
 * email's local part. Null when no email address can be found.
 */
export function identityFromProfile(profile: SamlProfileLike): { email: string; displayName: string } | null {
  const attributes = profile.attributes ?? {};
  let email = attribute(attributes, EMAIL_ATTRIBUTES);
  if (!email || !isEmail(email)) {
    const nameId = profile.nameID?.trim();
    email = nameId && isEmail(nameId) ? nameId : undefined;
  }
  if (!email) return null;
  const given = attribute(attributes, GIVEN_NAME_ATTRIBUTES);
  const surname = attribute(attributes, SURNAME_ATTRIBUTES);
  const displayName = attribute(attributes, DISPLAY_NAME_ATTRIBUTES) ?? ([given, surname].filter(Boolean).join(' ') || email.split('@')[0]);
  return { email, displayName: displayName.slice(0, 256) };
}

/** An assertion as parsed by xml2js with namespace prefixes stripped (what node-saml hands back). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- xml2js output is untyped; every field read is checked.
type Parsed = Record<string, any>;

export interface AssertionFacts {
  id: string | null;
  issuer: string | null;
  /** The earliest NotOnOrAfter among the conditions and the bearer subject confirmations. */
  notOnOrAfter: Date | null;
  /** The latest NotBefore among the conditions and the bearer subject confirmations. */
  notBefore: Date | null;
}

function date(value: unknown): Date | null {
  if (typeof value !== 'string') return null;
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? null : d;
}

export function assertionFacts(parsed: Parsed): AssertionFacts {
  const assertion = parsed?.Assertion ?? parsed;
  const issuerNode = assertion?.Issuer?.[0];
  const issuer = typeof issuerNode === 'string' ? issuerNode : (issuerNode?._ ?? null);
  const ends: Date[] = [];
  const starts: Date[] = [];
  for (const conditions of assertion?.Conditions ?? []) {
    const end = date(conditions?.$?.NotOnOrAfter);
    const start = date(conditions?.$?.NotBefore);
    if (end) ends.push(end);
    if (start) starts.push(start);
  }
  for (const subject of assertion?.Subject ?? []) {
    for (const confirmation of subject?.SubjectConfirmation ?? []) {
      for (const data of confirmation?.SubjectConfirmationData ?? []) {
        const end = date(data?.$?.NotOnOrAfter);
        const start = date(data?.$?.NotBefore);
        if (end) ends.push(end);
        if (start) starts.push(start);
      }
    }
  }
  return {
    id: typeof assertion?.$?.ID === 'string' && assertion.$.ID ? assertion.$.ID : null,
    issuer: typeof issuer === 'string' ? issuer.trim() : null,
    notOnOrAfter: ends.length ? new Date(Math.min(...ends.map((d) => d.getTime()))) : null,
    notBefore: starts.length ? new Date(Math.max(...starts.map((d) => d.getTime()))) : null,
  };
}

/**
 * What is wrong with a verified assertion that the SAML library does not check itself: it must
 * carry an ID (replay protection needs one), come from the provider's entity ID, and be inside its
 * validity window. Null when it is acceptable.
 */
export function assertionProblem(facts: AssertionFacts, expectedIssuer: string, nowMs: number, skewMs = CLOCK_SKEW_MS): string | null {
  if (!facts.id) return 'The SAML assertion has no ID';
  if (facts.issuer !== expectedIssuer) {
    return `The SAML assertion was issued by "${facts.issuer ?? '(none)'}", not by this provider's entityID "${expectedIssuer}"`;
  }
  if (!facts.notOnOrAfter) return 'The SAML assertion has no expiry (NotOnOrAfter on its Conditions or SubjectConfirmationData)';
  if (nowMs - skewMs >= facts.notOnOrAfter.getTime()) return `The SAML assertion expired at ${facts.notOnOrAfter.toISOString()}`;
  if (facts.notBefore && nowMs + skewMs < facts.notBefore.getTime()) {
    return `The SAML assertion is not valid before ${facts.notBefore.toISOString()}`;
  }
  return null;
}

/** True when the XML holds an XML-DSig Signature element anywhere (so "unsigned" can be told apart from "bad signature"). */
export function hasSignatureElement(xml: string): boolean {
  return /<([A-Za-z_][\w.-]*:)?Signature[\s>/]/.test(xml) && xml.includes('http://www.w3.org/2000/09/xmldsig#');
}

/**
 * Turns an error of the SAML library into a status and a message a person configuring the identity
 * provider can act on. Every failure means nobody was authenticated: 401, except malformed input (400).
 */
export function describeSamlFailure(error: unknown, signed: boolean): { status: number; message: string } {
  const raw = error instanceof Error ? error.message : String(error);
  const fail = (message: string, status = 401) => ({ status, message });
  if (/signature/i.test(raw)) {
    return signed
      ? fail("Invalid signature: the SAML response was not signed with this provider's certificate, or was altered after signing")
      : fail('The SAML response is not signed: the identity provider must sign the response or the assertion');
  }
  if (/reading 'AudienceRestriction'|has no AudienceRestriction/.test(raw)) {
    return fail('Wrong audience: the SAML assertion has no Conditions with an AudienceRestriction naming this service provider');
  }
  if (/audience/i.test(raw)) {
    return fail(`Wrong audience: the SAML assertion is not addressed to this service provider (${raw.replace(/^SAML assertion /, '')})`);
  }
  const badDate = /Error parsing (NotOnOrAfter|NotBefore|IssueInstant)/.exec(raw);
  if (badDate) {
    return badDate[1] === 'NotOnOrAfter'
      ? fail('The SAML assertion has no valid expiry (NotOnOrAfter on its Conditions and SubjectConfirmationData)')
      : fail(`The SAML assertion has no valid ${badDate[1]}`);
  }
  if (/expired/i.test(raw)) return fail('The SAML assertion has expired (NotOnOrAfter is in the past)');
  if (/not yet valid/i.test(raw)) return fail('The SAML assertion is not valid yet (NotBefore is in the future)');
  if (/InResponseTo/i.test(raw)) {
    return fail(
      'The SAML response answers a login request this service did not send, already received an answer to, or that expired (InResponseTo)',
    );
  }
  if (/subject confirmation/i.test(raw)) return fail('The SAML assertion has no valid subject confirmation (expired or not yet valid)');
  if (/multiple conditions/i.test(raw)) return fail('The SAML assertion has more than one Conditions element');
  if (/Missing SAML assertion/i.test(raw)) return fail('The SAML response holds no assertion');
  if (/SAML provider returned/i.test(raw))
    return fail(`The identity provider refused the sign-in: ${raw.replace(/^SAML provider returned /, '')}`);
  if (/encrypt/i.test(raw))
    return fail('Encrypted SAML assertions are not supported: configure the identity provider to sign, not encrypt, assertions', 400);
  if (/non-whitespace|xml|parse|unclosed|tag|entity/i.test(raw)) return fail('SAMLResponse is not a well-formed SAML response', 400);
  return fail(`The SAML response was refused: ${raw}`);
}

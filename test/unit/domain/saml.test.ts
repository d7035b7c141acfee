import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import {
  assertionFacts,
  assertionProblem,
  CLOCK_SKEW_MS,
  describeSamlFailure,
  hasSignatureElement,
  identityFromProfile,
  isEmail,
  missingSettings,
  normalizeCertificate,
  providerStatus,
} from '../../../src/domain/saml.ts';

const cert = readFileSync(new URL('../../fixtures/saml/idp-cert.pem', import.meta.url), 'utf8');
const key = readFileSync(new URL('../../fixtures/saml/idp-key.pem', import.meta.url), 'utf8');
const body = cert.replace(/-----(BEGIN|END) CERTIFICATE-----/g, '').replace(/\s+/g, '');

describe('normalizeCertificate', () => {
  it('accepts a PEM certificate, with surrounding whitespace or CRLF line ends', () => {
    const out = normalizeCertificate(`\n  ${cert.replace(/\n/g, '\r\n')}  `);
    expect('pem' in out && out.pem.replace(/\s+/g, '')).toBe(cert.replace(/\s+/g, ''));
  });

  it('accepts the bare base64 body and wraps it at 64 characters', () => {
    const out = normalizeCertificate(body);
    if (!('pem' in out)) throw new Error(out.error);
    const lines = out.pem.trim().split('\n');
    expect(lines[0]).toBe('-----BEGIN CERTIFICATE-----');
    expect(lines.at(-1)).toBe('-----END CERTIFICATE-----');
    expect(lines.slice(1, -1).every((l) => l.length <= 64)).toBe(true);
  });

  it('refuses what is not one X.509 certificate, naming the field', () => {
    for (const input of [
      '',
      'hello world!',
      key,
      `${cert}\n${cert}`,
      `${cert}trailing`,
      '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----',
      'QUJD',
    ]) {
      const out = normalizeCertificate(input);
      expect('error' in out && out.error).toMatch(/^certificate /);
    }
  });
});

describe('provider readiness', () => {
  it('is active only with ssoURL, entityID and certificate', () => {
    expect(providerStatus({ ssoUrl: 'https://idp', entityId: 'idp', certificate: cert })).toBe('active');
    expect(missingSettings({ ssoUrl: null, entityId: 'idp', certificate: undefined })).toEqual(['ssoURL', 'certificate']);
    expect(providerStatus({ ssoUrl: 'https://idp', entityId: '', certificate: cert })).toBe('pending');
  });
});

describe('identityFromProfile', () => {
  it('prefers an email attribute (any usual name, any case, first of several values)', () => {
    expect(identityFromProfile({ nameID: 'opaque', attributes: { Email: 'a@example.com' } })?.email).toBe('a@example.com');
    expect(
      identityFromProfile({
        nameID: 'x@example.com',
        attributes: { 'urn:oid:0.9.2342.19200300.100.1.3': ['b@example.com', 'c@example.com'] },
      })?.email,
    ).toBe('b@example.com');
    expect(
      identityFromProfile({ attributes: { 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress': 'd@example.com' } })?.email,
    ).toBe('d@example.com');
  });

  it('falls back on a NameID that is an email address, and otherwise finds nobody', () => {
    expect(identityFromProfile({ nameID: 'e@example.com' })).toEqual({ email: 'e@example.com', displayName: 'e' });
    expect(identityFromProfile({ nameID: 'f@example.com', attributes: { email: 'not-an-email' } })?.email).toBe('f@example.com');
    expect(identityFromProfile({ nameID: 'opaque-123' })).toBeNull();
    expect(identityFromProfile({})).toBeNull();
  });

  it('builds a display name from the usual attributes', () => {
    expect(identityFromProfile({ nameID: 'g@example.com', attributes: { displayName: 'Grace Hopper', givenName: 'G' } })?.displayName).toBe(
      'Grace Hopper',
    );
    expect(identityFromProfile({ nameID: 'g@example.com', attributes: { givenName: 'Grace', surname: 'Hopper' } })?.displayName).toBe(
      'Grace Hopper',
    );
    expect(identityFromProfile({ nameID: 'g@example.com', attributes: { givenName: 'Grace' } })?.displayName).toBe('Grace');
  });

  it('recognises email addresses', () => {
    expect(isEmail('a.b+c@sub.example.co')).toBe(true);
    for (const bad of ['a@b', '@example.com', 'a b@example.com', 'a@@example.com', `${'x'.repeat(320)}@example.com`])
      expect(isEmail(bad)).toBe(false);
  });
});

describe('assertion facts and checks', () => {
  const parsed = {
    Assertion: {
      $: { ID: '_abc' },
      Issuer: [{ _: ' https://idp.example.com ' }],
      Conditions: [{ $: { NotBefore: '2030-01-01T00:00:00Z', NotOnOrAfter: '2030-01-01T01:00:00Z' } }],
      Subject: [{ SubjectConfirmation: [{ SubjectConfirmationData: [{ $: { NotOnOrAfter: '2030-01-01T00:05:00Z' } }] }] }],
    },
  };

  it('takes the earliest expiry and the latest start', () => {
    expect(assertionFacts(parsed)).toEqual({
      id: '_abc',
      issuer: 'https://idp.example.com',
      notOnOrAfter: new Date('2030-01-01T00:05:00Z'),
      notBefore: new Date('2030-01-01T00:00:00Z'),
    });
    expect(assertionFacts({ Assertion: { Issuer: ['plain'] } })).toEqual({
      id: null,
      issuer: 'plain',
      notOnOrAfter: null,
      notBefore: null,
    });
  });

  it('checks ID, issuer and the validity window with the clock skew', () => {
    const facts = assertionFacts(parsed);
    const inside = new Date('2030-01-01T00:02:00Z').getTime();
    expect(assertionProblem(facts, 'https://idp.example.com', inside)).toBeNull();
    expect(assertionProblem(facts, 'https://other', inside)).toMatch(/issued by/);
    expect(assertionProblem({ ...facts, id: null }, 'https://idp.example.com', inside)).toMatch(/no ID/);
    expect(assertionProblem({ ...facts, notOnOrAfter: null }, 'https://idp.example.com', inside)).toMatch(/no expiry/);
    const end = facts.notOnOrAfter!.getTime();
    expect(assertionProblem(facts, 'https://idp.example.com', end + CLOCK_SKEW_MS - 1)).toBeNull();
    expect(assertionProblem(facts, 'https://idp.example.com', end + CLOCK_SKEW_MS)).toMatch(/expired/);
    const start = facts.notBefore!.getTime();
    expect(assertionProblem(facts, 'https://idp.example.com', start - CLOCK_SKEW_MS)).toBeNull();
    expect(assertionProblem(facts, 'https://idp.example.com', start - CLOCK_SKEW_MS - 1)).toMatch(/not valid before/);
  });
});

describe('describeSamlFailure', () => {
  const cases: [string, boolean, number, RegExp][] = [
    ['Invalid signature', true, 401, /^Invalid signature/],
    ['Invalid signature', false, 401, /not signed/],
    ['Invalid document signature', false, 401, /not signed/],
    ['SAML assertion audience mismatch. Expected: a Received: b', true, 401, /^Wrong audience/],
    ["Cannot read properties of null (reading 'AudienceRestriction')", true, 401, /no Conditions with an AudienceRestriction/],
    ['SAML assertion expired: clocks skewed too much', true, 401, /expired/],
    ['SAML assertion not yet valid', true, 401, /not valid yet/],
    ["Error parsing NotOnOrAfter: 'undefined' is not a valid date", true, 401, /no valid expiry/],
    ['InResponseTo is not valid', true, 401, /InResponseTo/],
    ['SAML provider returned Responder error: unspecified', true, 401, /refused the sign-in/],
    ['Missing SAML assertion', true, 401, /no assertion/],
    ['No decryption key for encrypted SAML response', true, 400, /Encrypted/],
    ['something new', true, 401, /refused: something new/],
  ];
  it.each(cases)('%s (signed: %s) → %i', (message, signed, status, expected) => {
    const out = describeSamlFailure(new Error(message), signed);
    expect(out.status).toBe(status);
    expect(out.message).toMatch(expected);
  });

  it('tells a signed document from an unsigned one', () => {
    expect(
      hasSignatureElement('<samlp:Response><ds:Signature xmlns:ds="http://www.w3.org/2000/09/xmldsig#"></ds:Signature></samlp:Response>'),
    ).toBe(true);
    expect(hasSignatureElement('<Response><Signature xmlns="http://www.w3.org/2000/09/xmldsig#"/></Response>')).toBe(true);
    expect(hasSignatureElement('<samlp:Response><saml:Assertion/></samlp:Response>')).toBe(false);
    expect(hasSignatureElement('<Response><SignatureMethod/></Response>')).toBe(false);
  });
});

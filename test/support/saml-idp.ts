/**
 * A test identity provider: builds SAML 2.0 responses and signs them with xml-crypto using the
 * key pairs under test/fixtures/saml (self-signed, test-only; `idp` is the trusted one, `other`
 * plays an impostor).
 */
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { inflateRawSync } from 'node:zlib';
import { SignedXml } from 'xml-crypto';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/saml/${name}`, import.meta.url), 'utf8');

export const idp = { key: fixture('idp-key.pem'), cert: fixture('idp-cert.pem') };
export const impostor = { key: fixture('other-key.pem'), cert: fixture('other-cert.pem') };

export const IDP_ENTITY_ID = 'https://idp.example.com/metadata';
export const IDP_SSO_URL = 'https://idp.example.com/sso?tenant=acme';

export interface ResponseOptions {
  /** Our service provider entity ID (audience). */
  audience: string;
  /** Our ACS URL. */
  acsUrl: string;
  email?: string;
  nameId?: string;
  nameIdFormat?: string;
  attributes?: Record<string, string | string[]>;
  issuer?: string;
  inResponseTo?: string;
  assertionId?: string;
  /** Offsets from now, in ms. */
  notBeforeMs?: number;
  notOnOrAfterMs?: number;
  /** Leave out the NotOnOrAfter attributes altogether. */
  noExpiry?: boolean;
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const at = (offsetMs: number) => new Date(Date.now() + offsetMs).toISOString();

/** An unsigned SAML Response with one assertion. */
export function buildResponse(o: ResponseOptions): string {
  const issuer = o.issuer ?? IDP_ENTITY_ID;
  const assertionId = o.assertionId ?? `_a${randomUUID()}`;
  const nameId = o.nameId ?? o.email ?? 'someone@example.com';
  const nameIdFormat = o.nameIdFormat ?? 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress';
  const notBefore = at(o.notBeforeMs ?? -60_000);
  const notOnOrAfter = at(o.notOnOrAfterMs ?? 5 * 60_000);
  const expiry = o.noExpiry ? '' : ` NotOnOrAfter="${notOnOrAfter}"`;
  const irt = o.inResponseTo ? ` InResponseTo="${esc(o.inResponseTo)}"` : '';
  const attributes = Object.entries(o.attributes ?? {})
    .map(
      ([name, value]) =>
        `<saml:Attribute Name="${esc(name)}" NameFormat="urn:oasis:names:tc:SAML:2.0:attrname-format:basic">${(Array.isArray(value)
          ? value
          : [value]
        )
          .map(
            (v) =>
              `<saml:AttributeValue xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:type="xs:string">${esc(v)}</saml:AttributeValue>`,
          )
          .join('')}</saml:Attribute>`,
    )
    .join('');
  return (
    `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ` +
    `ID="_r${randomUUID()}" Version="2.0" IssueInstant="${at(0)}" Destination="${esc(o.acsUrl)}"${irt}>` +
    `<saml:Issuer>${esc(issuer)}</saml:Issuer>` +
    `<samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>` +
    `<saml:Assertion ID="${esc(assertionId)}" Version="2.0" IssueInstant="${at(0)}">` +
    `<saml:Issuer>${esc(issuer)}</saml:Issuer>` +
    `<saml:Subject><saml:NameID Format="${esc(nameIdFormat)}">${esc(nameId)}</saml:NameID>` +
    `<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer">` +
    `<saml:SubjectConfirmationData${expiry} Recipient="${esc(o.acsUrl)}"${irt}/></saml:SubjectConfirmation></saml:Subject>` +
    `<saml:Conditions NotBefore="${notBefore}"${expiry}>` +
    `<saml:AudienceRestriction><saml:Audience>${esc(o.audience)}</saml:Audience></saml:AudienceRestriction></saml:Conditions>` +
    `<saml:AuthnStatement AuthnInstant="${at(0)}" SessionIndex="_s${randomUUID()}"><saml:AuthnContext>` +
    `<saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef>` +
    `</saml:AuthnContext></saml:AuthnStatement>` +
    (attributes ? `<saml:AttributeStatement>${attributes}</saml:AttributeStatement>` : '') +
    `</saml:Assertion></samlp:Response>`
  );
}

/** Signs the assertion or the whole response (enveloped signature after the Issuer, RSA-SHA256, exclusive c14n). */
export function sign(xml: string, what: 'assertion' | 'response', keys = idp): string {
  const element = what === 'assertion' ? 'Assertion' : 'Response';
  const sig = new SignedXml({
    privateKey: keys.key,
    publicCert: keys.cert,
    canonicalizationAlgorithm: 'http://www.w3.org/2001/10/xml-exc-c14n#',
    signatureAlgorithm: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
  });
  sig.addReference({
    xpath: `//*[local-name(.)='${element}']`,
    transforms: ['http://www.w3.org/2000/09/xmldsig#enveloped-signature', 'http://www.w3.org/2001/10/xml-exc-c14n#'],
    digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256',
  });
  sig.computeSignature(xml, {
    prefix: 'ds',
    location: { reference: `//*[local-name(.)='${element}']/*[local-name(.)='Issuer']`, action: 'after' },
  });
  return sig.getSignedXml();
}

export const encode = (xml: string) => Buffer.from(xml, 'utf8').toString('base64');

/** The AuthnRequest XML carried by a start redirect's SAMLRequest parameter. */
export function inflateRequest(location: string): { xml: string; url: URL } {
  const url = new URL(location);
  const request = url.searchParams.get('SAMLRequest');
  if (!request) throw new Error(`no SAMLRequest in ${location}`);
  return { xml: inflateRawSync(Buffer.from(request, 'base64')).toString('utf8'), url };
}

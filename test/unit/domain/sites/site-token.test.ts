import { describe, expect, it } from '@jest/globals';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import {
  keyFingerprint,
  looksLikeJwt,
  mintSiteToken,
  peekSiteToken,
  SITE_TOKEN_TTL_SECONDS,
  siteTokenExpiry,
  siteTokenKey,
  tokenStillHolds,
  verifySiteToken,
  type SiteTokenClaims,
} from '../../../../src/domain/sites/site-token.ts';

const serviceKey = Buffer.alloc(32, 9);
const claims: SiteTokenClaims = {
  kind: 'site',
  organization: 'org1',
  spaces: ['sp1', 'sp2'],
  site: 'site1',
  siteSpace: 'ss1',
  space: 'sp1',
  revision: 'r1',
  claims: { plan: 'pro', unsigned: {} },
  visibility: 'share-link',
  shareLink: 'link1',
};
const now = 1_800_000_000;

async function minted(fingerprint = keyFingerprint('sealed-1'), expires = siteTokenExpiry(now)) {
  return mintSiteToken(siteTokenKey(serviceKey, 'site1', fingerprint), fingerprint, claims, expires);
}

describe('site visitor tokens', () => {
  it("are JWTs with GitBook's site token claims and an expiry about an hour away", async () => {
    const token = await minted();
    expect(looksLikeJwt(token)).toBe(true);
    expect(looksLikeJwt('dms_abcdef')).toBe(false);
    expect(looksLikeJwt('dmsl_abc.def.ghi')).toBe(false);
    expect(decodeProtectedHeader(token)).toMatchObject({ alg: 'HS256', kid: keyFingerprint('sealed-1') });
    const payload = decodeJwt(token);
    expect(payload).toMatchObject({ kind: 'site', organization: 'org1', spaces: ['sp1', 'sp2'], site: 'site1', claims: { plan: 'pro' } });
    expect(payload.exp! - now).toBeGreaterThanOrEqual(SITE_TOKEN_TTL_SECONDS);
    expect(payload.exp! - now).toBeLessThanOrEqual(SITE_TOKEN_TTL_SECONDS + 300);
    // Minted twice in the same step, the same token.
    expect(await minted()).toBe(token);
  });

  it("keep a preview's drafts claim, and drop it from any token that is not a preview's", async () => {
    const fingerprint = keyFingerprint('sealed-1');
    const key = siteTokenKey(serviceKey, 'site1', fingerprint);
    const expires = siteTokenExpiry(now);
    const preview = await mintSiteToken(key, fingerprint, { ...claims, preview: true, drafts: true }, expires);
    expect(await verifySiteToken(preview, key, now)).toEqual({ ...claims, preview: true, drafts: true });
    const notPreview = await mintSiteToken(key, fingerprint, { ...claims, drafts: true }, expires);
    expect(await verifySiteToken(notPreview, key, now)).toEqual(claims);
  });

  it('verify with the key of the same site and signing key only, until they expire', async () => {
    const token = await minted();
    const fingerprint = keyFingerprint('sealed-1');
    expect(await verifySiteToken(token, siteTokenKey(serviceKey, 'site1', fingerprint), now)).toEqual(claims);
    expect(await verifySiteToken(token, siteTokenKey(serviceKey, 'site1', keyFingerprint('sealed-2')), now)).toBeNull();
    expect(await verifySiteToken(token, siteTokenKey(serviceKey, 'site2', fingerprint), now)).toBeNull();
    expect(await verifySiteToken(token, siteTokenKey(Buffer.alloc(32, 1), 'site1', fingerprint), now)).toBeNull();
    expect(await verifySiteToken(token, siteTokenKey(serviceKey, 'site1', fingerprint), siteTokenExpiry(now))).toBeNull();
    const [header, , signature] = token.split('.');
    const widened = Buffer.from(JSON.stringify({ ...decodeJwt(token), spaces: ['sp1', 'sp2', 'sp3'] })).toString('base64url');
    expect(await verifySiteToken(`${header}.${widened}.${signature}`, siteTokenKey(serviceKey, 'site1', fingerprint), now)).toBeNull();
  });

  it('name their site, key and share link before verification, for finding the key', async () => {
    expect(peekSiteToken(await minted())).toEqual({
      siteId: 'site1',
      fingerprint: keyFingerprint('sealed-1'),
      shareLink: 'link1',
      expires: expect.any(Number),
    });
    expect(peekSiteToken('not a token')).toBeNull();
    expect(peekSiteToken('eyJhbGciOiJub25lIn0.eyJzaXRlIjoic2l0ZTEifQ.')).toBeNull();
  });

  it('hold only while the site is published as it was, with the same key and an active share link', () => {
    const fingerprint = keyFingerprint('sealed-1');
    const site = { organizationId: 'org1', published: true, visibility: 'share-link', fingerprint, shareLinkActive: true };
    expect(tokenStillHolds(claims, fingerprint, site)).toBe(true);
    expect(tokenStillHolds(claims, fingerprint, { ...site, published: false })).toBe(false);
    expect(tokenStillHolds(claims, fingerprint, { ...site, fingerprint: keyFingerprint('sealed-2') })).toBe(false);
    expect(tokenStillHolds(claims, fingerprint, { ...site, shareLinkActive: false })).toBe(false);
    expect(tokenStillHolds(claims, fingerprint, { ...site, visibility: 'visitor-auth' })).toBe(false);
    expect(tokenStillHolds(claims, fingerprint, { ...site, organizationId: 'org2' })).toBe(false);
    const publicClaims = { ...claims, visibility: 'public', shareLink: undefined };
    expect(tokenStillHolds(publicClaims, fingerprint, { ...site, visibility: 'public', shareLinkActive: false })).toBe(true);
    expect(tokenStillHolds(publicClaims, fingerprint, { ...site, shareLinkActive: false })).toBe(false);
  });
});

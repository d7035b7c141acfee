import { createHash, createHmac } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader, jwtVerify, SignJWT } from 'jose';

/**
 * The site visitor's token: the `apiToken` of a published URL lookup, a JWT (HS256) that reads one
 * published site as one visitor. Its claims follow GitBook's site token (`kind: 'site'`,
 * `organization`, `spaces`, `site`, `siteSpace`, `siteSection`, `space`, `claims`, `visitorType`),
 * so GitBook's renderer decodes it as it decodes GitBook's: it reads `claims` (the visitor's claims
 * for adaptive content) and `exp` (to refresh a token about to expire).
 *
 * Each site signs with a key of its own, derived from the service's key, the site's id and the
 * fingerprint of the site's signing key (the header's `kid`): rotating the signing key changes the
 * key, so every token handed out before stops verifying. What else must still hold is carried in
 * the token and checked against the site on each use (see `tokenStillHolds`).
 */

export const SITE_TOKEN_AUDIENCE = 'site-content';
/** How long a visitor's token works. */
export const SITE_TOKEN_TTL_SECONDS = 3600;
/**
 * Expiries are rounded up to this many seconds, so lookups of the same site by the same visitor
 * within that window answer the same token (cacheable by the renderer, minted once per process).
 */
export const SITE_TOKEN_EXPIRY_STEP_SECONDS = 300;

export interface SiteTokenClaims {
  kind: 'site';
  organization: string;
  /** The spaces of the site-spaces this visitor sees. */
  spaces: string[];
  site: string;
  siteSpace: string;
  siteSection?: string;
  space: string;
  /** The revision the lookup answered with (readable even once the space has moved on). */
  revision: string;
  /** The visitor's claims: signed claims, and the validated unsigned ones under `unsigned`. */
  claims: Record<string, unknown>;
  visitorType?: 'human' | 'agent';
  /** The site's visibility when the token was minted. */
  visibility: string;
  /** The share link the visitor came through. */
  shareLink?: string;
  /**
   * Who had the token minted, when not the site renderer (a site lookup token): `token:<id>` of
   * the API token whose lookup minted it (or whose minted token's lookup did). The token's reads
   * then count against that token's limit, not the readers' one.
   */
  minter?: string;
  /**
   * A preview's token (`GET …/sites/{siteId}/publishing/preview`): it reads the site as it would
   * look when published, whether it is published or not and whatever its visibility, with the
   * claims the preview was asked for; and, besides what a visitor reads, the change requests and
   * every revision of the spaces the site shows (`~/changes/<id>/`, `~/revisions/<id>/`).
   */
  preview?: true;
  /** A preview's token that shows the site's draft structure too (the preview's `draft`, default true). */
  drafts?: true;
}

/** A JWT's shape (three base64url parts, the first a JSON object), as opposed to an opaque API token. */
export function looksLikeJwt(token: string): boolean {
  return /^eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(token);
}

/** The fingerprint of a site's (sealed) signing key: changes whenever the key is rotated. */
export function keyFingerprint(sealedKey: string): string {
  return createHash('sha256').update(sealedKey).digest('base64url').slice(0, 22);
}

/** The key one site signs its visitors' tokens with, for one signing key of the site. */
export function siteTokenKey(serviceKey: Buffer, siteId: string, fingerprint: string): Uint8Array {
  return createHmac('sha256', serviceKey).update(`site-token\n${siteId}\n${fingerprint}`).digest();
}

/** The expiry (unix seconds) of a token minted at `nowSeconds`. */
export function siteTokenExpiry(nowSeconds: number): number {
  const step = SITE_TOKEN_EXPIRY_STEP_SECONDS;
  return Math.ceil((nowSeconds + SITE_TOKEN_TTL_SECONDS) / step) * step;
}

/** `issuedAt` defaults to a time shared by every token of the same expiry (so they sign alike). */
export async function mintSiteToken(
  key: Uint8Array,
  fingerprint: string,
  claims: SiteTokenClaims,
  expires: number,
  issuedAt = expires - SITE_TOKEN_TTL_SECONDS - SITE_TOKEN_EXPIRY_STEP_SECONDS,
): Promise<string> {
  return new SignJWT({ ...claims })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT', kid: fingerprint })
    .setAudience(SITE_TOKEN_AUDIENCE)
    .setIssuedAt(issuedAt)
    .setExpirationTime(expires)
    .sign(key);
}

/** The site, key fingerprint and expiry a token names, unverified (to find the key it must verify with); null when it is not one. */
export function peekSiteToken(token: string): { siteId: string; fingerprint: string; shareLink: string; expires: number } | null {
  try {
    const header = decodeProtectedHeader(token);
    const payload = decodeJwt(token);
    if (header.alg !== 'HS256' || typeof header.kid !== 'string' || typeof payload.site !== 'string') return null;
    return {
      siteId: payload.site,
      fingerprint: header.kid,
      shareLink: typeof payload.shareLink === 'string' ? payload.shareLink : '',
      expires: typeof payload.exp === 'number' ? payload.exp : 0,
    };
  } catch {
    return null;
  }
}

const isStrings = (value: unknown): value is string[] => Array.isArray(value) && value.every((v) => typeof v === 'string');
const optionalString = (value: unknown) => value === undefined || typeof value === 'string';

/** The token's claims once its signature, audience and expiry are checked; null otherwise. */
export async function verifySiteToken(token: string, key: Uint8Array, nowSeconds: number): Promise<SiteTokenClaims | null> {
  try {
    const { payload: p } = await jwtVerify(token, key, {
      algorithms: ['HS256'],
      audience: SITE_TOKEN_AUDIENCE,
      requiredClaims: ['exp', 'iat'],
      currentDate: new Date(nowSeconds * 1000),
    });
    if (
      p.kind !== 'site' ||
      typeof p.organization !== 'string' ||
      !isStrings(p.spaces) ||
      typeof p.site !== 'string' ||
      typeof p.siteSpace !== 'string' ||
      typeof p.space !== 'string' ||
      typeof p.revision !== 'string' ||
      typeof p.visibility !== 'string' ||
      !optionalString(p.siteSection) ||
      !optionalString(p.shareLink) ||
      !optionalString(p.minter) ||
      (p.preview !== undefined && p.preview !== true) ||
      (p.drafts !== undefined && p.drafts !== true) ||
      (p.visitorType !== undefined && p.visitorType !== 'human' && p.visitorType !== 'agent') ||
      typeof p.claims !== 'object' ||
      p.claims === null ||
      Array.isArray(p.claims)
    ) {
      return null;
    }
    return {
      kind: 'site',
      organization: p.organization,
      spaces: p.spaces,
      site: p.site,
      siteSpace: p.siteSpace,
      ...(typeof p.siteSection === 'string' ? { siteSection: p.siteSection } : {}),
      space: p.space,
      revision: p.revision,
      claims: p.claims as Record<string, unknown>,
      ...(p.visitorType === 'human' || p.visitorType === 'agent' ? { visitorType: p.visitorType } : {}),
      visibility: p.visibility,
      ...(typeof p.shareLink === 'string' ? { shareLink: p.shareLink } : {}),
      ...(typeof p.minter === 'string' ? { minter: p.minter } : {}),
      ...(p.preview === true ? { preview: true as const } : {}),
      ...(p.preview === true && p.drafts === true ? { drafts: true as const } : {}),
    };
  } catch {
    return null;
  }
}

/** The site as it is now, as far as a token depends on it. */
export interface SiteNow {
  organizationId: string;
  published: boolean;
  visibility: string;
  fingerprint: string;
  shareLinkActive: boolean;
}

/**
 * Whether a verified token still holds for the site as it is now: same organization and signing
 * key, still published with the visibility it was minted under, and the share link it came
 * through still active. A preview's token needs only the same organization and signing key (it
 * reads a site before it is published; regenerating the key ends every preview).
 */
export function tokenStillHolds(claims: SiteTokenClaims, fingerprint: string, site: SiteNow): boolean {
  if (claims.preview) return site.organizationId === claims.organization && site.fingerprint === fingerprint;
  if (!site.published || site.organizationId !== claims.organization) return false;
  if (site.fingerprint !== fingerprint || site.visibility !== claims.visibility) return false;
  if (site.visibility === 'share-link' && !claims.shareLink) return false;
  if (claims.shareLink && !site.shareLinkActive) return false;
  return true;
}

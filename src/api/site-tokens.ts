import { loadRevision } from '../db/content.ts';
import { siteTokenState, type SiteTokenState } from '../db/sites.ts';
import type { Em } from '../db/orm.ts';
import { sharedCache } from '../domain/lru.ts';
import { entryBytes } from '../domain/sizeof.ts';
import {
  keyFingerprint,
  mintSiteToken,
  peekSiteToken,
  siteTokenExpiry,
  siteTokenKey,
  tokenStillHolds,
  verifySiteToken,
  type SiteTokenClaims,
} from '../domain/sites/site-token.ts';
import type { AppDeps, Caller } from './context.ts';

/**
 * Minting and checking site visitors' tokens (domain/sites/site-token.ts). The service key is
 * derived from SECRETS_KEY once per process (`AppDeps.siteTokenKey`). Minted tokens are remembered per process until a
 * little before they expire, so the lookups of one visitor on one site sign once per expiry step.
 * Tokens are credentials: they are never logged.
 */

/**
 * Tokens a process remembers (by what they say), least recently used first out, within their share
 * of CACHE_MEMORY (`mintedSiteTokens`: a token with a few claims is about 700 bytes with its key).
 */
const minted = sharedCache<string, { token: string; expires: number }>('mintedSiteTokens', (value, key) => entryBytes(key, value));
/** A remembered token is answered only while it has at least this long left. */
const MIN_REMAINING_SECONDS = 600;

/**
 * The visitor's token for one lookup's answer. `notAfter` (unix seconds): the token expires no
 * later, for a visitor whose own credential (a visitor-auth JWT) expires then; such a token is
 * minted for that lookup alone, never remembered.
 */
export async function siteTokenFor(deps: AppDeps, authKeySealed: string, claims: SiteTokenClaims, notAfter?: number): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const fingerprint = keyFingerprint(authKeySealed);
  const expires = siteTokenExpiry(now);
  if (notAfter !== undefined && notAfter < expires) {
    return mintSiteToken(siteTokenKey(await deps.siteTokenKey(), claims.site, fingerprint), fingerprint, claims, notAfter, now);
  }
  const cacheKey = `${fingerprint}\n${JSON.stringify(claims)}`;
  const hit = minted().get(cacheKey);
  if (hit && hit.expires - now >= MIN_REMAINING_SECONDS) return hit.token;
  const token = await mintSiteToken(siteTokenKey(await deps.siteTokenKey(), claims.site, fingerprint), fingerprint, claims, expires);
  minted().set(cacheKey, { token, expires });
  return token;
}

/**
 * Tokens whose signature checked out, with their claims, until they expire: a reader's page view
 * presents one token several times. With them, the caller each stood for, until the site's state
 * it was checked against (its site published, its key, its share link: `states`) must be read
 * again, so a token stops working as soon as it would have without this. Within the
 * `verifiedSiteTokens` share of CACHE_MEMORY (about 1.5 kB a token with its claims and caller).
 */
const verified = sharedCache<string, { claims: SiteTokenClaims; expires: number; caller?: Caller; callerUntil?: number }>(
  'verifiedSiteTokens',
  (value, key) => entryBytes(key, value),
);

/**
 * What a token must still hold, by site and share link, remembered as API tokens are
 * (AUTH_CACHE_TTL): a reader's page view presents one token four times or more, and each read
 * would otherwise start with this row. Within the `siteTokenStates` share of CACHE_MEMORY (about
 * 1 kB an entry: the site's state with the ids of the spaces it publishes).
 */
const states = sharedCache<string, { state: SiteTokenState; expires: number }>('siteTokenStates', (value, key) => entryBytes(key, value));

/** The state a site's tokens must hold, and until when (ms) it may be used as read. */
async function tokenState(
  em: Em,
  siteId: string,
  shareLink: string,
  cacheTtlMs: number,
): Promise<{ state: SiteTokenState; expires: number } | undefined> {
  const key = `${siteId}\n${shareLink}`;
  const now = Date.now();
  const hit = states().get(key);
  if (hit && hit.expires > now) return hit;
  const state = await siteTokenState(em, siteId, shareLink);
  if (!state || cacheTtlMs <= 0) {
    states().delete(key);
    return state && { state, expires: now };
  }
  const read = { state, expires: now + cacheTtlMs };
  states().set(key, read);
  return read;
}

/**
 * The caller a site visitor's token stands for, or null when it does not verify or no longer
 * holds (key rotated, site unpublished or its visibility changed, share link deactivated). The
 * site's state is read again once `cacheTtlMs` has passed since this process last read it (as
 * for API tokens: a revocation takes effect within AUTH_CACHE_TTL; at once with 0).
 */
export async function siteTokenCaller(em: Em, deps: AppDeps, token: string, cacheTtlMs: number): Promise<Caller | null> {
  const nowMs = Date.now();
  // The caller this token stood for, while the site's state it was checked against may still be used.
  const known = verified().get(token);
  if (known?.caller && known.callerUntil !== undefined && known.callerUntil > nowMs) return known.caller;
  const peeked = peekSiteToken(token);
  if (!peeked) return null;
  // Read with the share link the token names; the signature then vouches for that name.
  const read = await tokenState(em, peeked.siteId, peeked.shareLink, cacheTtlMs);
  if (!read) return null;
  const { state } = read;
  const fingerprint = keyFingerprint(state.authKeySealed);
  const now = Math.floor(nowMs / 1000);
  let claims = known && known.expires > now ? known.claims : null;
  if (!claims) {
    const key = siteTokenKey(await deps.siteTokenKey(), peeked.siteId, fingerprint);
    claims = await verifySiteToken(token, key, now);
    if (!claims || claims.site !== peeked.siteId || (claims.shareLink ?? '') !== peeked.shareLink) return null;
  }
  if (!tokenStillHolds(claims, peeked.fingerprint, { ...state, fingerprint })) return null;
  const pinned = await pinnedRevision(em, claims, state, deps.config.visitorRevisionGraceMs, nowMs);
  const live = new Set(state.spaceIds);
  const id = `visitor:${claims.site}`;
  const caller: Caller = {
    user: { id, displayName: 'Site visitor', email: '', photoUrl: null },
    tokenId: id,
    organizationId: claims.organization,
    visitor: {
      organizationId: claims.organization,
      siteId: claims.site,
      spaceIds: claims.spaces.filter((spaceId) => live.has(spaceId)),
      claims: claims.claims,
      revision: { spaceId: claims.space, revisionId: pinned.revisionId },
      rememberMs: cacheTtlMs,
      ...(claims.minter ? { minter: claims.minter } : {}),
    },
  };
  // Until the state it was checked against must be read again, the revision it reads is no longer
  // published, or the token expires.
  const callerUntil = Math.min(read.expires, pinned.until, peeked.expires * 1000);
  verified().set(token, { claims, expires: peeked.expires, caller, callerUntil });
  return caller;
}

/**
 * The revision of its space a token reads besides the space's current one (access.ts
 * `requireVisibleRevision`), and until when (ms) that holds: the revision its lookup answered
 * with while the site publishes it, and for `graceMs` after the site moved on to another (a page
 * being read still loads). After that, the current revision only: content removed from the site
 * (a page deleted by a merge) is no longer readable with a token minted before. When the space
 * moved on is told by its current revision's creation, which is never after it became current.
 */
async function pinnedRevision(
  em: Em,
  claims: SiteTokenClaims,
  state: SiteTokenState,
  graceMs: number,
  nowMs: number,
): Promise<{ revisionId: string; until: number }> {
  const current = state.spaceRevisions[claims.space];
  if (current === undefined || current === claims.revision) return { revisionId: claims.revision, until: Infinity };
  if (graceMs > 0) {
    const row = await loadRevision(em, current);
    const until = row ? new Date(row.created_at).getTime() + graceMs : 0;
    if (until > nowMs) return { revisionId: claims.revision, until };
  }
  return { revisionId: current, until: Infinity };
}

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

/** How long a preview's token (and the link carrying it) works: an hour, as GitBook's preview links. */
export const PREVIEW_TOKEN_SECONDS = 3600;

/** A preview's token (site-token.ts `preview`): minted for each preview link, never remembered. */
export async function previewTokenFor(deps: AppDeps, authKeySealed: string, claims: SiteTokenClaims): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const fingerprint = keyFingerprint(authKeySealed);
  const key = siteTokenKey(await deps.siteTokenKey(), claims.site, fingerprint);
  return mintSiteToken(key, fingerprint, { ...claims, preview: true }, now + PREVIEW_TOKEN_SECONDS, now);
}

/**
 * Tokens whose signature checked out, with their claims, until they expire: a reader's page view
 * presents one token several times. Within the `verifiedSiteTokens` share of CACHE_MEMORY (about
 * 1 kB a token with its claims).
 */
const verified = sharedCache<string, { claims: SiteTokenClaims; expires: number }>('verifiedSiteTokens', (value, key) =>
  entryBytes(key, value),
);

/**
 * The state a site's tokens must hold (site published, visibility, key, share link, the spaces it
 * publishes and their revisions), kept between writes (AppDeps.siteTokenStates): a reader's page
 * view presents one token four times or more, and each read would otherwise start with this row.
 * A change to any of it in any process (the site unpublished, a share link deactivated, a space
 * deleted) is heard before a kept state is served again.
 */
async function tokenState(
  em: Em,
  deps: AppDeps,
  siteId: string,
  shareLink: string,
  caughtUp?: () => Promise<boolean>,
): Promise<SiteTokenState | undefined> {
  const key = `${siteId}\n${shareLink}`;
  const kept = await deps.siteTokenStates.current(key, caughtUp);
  if (kept) return kept;
  const ticket = deps.siteTokenStates.ticket();
  const state = await siteTokenState(em, siteId, shareLink);
  if (state) deps.siteTokenStates.set(key, ticket, state);
  return state;
}

/**
 * The caller a site visitor's token stands for, or null when it does not verify or no longer
 * holds (key rotated, site unpublished or its visibility changed, share link deactivated): checked
 * against the site's state on every request, as kept between writes (`tokenState`), so a
 * revocation through any process takes effect at once.
 */
export async function siteTokenCaller(em: Em, deps: AppDeps, token: string, caughtUp?: () => Promise<boolean>): Promise<Caller | null> {
  const nowMs = Date.now();
  const known = verified().get(token);
  const peeked = peekSiteToken(token);
  if (!peeked) return null;
  // Read with the share link the token names; the signature then vouches for that name.
  const state = await tokenState(em, deps, peeked.siteId, peeked.shareLink, caughtUp);
  if (!state) return null;
  const fingerprint = keyFingerprint(state.authKeySealed);
  const now = Math.floor(nowMs / 1000);
  let claims = known && known.expires > now ? known.claims : null;
  if (!claims) {
    const key = siteTokenKey(await deps.siteTokenKey(), peeked.siteId, fingerprint);
    claims = await verifySiteToken(token, key, now);
    if (!claims || claims.site !== peeked.siteId || (claims.shareLink ?? '') !== peeked.shareLink) return null;
    verified().set(token, { claims, expires: peeked.expires });
  }
  if (!tokenStillHolds(claims, peeked.fingerprint, { ...state, fingerprint })) return null;
  const pinned = await pinnedRevision(em, claims, state, deps.config.visitorRevisionGraceMs, nowMs);
  // A space made a draft (or removed) is no longer read with a token minted before, but by a preview showing drafts.
  const live = new Set(claims.preview && claims.drafts ? state.spaceIds : state.liveSpaceIds);
  const id = `visitor:${claims.site}`;
  return {
    user: { id, displayName: 'Site visitor', email: '', photoUrl: null },
    tokenId: id,
    organizationId: claims.organization,
    visitor: {
      organizationId: claims.organization,
      siteId: claims.site,
      spaceIds: claims.spaces.filter((spaceId) => live.has(spaceId)),
      claims: claims.claims,
      revision: { spaceId: claims.space, revisionId: pinned.revisionId },
      ...(claims.shareLink ? { shareLink: claims.shareLink } : {}),
      ...(claims.minter ? { minter: claims.minter } : {}),
      ...(claims.preview ? { preview: true } : {}),
      ...(claims.preview && claims.drafts ? { drafts: true } : {}),
    },
  };
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

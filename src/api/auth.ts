import type { FastifyInstance, FastifyRequest } from 'fastify';
import { liveToken, touchToken } from '../db/accounts.ts';
import { lookupTokenByHash, touchLookupToken } from '../db/sites.ts';
import { installationTokenFacts } from '../db/integrations.ts';
import { hashToken, INSTALLATION_TOKEN_PREFIX, LOOKUP_TOKEN_PREFIX } from '../domain/ids.ts';
import { cacheBytes, SizedLru } from '../domain/lru.ts';
import type { ReadCache } from '../domain/read-cache.ts';
import { entryBytes } from '../domain/sizeof.ts';
import { looksLikeJwt } from '../domain/sites/site-token.ts';
import type { Caller } from './context.ts';
import { forbidden, HttpError, unauthorized } from './errors.ts';
import { siteTokenCaller } from './site-tokens.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route needs no bearer token (health, the OpenAPI document and its UI, SAML sign-in, push
     * webhooks, which carry credentials of their own). Every other route needs one: authentication
     * is decided by the route the router matched, never by the text of the URL.
     */
    public?: boolean;
    /**
     * The route also accepts a site visitor's token (`Caller.visitor`): published-content reads a
     * reader of the site needs; `'preview'`: only a preview's token (a change request's content,
     * which a site shows only in its preview). Every other route refuses such a token.
     */
    visitor?: boolean | 'preview';
    /**
     * The route also accepts a site lookup token (`Caller.siteLookup`): resolving published URLs.
     * Every other route refuses such a token.
     */
    siteLookup?: boolean;
    /**
     * The route also accepts a token acting as an integration's installation (`Caller.installation`),
     * which it authorizes by the integration's scopes within the installation's reach (access.ts and
     * api/integrations/service.ts). Every other route refuses such a token.
     */
    installation?: boolean;
  }
}

const LAST_USED_PRECISION_MS = 60_000;

/** The token of an `Authorization` header: `Bearer <token>` (any case, any spacing); null when absent or malformed. */
export function bearerToken(header: string | undefined): string | null {
  if (!header) return null;
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  return match ? match[1] : null;
}

/**
 * The request's bearer token and its SHA-256 hash (hex, as tokens are stored), computed once per
 * request for the rate limit and authentication alike; null without a well-formed token.
 */
export function requestToken(request: FastifyRequest): { value: string; hash: string } | null {
  let found = tokens.get(request);
  if (found === undefined) {
    const value = bearerToken(request.headers.authorization);
    found = value === null ? null : { value, hash: hashToken(value) };
    tokens.set(request, found);
  }
  return found;
}
const tokens = new WeakMap<FastifyRequest, { value: string; hash: string } | null>();

export interface AuthOptions {
  /**
   * Verified API and site lookup tokens, kept between writes (domain/read-cache.ts): a token revoked
   * or deleted through any process is refused by every process at once (Migration0031TokenFeed).
   */
  tokens: ReadCache<Caller>;
  /** Failed authentications one client address may make per window before it is answered 429; 0: no limit. */
  failureMax: number;
  failureWindowMs: number;
}

/**
 * Bearer-token authentication for every route that is not marked `config: { public: true }`.
 * Tokens are looked up by their SHA-256 hash; the token itself is never stored or logged. Verified
 * tokens are kept between writes (`tokens`) for AUTH_CACHE_TTL at most: a token revoked through any
 * process stops working on every process at once. Each API process has its own cache, of its share
 * of CACHE_MEMORY (`apiTokens`, domain/lru.ts: about 550 bytes a token, so 3,800 tokens in the 2 MiB
 * of the default). A token minted by an SSO sign-in carries the organization it was minted for
 * (`Caller.organizationId`): access.ts refuses it everywhere else. Two tokens of limited use are
 * told apart by their shape: a site visitor's token (a JWT, site-tokens.ts: checked on every request
 * against its site's state, which is kept between writes the same way) works only on
 * routes marked `config: { visitor: true }`, a site lookup token (`dmsl_…`, hashed at rest like
 * API tokens) only on routes marked `config: { siteLookup: true }`; anywhere else they answer 403.
 * Failed authentications are counted per client address (in the `authFailures` share, about 200
 * bytes an address: 2,600 addresses by default, the least recently failing forgotten first): past
 * `failureMax` in a window, that address is answered 429 until the window ends.
 */
export function registerAuth(app: FastifyInstance, options: AuthOptions): void {
  const failures = new SizedLru<string, { count: number; resetAt: number }>(cacheBytes('authFailures'), (value, key) =>
    entryBytes(key, value),
  );

  function throttled(ip: string, now: number): HttpError | null {
    if (options.failureMax <= 0) return null;
    const entry = failures.get(ip);
    if (!entry || entry.resetAt <= now || entry.count < options.failureMax) return null;
    const error = new HttpError(429, 'Too many failed authentications from this address; retry later');
    error.retryAfterSeconds = Math.max(1, Math.ceil((entry.resetAt - now) / 1000));
    return error;
  }

  function failed(ip: string, now: number): void {
    if (options.failureMax <= 0) return;
    const entry = failures.get(ip);
    if (!entry || entry.resetAt <= now) failures.set(ip, { count: 1, resetAt: now + options.failureWindowMs });
    else entry.count += 1;
  }

  async function lookup(
    request: FastifyRequest,
    { value: token, hash }: { value: string; hash: string },
    now: number,
  ): Promise<Caller | null> {
    // A site visitor's token is a JWT, checked against its site's state (kept between writes as tokens are).
    if (looksLikeJwt(token)) return siteTokenCaller(request.em, request.server.deps, token, request.caughtUp);
    const kept = await options.tokens.current(hash, request.caughtUp);
    if (kept) return kept;
    const ticket = options.tokens.ticket();
    const caller = token.startsWith(LOOKUP_TOKEN_PREFIX)
      ? await lookupCaller(request, hash, now)
      : token.startsWith(INSTALLATION_TOKEN_PREFIX)
        ? await installationCaller(request, hash, now)
        : await apiCaller(request, hash, now);
    if (caller) options.tokens.set(hash, ticket, caller);
    return caller;
  }

  async function apiCaller(request: FastifyRequest, hash: string, now: number): Promise<Caller | null> {
    const row = await liveToken(request.em, hash);
    if (!row) return null;
    if (!row.lastUsedAt || now - row.lastUsedAt.getTime() > LAST_USED_PRECISION_MS) {
      await touchToken(request.em, row.id, new Date(now));
    }
    const { user } = row;
    return {
      user: { id: user.id, displayName: user.displayName, email: user.email, photoUrl: user.photoUrl ?? null },
      tokenId: row.id,
      organizationId: row.organizationId ?? null,
    };
  }

  /** A site lookup token: its `user` matches no account, so it is a member of nothing. */
  async function lookupCaller(request: FastifyRequest, hash: string, now: number): Promise<Caller | null> {
    const row = await lookupTokenByHash(request.em, hash);
    if (!row) return null;
    if (!row.last_used_at || now - new Date(row.last_used_at).getTime() > LAST_USED_PRECISION_MS) {
      await touchLookupToken(request.em, row.id, new Date(now));
    }
    const id = `site-lookup:${row.id}`;
    return {
      user: { id, displayName: row.label, email: '', photoUrl: null },
      tokenId: row.id,
      organizationId: row.organization_id,
      siteLookup: { organizationId: row.organization_id },
    };
  }

  /**
   * A token acting as an installation (`dmsi_…`): its `user` matches no account, so it is a member of
   * nothing; it works in its installation's organization only, while the installation exists and is
   * not paused and its integration is published (deleting either deletes the token, and the change
   * feed makes every process forget it at once), until it expires.
   */
  async function installationCaller(request: FastifyRequest, hash: string, now: number): Promise<Caller | null> {
    const facts = await installationTokenFacts(request.em, hash, new Date(now));
    if (!facts || facts.status === 'paused') return null;
    return {
      user: { id: `installation:${facts.installationId}`, displayName: facts.integrationTitle, email: '', photoUrl: null },
      tokenId: facts.tokenId,
      organizationId: facts.organizationId,
      installation: {
        installationId: facts.installationId,
        integrationName: facts.integrationName,
        organizationId: facts.organizationId,
        scopes: facts.scopes,
        spaces: facts.spaces,
        sites: facts.sites,
        expiresAt: facts.expiresAt.getTime(),
      },
    };
  }

  /** A token of limited use works only on the routes marked for it. */
  function admitted(request: FastifyRequest, caller: Caller): Caller {
    const config = request.routeOptions.config;
    if (caller.visitor && config.visitor !== true && !(config.visitor === 'preview' && caller.visitor.preview)) {
      throw forbidden("A site visitor's token only reads the published content of its site");
    }
    if (caller.siteLookup && config.siteLookup !== true) {
      throw forbidden('A site lookup token only resolves the published URLs of its organization');
    }
    if (caller.installation && config.installation !== true) {
      throw forbidden("A token of an integration's installation does not work on this operation");
    }
    return caller;
  }

  async function authenticate(request: FastifyRequest): Promise<Caller> {
    const now = Date.now();
    const refused = throttled(request.ip, now);
    if (refused) throw refused;
    const header = request.headers.authorization;
    const token = requestToken(request);
    const found = token === null ? null : await lookup(request, token, now);
    // A verified token is kept between writes: one acting as an installation may expire meanwhile.
    const caller = found?.installation && found.installation.expiresAt <= now ? null : found;
    if (caller) return admitted(request, caller);
    failed(request.ip, now);
    if (!header) throw unauthorized();
    if (token === null) throw unauthorized('The Authorization header must be "Bearer <token>"');
    throw unauthorized('The access token is invalid or revoked');
  }

  app.decorateRequest('caller', null as unknown as Caller);
  app.addHook('onRequest', async (request) => {
    // No route matched: the not-found handler answers 404 whoever asks.
    if (request.routeOptions.url === undefined || request.routeOptions.config.public === true) return;
    request.caller = await authenticate(request);
  });
}

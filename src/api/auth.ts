import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiToken, User } from '../db/entities.ts';
import { hashToken } from '../domain/ids.ts';
import { Lru } from '../domain/lru.ts';
import type { Caller } from './context.ts';
import { unauthorized } from './errors.ts';

const LAST_USED_PRECISION_MS = 60_000;
/** Tokens an API process remembers at most (least recently used first out): about 5 MB at most. */
export const AUTH_CACHE_SIZE = 10_000;

/**
 * Bearer-token authentication for every `/v1` route. Tokens are looked up by their SHA-256 hash;
 * the token itself is never stored or logged. A short cache (AUTH_CACHE_TTL) keeps the lookup off
 * the hot path; a revoked token stops working within that time. Each API process has its own
 * cache of at most AUTH_CACHE_SIZE tokens.
 */
export function registerAuth(app: FastifyInstance, cacheTtlMs: number): void {
  const cache = new Lru<string, { caller: Caller; expires: number }>(AUTH_CACHE_SIZE);

  async function authenticate(request: FastifyRequest): Promise<Caller> {
    const header = request.headers.authorization;
    if (!header) throw unauthorized();
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match) throw unauthorized('The Authorization header must be "Bearer <token>"');
    const hash = hashToken(match[1]);
    const now = Date.now();
    const hit = cache.get(hash);
    if (hit && hit.expires > now) return hit.caller;
    if (hit) cache.delete(hash);

    const token = await request.em.findOne(ApiToken, { tokenHash: hash, revokedAt: null });
    if (!token) throw unauthorized('The access token is invalid or revoked');
    const user = await request.em.findOneOrFail(User, { id: token.userId });
    if (!token.lastUsedAt || now - token.lastUsedAt.getTime() > LAST_USED_PRECISION_MS) {
      await request.em.nativeUpdate(ApiToken, { id: token.id }, { lastUsedAt: new Date(now) });
    }
    const caller: Caller = {
      user: { id: user.id, displayName: user.displayName, email: user.email, photoUrl: user.photoUrl ?? null },
      tokenId: token.id,
    };
    if (cacheTtlMs > 0) cache.set(hash, { caller, expires: now + cacheTtlMs });
    return caller;
  }

  app.decorateRequest('caller', null as unknown as Caller);
  app.addHook('onRequest', async (request) => {
    if (!request.url.startsWith('/v1/') || request.method === 'OPTIONS') return;
    request.caller = await authenticate(request);
  });
}

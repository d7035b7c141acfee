import { errors, jwtVerify } from 'jose';

/**
 * Visitor authentication: a visitor of a `visitor-auth` site carries a JWT signed (HS256) with the
 * site's signing key. The signature and expiry (`exp`, `nbf`) are checked with `jose`; a token
 * without `exp` is refused (it would work for ever once it leaks). The token's claims (minus the
 * registered ones) become the visitor's signed claims; its `exp` bounds the site token minted from
 * it (a visitor's token never outlives the JWT it was minted from).
 */

export type VisitorToken =
  | { ok: true; claims: Record<string, unknown>; /** Its `exp` (unix seconds): what is minted from it expires no later. */ expires: number }
  | { ok: false; reason: 'missing' | 'expired' | 'invalid' };

const REGISTERED = new Set(['iss', 'sub', 'aud', 'exp', 'nbf', 'iat', 'jti']);

export async function verifyVisitorToken(token: string | undefined, signingKey: string): Promise<VisitorToken> {
  if (!token) return { ok: false, reason: 'missing' };
  try {
    const { payload } = await jwtVerify(token, new TextEncoder().encode(signingKey), { algorithms: ['HS256'], requiredClaims: ['exp'] });
    const claims: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(payload)) if (!REGISTERED.has(name)) claims[name] = value;
    return { ok: true, claims, expires: payload.exp! };
  } catch (error) {
    return { ok: false, reason: error instanceof errors.JWTExpired ? 'expired' : 'invalid' };
  }
}

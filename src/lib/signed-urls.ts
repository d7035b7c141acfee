import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { loadSecretsKey } from './secrets.ts';

/**
 * Temporary links that need no token: the URL carries its expiry (unix seconds) and an
 * HMAC-SHA256 over the path and that expiry, so the signature is the credential and changing
 * either breaks it. The signing key is derived (HKDF) from the service's secrets key with a
 * purpose label, so it is never the encryption key itself and one purpose's signatures do not
 * verify for another.
 */

export type Verdict = 'valid' | 'bad-signature' | 'expired';

/** A signing key for one purpose (e.g. `pdf`), derived from the 32-byte secrets key. */
export function deriveSigningKey(secretsKey: Buffer, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secretsKey, Buffer.alloc(0), `docs-service signed url: ${purpose}`, 32));
}

/** The signature of `path` (e.g. `/pdf/<sha256>`) valid until `expires` (unix seconds), base64url. */
export function signPath(key: Buffer, path: string, expires: number): string {
  return createHmac('sha256', key).update(`${path}\n${expires}`).digest('base64url');
}

/** `${baseUrl}${path}?expires=…&signature=…`. */
export function signedUrl(key: Buffer, baseUrl: string, path: string, expires: number): string {
  return `${baseUrl}${path}?expires=${expires}&signature=${signPath(key, path, expires)}`;
}

/**
 * Checks the signature first (a link whose expiry was pushed back is a bad signature, not an
 * expired link), then the expiry against `nowSeconds`.
 */
export function verifySignedPath(key: Buffer, path: string, expires: number, signature: string, nowSeconds: number): Verdict {
  if (!Number.isSafeInteger(expires) || expires < 0) return 'bad-signature';
  // Compared as text: base64url has spare bits in its last character, so decoding first would
  // accept more than one spelling of a signature.
  const expected = Buffer.from(signPath(key, path, expires), 'utf8');
  const given = Buffer.from(signature, 'utf8');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'bad-signature';
  return nowSeconds < expires ? 'valid' : 'expired';
}

/** The signing key for `purpose` from SECRETS_KEY (or the key file under DATA_DIR), loaded once. */
export function lazySigningKey(config: { secretsKey: string | undefined; dataDir: string }, purpose: string): () => Promise<Buffer> {
  let key: Promise<Buffer> | undefined;
  return () => {
    key ??= loadSecretsKey(config).then(
      (secrets) => deriveSigningKey(secrets, purpose),
      (error: unknown) => {
        key = undefined;
        throw error;
      },
    );
    return key;
  };
}

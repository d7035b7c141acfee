import { randomBytes, createHash } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A 20-character random identifier, the shape GitBook uses for its objects. */
export function newId(length = 20): string {
  const bytes = randomBytes(length * 2);
  let out = '';
  for (let i = 0; i < bytes.length && out.length < length; i++) {
    // 248 = 4 * 62: reject the tail of the byte range so every character is equally likely.
    if (bytes[i] < 248) out += ALPHABET[bytes[i] % 62];
  }
  return out.length === length ? out : out + newId(length - out.length);
}

const TOKEN_PREFIX = 'dms_';

/** A new secret API token: 256 bits of randomness behind a recognisable prefix. */
export function newToken(): string {
  return TOKEN_PREFIX + randomBytes(32).toString('base64url');
}

export const LOOKUP_TOKEN_PREFIX = 'dmsl_';

/** A new secret site lookup token: like an API token, behind a prefix of its own (auth tells them apart by it). */
export function newLookupToken(): string {
  return LOOKUP_TOKEN_PREFIX + randomBytes(32).toString('base64url');
}

/** What is stored for a token: tokens are long random secrets, so one SHA-256 is enough to keep them safe at rest. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export const INSTALLATION_TOKEN_PREFIX = 'dmsi_';

/** A new secret token acting as an integration's installation: like an API token, behind a prefix of its own. */
export function newInstallationToken(): string {
  return INSTALLATION_TOKEN_PREFIX + randomBytes(32).toString('base64url');
}

import { describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deriveSigningKey, lazySigningKey, signPath, signedUrl, verifySignedPath } from '../../src/lib/signed-urls.ts';

const secrets = randomBytes(32);
const key = deriveSigningKey(secrets, 'pdf');
const path = `/pdf/${'ab'.repeat(32)}`;
const now = 1_700_000_000;

describe('signed URLs', () => {
  it('builds a URL whose expiry and signature verify for that path until it expires', () => {
    const url = new URL(signedUrl(key, 'https://docs.example', path, now + 3600));
    expect(url.origin + url.pathname).toBe(`https://docs.example${path}`);
    expect(url.searchParams.get('expires')).toBe(String(now + 3600));
    const signature = url.searchParams.get('signature')!;
    expect(signature).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(verifySignedPath(key, path, now + 3600, signature, now)).toBe('valid');
    expect(verifySignedPath(key, path, now + 3600, signature, now + 3599)).toBe('valid');
    expect(verifySignedPath(key, path, now + 3600, signature, now + 3600)).toBe('expired');
    expect(verifySignedPath(key, path, now + 3600, signature, now + 99_999)).toBe('expired');
  });

  it('refuses a changed signature, path, expiry or key', () => {
    const signature = signPath(key, path, now + 60);
    for (let i = 0; i < signature.length; i++) {
      const flipped = signature.slice(0, i) + (signature[i] === 'A' ? 'B' : 'A') + signature.slice(i + 1);
      expect(verifySignedPath(key, path, now + 60, flipped, now)).toBe('bad-signature');
    }
    expect(verifySignedPath(key, `/pdf/${'cd'.repeat(32)}`, now + 60, signature, now)).toBe('bad-signature');
    // Pushing the expiry back is a forgery, even for an expired link.
    expect(verifySignedPath(key, path, now + 7200, signature, now)).toBe('bad-signature');
    expect(verifySignedPath(key, path, now + 60, signature, now + 61)).toBe('expired');
    expect(verifySignedPath(deriveSigningKey(secrets, 'other'), path, now + 60, signature, now)).toBe('bad-signature');
    expect(verifySignedPath(deriveSigningKey(randomBytes(32), 'pdf'), path, now + 60, signature, now)).toBe('bad-signature');
    for (const bad of ['', 'x', signature + 'A', signature.slice(1), `${signature.slice(0, -1)}=`, 'é'.repeat(43)]) {
      expect(verifySignedPath(key, path, now + 60, bad, now)).toBe('bad-signature');
    }
    expect(verifySignedPath(key, path, -1, signPath(key, path, -1), now)).toBe('bad-signature');
    expect(verifySignedPath(key, path, 1.5, signPath(key, path, 1.5), 0)).toBe('bad-signature');
  });

  it('derives a key per purpose that is not the secrets key', () => {
    expect(key).toHaveLength(32);
    expect(key.equals(secrets)).toBe(false);
    expect(key.equals(deriveSigningKey(secrets, 'pdf'))).toBe(true);
    expect(key.equals(deriveSigningKey(secrets, 'export'))).toBe(false);
  });

  it('loads the key once from SECRETS_KEY or the key file', async () => {
    const fromEnv = lazySigningKey({ secretsKey: secrets.toString('base64'), dataDir: '/nonexistent' }, 'pdf');
    expect((await fromEnv()).equals(key)).toBe(true);
    expect(await fromEnv()).toBe(await fromEnv());
    const dir = mkdtempSync(join(tmpdir(), 'signed-urls-'));
    try {
      const a = await lazySigningKey({ secretsKey: undefined, dataDir: dir }, 'pdf')();
      const b = await lazySigningKey({ secretsKey: undefined, dataDir: dir }, 'pdf')();
      expect(a.equals(b)).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

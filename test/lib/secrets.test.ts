import { describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lazySecretBox, loadSecretsKey, secretBox } from '../../src/lib/secrets.ts';

describe('secret box', () => {
  const box = secretBox(randomBytes(32));

  it('seals and opens, with a fresh IV each time and the context bound', () => {
    const a = box.seal('{"API_KEY":"value"}', 'integration:x');
    const b = box.seal('{"API_KEY":"value"}', 'integration:x');
    expect(a).not.toBe(b);
    expect(a).not.toContain('value');
    expect(box.open(a, 'integration:x')).toBe('{"API_KEY":"value"}');
    expect(() => box.open(a, 'integration:y')).toThrow();
    expect(() => secretBox(randomBytes(32)).open(a, 'integration:x')).toThrow();
    const [v, iv, tag, ct] = a.split('.');
    const flipped = Buffer.from(ct, 'base64url');
    flipped[0] ^= 1;
    expect(() => box.open([v, iv, tag, flipped.toString('base64url')].join('.'), 'integration:x')).toThrow();
    expect(() => box.open('garbage', 'integration:x')).toThrow(/Not a sealed secret/);
    expect(() => secretBox(randomBytes(16))).toThrow(/32 bytes/);
  });
});

describe('secrets key', () => {
  it('uses SECRETS_KEY when set', async () => {
    const key = randomBytes(32);
    expect((await loadSecretsKey({ secretsKey: key.toString('base64'), dataDir: '/nonexistent' })).equals(key)).toBe(true);
    await expect(loadSecretsKey({ secretsKey: randomBytes(8).toString('base64'), dataDir: '/nonexistent' })).rejects.toThrow(/SECRETS_KEY/);
  });

  it('otherwise creates one key file with mode 0600 and keeps using it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'secrets-'));
    try {
      const dataDir = join(dir, 'data');
      const keys = await Promise.all(Array.from({ length: 5 }, () => loadSecretsKey({ secretsKey: undefined, dataDir })));
      for (const key of keys) expect(key.equals(keys[0])).toBe(true);
      const file = join(dataDir, 'secrets.key');
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(Buffer.from(readFileSync(file, 'utf8').trim(), 'base64').equals(keys[0])).toBe(true);
      const box = await lazySecretBox({ secretsKey: undefined, dataDir })();
      expect(secretBox(keys[0]).open(box.seal('x', 'c'), 'c')).toBe('x');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

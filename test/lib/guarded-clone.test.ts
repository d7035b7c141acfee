import { describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CloneError, guardedClone } from '../../src/lib/guarded-clone.ts';
import { checkUrl, type FetchError, fetchPolicyFromEnv } from '../../src/lib/guarded-fetch.ts';

const strict = fetchPolicyFromEnv({});
const allowLocal = fetchPolicyFromEnv({ FETCH_ALLOW_HOSTS: '127.0.0.1' });

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return 'ok';
  } catch (error) {
    return (error as FetchError | CloneError).code;
  }
}

describe('checkUrl', () => {
  it('checks a URL as guardedFetch checks a hop, without fetching it', async () => {
    expect(await codeOf(checkUrl('http://127.0.0.1:9/x', strict))).toBe('ADDRESS_NOT_ALLOWED');
    expect(await codeOf(checkUrl('http://169.254.169.254/latest', fetchPolicyFromEnv({ FETCH_ALLOW_PRIVATE: 'true' })))).toBe(
      'ADDRESS_NOT_ALLOWED',
    );
    expect(await codeOf(checkUrl('file:///etc/passwd', strict))).toBe('PROTOCOL_NOT_ALLOWED');
    expect(await codeOf(checkUrl('ssh://git@example.com/r.git', strict))).toBe('PROTOCOL_NOT_ALLOWED');
    expect(await codeOf(checkUrl('not a url', strict))).toBe('INVALID_URL');
    const allowed = await checkUrl('http://user:pw@127.0.0.1:9/r.git', allowLocal);
    expect(allowed.addresses).toEqual([{ address: '127.0.0.1', family: 4 }]);
  });
});

describe('guardedClone', () => {
  it('refuses what the fetch rules refuse, before running git', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'clone-test-'));
    try {
      const limits = { timeoutMs: 5000, maxBytes: 1024 * 1024 };
      expect(await codeOf(guardedClone('http://127.0.0.1:9/r.git', join(dir, 'a'), strict, limits))).toBe('ADDRESS_NOT_ALLOWED');
      expect(await codeOf(guardedClone('file:///tmp/r.git', join(dir, 'b'), strict, limits))).toBe('PROTOCOL_NOT_ALLOWED');
      expect(await codeOf(guardedClone('ext::sh -c touch% /tmp/pwned', join(dir, 'c'), strict, limits))).toBe('PROTOCOL_NOT_ALLOWED');
      // Allowed, but nothing listens there: git's own failure, with the URL's password hidden.
      let message = '';
      try {
        await guardedClone('http://u:hunter2@127.0.0.1:9/r.git', join(dir, 'd'), allowLocal, limits);
      } catch (error) {
        expect(error).toBeInstanceOf(CloneError);
        message = (error as Error).message;
      }
      expect(message).toMatch(/Could not clone/);
      expect(message).not.toContain('hunter2');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

import { describe, expect, it } from '@jest/globals';
import { ConfigError, loadConfig } from '../../src/config.ts';

describe('Git Sync configuration', () => {
  it('has defaults under DATA_DIR', () => {
    const config = loadConfig({ DATA_DIR: '/var/docs' });
    expect(config).toMatchObject({
      gitCacheDir: '/var/docs/git-cache',
      gitMaxFileBytes: 100 * 1024 * 1024,
      gitTimeoutMs: 600_000,
      gitSyncResendAfterMs: 30_000,
    });
  });

  it('reads sizes and durations', () => {
    expect(
      loadConfig({ GIT_MAX_FILE_BYTES: '5MiB', GIT_TIMEOUT: '30s', GIT_CACHE_DIR: '/cache', GIT_SYNC_RESEND_AFTER: '2m' }),
    ).toMatchObject({
      gitMaxFileBytes: 5 * 1024 * 1024,
      gitTimeoutMs: 30_000,
      gitSyncResendAfterMs: 120_000,
      gitCacheDir: '/cache',
    });
  });

  it('names every bad value', () => {
    try {
      loadConfig({ GIT_MAX_FILE_BYTES: 'lots', GIT_TIMEOUT: '10ms', GIT_SYNC_RESEND_AFTER: '0' });
      throw new Error('accepted');
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).problems).toEqual([
        'GIT_MAX_FILE_BYTES="lots" must be a positive number of bytes, optionally with KiB, MiB or GiB',
        'GIT_TIMEOUT="10ms" must be at least 1s',
        'GIT_SYNC_RESEND_AFTER="0" must be at least 100ms',
      ]);
    }
  });
});

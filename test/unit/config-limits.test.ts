import { describe, expect, it } from '@jest/globals';
import { type ConfigError, loadConfig } from '../../src/config.ts';

function problems(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (e) {
    return (e as ConfigError).problems.join('\n');
  }
  return '';
}

describe('rate limit and body size configuration', () => {
  it('defaults to 1000 requests a minute, 100 failed authentications a minute per address, and 10 MiB bodies', () => {
    const config = loadConfig({});
    expect(config.rateLimit).toEqual({ max: 1000, readerMax: 100_000, windowMs: 60_000, authFailures: 100 });
    expect(config.bodyLimit).toBe(10 * 1024 * 1024);
  });

  it('reads RATE_LIMIT_MAX, RATE_LIMIT_WINDOW and BODY_LIMIT; 0 disables the rate limit', () => {
    expect(loadConfig({ RATE_LIMIT_MAX: '0' }).rateLimit.max).toBe(0);
    expect(loadConfig({ RATE_LIMIT_MAX: '50', RATE_LIMIT_WINDOW: '10s' }).rateLimit).toEqual({
      max: 50,
      readerMax: 100_000,
      windowMs: 10_000,
      authFailures: 100,
    });
    expect(loadConfig({ RATE_LIMIT_READER_MAX: '500' }).rateLimit.readerMax).toBe(500);
    expect(loadConfig({ RATE_LIMIT_READER_MAX: '0' }).rateLimit.readerMax).toBe(0);
    expect(loadConfig({ RATE_LIMIT_AUTH_FAILURES: '20' }).rateLimit.authFailures).toBe(20);
    expect(loadConfig({ RATE_LIMIT_AUTH_FAILURES: '0' }).rateLimit.authFailures).toBe(0);
    // No rate limit at all turns the failed-authentication limit off too.
    expect(loadConfig({ RATE_LIMIT_MAX: '0', RATE_LIMIT_AUTH_FAILURES: '20' }).rateLimit.authFailures).toBe(0);
    expect(loadConfig({ BODY_LIMIT: '2MiB' }).bodyLimit).toBe(2 * 1024 * 1024);
    expect(loadConfig({ BODY_LIMIT: '65536' }).bodyLimit).toBe(65536);
    expect(loadConfig({ BODY_LIMIT: '64 KiB' }).bodyLimit).toBe(65536);
  });

  it('names each bad value', () => {
    expect(problems({ RATE_LIMIT_MAX: '-1' })).toMatch(/RATE_LIMIT_MAX="-1" must be a whole number/);
    expect(problems({ RATE_LIMIT_MAX: 'lots' })).toMatch(/RATE_LIMIT_MAX/);
    expect(problems({ RATE_LIMIT_WINDOW: 'soon' })).toMatch(/RATE_LIMIT_WINDOW/);
    expect(problems({ RATE_LIMIT_AUTH_FAILURES: 'many' })).toMatch(/RATE_LIMIT_AUTH_FAILURES="many" must be a whole number from 0/);
    expect(problems({ RATE_LIMIT_WINDOW: '10ms' })).toMatch(/RATE_LIMIT_WINDOW="10ms" must be from 1s to 1d/);
    expect(problems({ BODY_LIMIT: '10' })).toMatch(/BODY_LIMIT="10" must be between 1 KiB and 1 GiB/);
    expect(problems({ BODY_LIMIT: '2TiB' })).toMatch(/BODY_LIMIT/);
    expect(problems({ BODY_LIMIT: '2GiB' })).toMatch(/BODY_LIMIT/);
  });
});

describe('trusted proxies', () => {
  it('trusts no proxy by default, and reads true, addresses, CIDR ranges and range names', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 192.168.1.7,::1, fd00::/8' }).trustProxy).toEqual([
      '10.0.0.0/8',
      '192.168.1.7',
      '::1',
      'fd00::/8',
    ]);
    expect(loadConfig({ TRUST_PROXY: 'uniquelocal,loopback' }).trustProxy).toEqual(['uniquelocal', 'loopback']);
  });

  it('names a bad value', () => {
    for (const bad of ['proxy.example.com', '10.0.0.0/33', '1', '10.0.0.1/8/8', '::1/129', ',']) {
      expect(problems({ TRUST_PROXY: bad })).toMatch(/TRUST_PROXY=".*" must be false, true, or comma-separated addresses/);
    }
  });
});

describe('database pool', () => {
  it('opens at most 10 connections a process unless DATABASE_POOL_MAX says otherwise', () => {
    expect(loadConfig({}).databasePoolMax).toBe(10);
    expect(loadConfig({ DATABASE_POOL_MAX: '25' }).databasePoolMax).toBe(25);
    for (const bad of ['0', '-1', 'many', '1001']) {
      expect(problems({ DATABASE_POOL_MAX: bad })).toMatch(/DATABASE_POOL_MAX=".*" must be a whole number from 1 to 1000/);
    }
  });
});

describe('search window', () => {
  it('ranks 2000 matching sections unless SEARCH_WINDOW says otherwise', () => {
    expect(loadConfig({}).searchWindow).toBe(2000);
    expect(loadConfig({ SEARCH_WINDOW: ' 500 ' }).searchWindow).toBe(500);
    for (const bad of ['0', '2.5', 'all', '1000001']) {
      expect(problems({ SEARCH_WINDOW: bad })).toMatch(/SEARCH_WINDOW=".*" must be a whole number from 1 to 1000000/);
    }
  });
});

describe('cache memory', () => {
  it('gives the caches of a process 32 MiB together unless CACHE_MEMORY says otherwise', () => {
    expect(loadConfig({}).cacheMemory).toBe(32 * 2 ** 20);
    expect(loadConfig({ CACHE_MEMORY: '256MiB' }).cacheMemory).toBe(256 * 2 ** 20);
    for (const bad of ['0', '1KiB', 'lots', '17GiB', '-5MiB']) {
      expect(problems({ CACHE_MEMORY: bad })).toMatch(/CACHE_MEMORY=".*" must be between 1 MiB and 16 GiB/);
    }
  });
});

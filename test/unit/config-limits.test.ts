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
  it('defaults to 1000 requests a minute and 10 MiB bodies', () => {
    const config = loadConfig({});
    expect(config.rateLimit).toEqual({ max: 1000, windowMs: 60_000 });
    expect(config.bodyLimit).toBe(10 * 1024 * 1024);
  });

  it('reads RATE_LIMIT_MAX, RATE_LIMIT_WINDOW and BODY_LIMIT; 0 disables the rate limit', () => {
    expect(loadConfig({ RATE_LIMIT_MAX: '0' }).rateLimit.max).toBe(0);
    expect(loadConfig({ RATE_LIMIT_MAX: '50', RATE_LIMIT_WINDOW: '10s' }).rateLimit).toEqual({ max: 50, windowMs: 10_000 });
    expect(loadConfig({ BODY_LIMIT: '2MiB' }).bodyLimit).toBe(2 * 1024 * 1024);
    expect(loadConfig({ BODY_LIMIT: '65536' }).bodyLimit).toBe(65536);
    expect(loadConfig({ BODY_LIMIT: '64 KiB' }).bodyLimit).toBe(65536);
  });

  it('names each bad value', () => {
    expect(problems({ RATE_LIMIT_MAX: '-1' })).toMatch(/RATE_LIMIT_MAX="-1" must be a whole number/);
    expect(problems({ RATE_LIMIT_MAX: 'lots' })).toMatch(/RATE_LIMIT_MAX/);
    expect(problems({ RATE_LIMIT_WINDOW: 'soon' })).toMatch(/RATE_LIMIT_WINDOW/);
    expect(problems({ RATE_LIMIT_WINDOW: '10ms' })).toMatch(/RATE_LIMIT_WINDOW="10ms" must be from 1s to 1d/);
    expect(problems({ BODY_LIMIT: '10' })).toMatch(/BODY_LIMIT="10" must be between 1 KiB and 1 GiB/);
    expect(problems({ BODY_LIMIT: '2TiB' })).toMatch(/BODY_LIMIT/);
    expect(problems({ BODY_LIMIT: '2GiB' })).toMatch(/BODY_LIMIT/);
  });
});

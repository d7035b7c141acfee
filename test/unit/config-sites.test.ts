import { describe, expect, it } from '@jest/globals';
import { ConfigError, loadConfig } from '../../src/config.ts';

describe('SITES_URL', () => {
  it('defaults to PUBLIC_URL/sites and drops a trailing slash', () => {
    expect(loadConfig({ PUBLIC_URL: 'https://docs.example.com/' }).sitesUrl).toBe('https://docs.example.com/sites');
    expect(loadConfig({ SITES_URL: 'https://sites.example.com/' }).sitesUrl).toBe('https://sites.example.com');
    expect(loadConfig({ SITES_URL: 'https://example.com/published/' }).sitesUrl).toBe('https://example.com/published');
  });

  it('refuses what is not an http(s) URL, or one with a query', () => {
    for (const value of ['ftp://example.com', 'sites', 'https://example.com/s?x=1']) {
      expect(() => loadConfig({ SITES_URL: value })).toThrow(ConfigError);
      try {
        loadConfig({ SITES_URL: value });
      } catch (error) {
        expect((error as ConfigError).problems.join('\n')).toMatch(/SITES_URL/);
      }
    }
  });
});

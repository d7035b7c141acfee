import { describe, expect, it } from '@jest/globals';
import { ConfigError, loadConfig, redact } from '../../src/config.ts';
import { EnvSchema } from '../../src/config/schema.ts';

describe('configuration', () => {
  it('has defaults for everything', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 8080,
      publicUrl: 'http://localhost:8080',
      spaceRetentionMs: 7 * 86_400_000,
      temporalNamespace: 'default',
    });
    expect(config.databaseUrl).toBeUndefined();
    expect(config.temporalAddress).toBeUndefined();
  });

  it('reports every bad value at once, naming each variable', () => {
    let error: ConfigError | undefined;
    try {
      loadConfig({
        PORT: 'eighty',
        DATABASE_URL: 'mysql://u:secret@h/db',
        SPACE_RETENTION: 'forever',
        TEMPORAL_ADDRESS: 'nope',
        LOG_LEVEL: 'loud',
      });
    } catch (e) {
      error = e as ConfigError;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect(error!.problems.join('\n')).toMatch(/PORT/);
    expect(error!.problems.join('\n')).toMatch(/DATABASE_URL/);
    expect(error!.problems.join('\n')).toMatch(/SPACE_RETENTION/);
    expect(error!.problems.join('\n')).toMatch(/TEMPORAL_ADDRESS/);
    expect(error!.problems.join('\n')).toMatch(/LOG_LEVEL/);
    expect(error!.message).not.toContain('secret');
  });

  it('strips a trailing slash from PUBLIC_URL and reads durations', () => {
    const config = loadConfig({ PUBLIC_URL: 'https://docs.example.com/', SPACE_RETENTION: '3s' });
    expect(config.publicUrl).toBe('https://docs.example.com');
    expect(config.spaceRetentionMs).toBe(3000);
  });

  it('reads the blob collection settings, and refuses a grace of zero or an interval under a second', () => {
    expect(loadConfig({})).toMatchObject({ blobGraceMs: 24 * 3_600_000, blobCollectEveryMs: 3_600_000 });
    expect(loadConfig({ BLOB_COLLECT_EVERY: '0' }).blobCollectEveryMs).toBe(0);
    expect(loadConfig({ BLOB_GRACE: '2d', BLOB_COLLECT_EVERY: '15m' })).toMatchObject({
      blobGraceMs: 2 * 86_400_000,
      blobCollectEveryMs: 900_000,
    });
    let error: ConfigError | undefined;
    try {
      loadConfig({ BLOB_GRACE: '0s', BLOB_COLLECT_EVERY: '500ms' });
    } catch (e) {
      error = e as ConfigError;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect(error!.problems.join('\n')).toMatch(/BLOB_GRACE="0s" must be longer than zero/);
    expect(error!.problems.join('\n')).toMatch(/BLOB_COLLECT_EVERY="500ms" must be 0 \(off\) or at least 1s/);
    expect(() => loadConfig({ BLOB_GRACE: 'a day' })).toThrow(/BLOB_GRACE/);
  });

  it('reads the fetch policy (FETCH_*), the Chromium path and GOPATH', () => {
    const defaults = loadConfig({});
    expect(defaults.fetch).toEqual({ allowPrivate: false, allowHosts: [], timeoutMs: 10_000, maxBytes: 10 * 1024 * 1024, maxRedirects: 5 });
    expect(defaults.chromiumPath).toBe('/usr/bin/chromium');
    expect(defaults.goPath).toBeUndefined();
    const config = loadConfig({
      FETCH_ALLOW_PRIVATE: 'true',
      FETCH_ALLOW_HOSTS: '127.0.0.1, *.corp.example:8443',
      FETCH_TIMEOUT: '2s',
      FETCH_MAX_BYTES: '2MiB',
      FETCH_MAX_REDIRECTS: '0',
      CHROMIUM_PATH: '/opt/chromium/chrome',
      GOPATH: '/home/me/go',
    });
    expect(config.fetch).toEqual({
      allowPrivate: true,
      allowHosts: ['127.0.0.1', '*.corp.example:8443'],
      timeoutMs: 2000,
      maxBytes: 2 * 1024 * 1024,
      maxRedirects: 0,
    });
    expect(config.chromiumPath).toBe('/opt/chromium/chrome');
    expect(config.goPath).toBe('/home/me/go');
  });

  it('reports bad FETCH_* values and a relative CHROMIUM_PATH with the rest, each naming its variable and value', () => {
    let error: ConfigError | undefined;
    try {
      loadConfig({
        PORT: 'eighty',
        FETCH_ALLOW_PRIVATE: 'yes please',
        FETCH_ALLOW_HOSTS: 'https://me:pw@host',
        FETCH_TIMEOUT: 'soon',
        FETCH_MAX_BYTES: '5MB',
        FETCH_MAX_REDIRECTS: 'many',
        CHROMIUM_PATH: 'chromium',
      });
    } catch (e) {
      error = e as ConfigError;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = error!.problems;
    expect(problems).toHaveLength(7);
    for (const [name, value] of [
      ['PORT', 'eighty'],
      ['FETCH_ALLOW_PRIVATE', 'yes please'],
      ['FETCH_TIMEOUT', 'soon'],
      ['FETCH_MAX_BYTES', '5MB'],
      ['FETCH_MAX_REDIRECTS', 'many'],
      ['CHROMIUM_PATH', 'chromium'],
    ]) {
      expect(problems).toContainEqual(expect.stringMatching(new RegExp(`^${name}="${value}" must `)));
    }
    expect(problems).toContainEqual(expect.stringMatching(/^FETCH_ALLOW_HOSTS entry ".*" must /));
    expect(error!.message).toMatch(/^Invalid configuration:\n {2}- /);
    expect(error!.message).not.toContain('pw');
  });

  it('trims values and reads an empty one as unset', () => {
    const config = loadConfig({ PORT: ' 9000 ', HOST: '', LOG_LEVEL: '  ', FETCH_ALLOW_HOSTS: ' a.example , ,b.example ' });
    expect(config).toMatchObject({ port: 9000, host: '0.0.0.0', logLevel: 'info', publicUrl: 'http://localhost:9000' });
    expect(config.fetch.allowHosts).toEqual(['a.example', 'b.example']);
  });

  it('reports each refused FETCH_ALLOW_HOSTS entry', () => {
    expect(() => loadConfig({ FETCH_ALLOW_HOSTS: 'ok.example, https://x.example, a/b' })).toThrow(ConfigError);
    try {
      loadConfig({ FETCH_ALLOW_HOSTS: 'ok.example, https://x.example, a/b' });
    } catch (error) {
      expect((error as ConfigError).problems).toEqual([
        'FETCH_ALLOW_HOSTS entry "https://x.example/" must be a host name, host:port or *.domain (no scheme or path)',
        'FETCH_ALLOW_HOSTS entry "a/b" must be a host name, host:port or *.domain (no scheme or path)',
      ]);
    }
  });

  it('describes every variable of its schema in one line', () => {
    for (const [name, setting] of Object.entries(EnvSchema.properties as Record<string, { description?: string }>)) {
      expect({ name, description: setting.description }).toEqual({ name, description: expect.stringMatching(/^[^\n]+\.$/) });
    }
  });

  it('redacts passwords in URLs', () => {
    expect(redact('postgres://u:pw@h:5432/db')).toBe('postgres://u:***@h:5432/db');
  });
});

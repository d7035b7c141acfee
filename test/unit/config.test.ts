import { describe, expect, it } from '@jest/globals';
import { ConfigError, loadConfig, redact } from '../../src/config.ts';

describe('configuration', () => {
  it('has defaults for everything', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ port: 8080, publicUrl: 'http://localhost:8080', spaceRetentionMs: 7 * 86_400_000, temporalNamespace: 'default' });
    expect(config.databaseUrl).toBeUndefined();
    expect(config.temporalAddress).toBeUndefined();
  });

  it('reports every bad value at once, naming each variable', () => {
    let error: ConfigError | undefined;
    try {
      loadConfig({ PORT: 'eighty', DATABASE_URL: 'mysql://u:secret@h/db', SPACE_RETENTION: 'forever', TEMPORAL_ADDRESS: 'nope', LOG_LEVEL: 'loud' });
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

  it('redacts passwords in URLs', () => {
    expect(redact('postgres://u:pw@h:5432/db')).toBe('postgres://u:***@h:5432/db');
  });
});

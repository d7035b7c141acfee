import { describe, expect, it } from '@jest/globals';
import { ConfigError, loadConfig } from '../../src/config.ts';

describe('content import configuration', () => {
  it('has defaults', () => {
    expect(loadConfig({}).contentImport).toEqual({
      maxPages: 100,
      maxBytes: 50 * 1024 * 1024,
      maxFiles: 5000,
      timeoutMs: 300_000,
      waitMs: 60_000,
    });
  });

  it('reads every CONTENT_IMPORT_* setting', () => {
    const config = loadConfig({
      CONTENT_IMPORT_MAX_PAGES: '20',
      CONTENT_IMPORT_MAX_BYTES: '5MiB',
      CONTENT_IMPORT_MAX_FILES: '300',
      CONTENT_IMPORT_TIMEOUT: '90s',
      CONTENT_IMPORT_WAIT: '500ms',
    });
    expect(config.contentImport).toEqual({ maxPages: 20, maxBytes: 5 * 1024 * 1024, maxFiles: 300, timeoutMs: 90_000, waitMs: 500 });
  });

  it('reports bad values, naming each variable', () => {
    let error: ConfigError | undefined;
    try {
      loadConfig({
        CONTENT_IMPORT_MAX_PAGES: '0',
        CONTENT_IMPORT_MAX_BYTES: 'lots',
        CONTENT_IMPORT_MAX_FILES: '-1',
        CONTENT_IMPORT_TIMEOUT: 'soon',
        CONTENT_IMPORT_WAIT: '10ms',
      });
    } catch (e) {
      error = e as ConfigError;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const text = error!.problems.join('\n');
    for (const name of [
      'CONTENT_IMPORT_MAX_PAGES',
      'CONTENT_IMPORT_MAX_BYTES',
      'CONTENT_IMPORT_MAX_FILES',
      'CONTENT_IMPORT_TIMEOUT',
      'CONTENT_IMPORT_WAIT',
    ]) {
      expect(text).toContain(name);
    }
  });
});

import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { loadConfig } from '../../src/config.ts';
import { EnvSchema } from '../../src/config/schema.ts';

/** The variables of .env.example: `NAME=value` (set to its default) or `# NAME=example` (unset by default). */
const entries = readFileSync(new URL('../../.env.example', import.meta.url), 'utf8')
  .split('\n')
  .map((line) => /^(# ?)?([A-Z][A-Z0-9_]*)=(.*)$/.exec(line))
  .filter((match) => match !== null)
  .map(([, comment, name, value]) => ({ name, value, commented: comment !== undefined }));

const settings = EnvSchema.properties as Record<string, { default?: string }>;

describe('.env.example', () => {
  it('lists every variable of the configuration schema, once, and no other', () => {
    const names = entries.map((e) => e.name);
    expect(new Set(names).size).toBe(names.length);
    expect([...names].sort()).toEqual(Object.keys(settings).sort());
  });

  it('sets each variable that has a default to that default, and comments out those unset by default', () => {
    for (const { name, value, commented } of entries) {
      expect({ name, value: commented ? undefined : value }).toEqual({ name, value: settings[name]?.default });
    }
  });

  it('gives examples the configuration accepts', () => {
    const env = Object.fromEntries(entries.map((e) => [e.name, e.value]));
    expect(() => loadConfig({ ...env, BLOB_STORE: 's3' })).not.toThrow();
  });
});

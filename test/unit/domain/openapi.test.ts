import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { stringify as toYaml } from 'yaml';
import {
  SpecProcessingError,
  bundleForValidation,
  canonicalJson,
  contentHash,
  documentKey,
  isRetryableFailure,
  parseDocument,
  planRefFetches,
  processErrorCode,
  refTarget,
  refsIn,
  toJsonValue,
} from '../../../src/domain/openapi.ts';

describe('canonicalJson and contentHash', () => {
  it('ignores key order at every level', () => {
    const a = { openapi: '3.1.0', info: { title: 'A', version: '1' }, paths: { '/x': { get: { responses: {} } } } };
    const b = { paths: { '/x': { get: { responses: {} } } }, info: { version: '1', title: 'A' }, openapi: '3.1.0' };
    expect(canonicalJson(a)).toBe(canonicalJson(b));
    expect(contentHash({ 'https://h/a.json': a })).toBe(contentHash({ 'https://h/a.json': b }));
  });

  it('keeps array order and tells different content apart', () => {
    expect(canonicalJson([1, 2])).not.toBe(canonicalJson([2, 1]));
    expect(contentHash({ k: { a: 1 } })).not.toBe(contentHash({ k: { a: 2 } }));
    expect(contentHash({ k: { a: 1 } })).not.toBe(contentHash({ other: { a: 1 } }));
  });

  it('gives the same hash for the same definition in JSON and YAML', () => {
    const definition = {
      openapi: '3.0.3',
      info: { title: 'T', version: '1.0' },
      paths: {},
      components: { schemas: { A: { type: 'object' } } },
    };
    const fromJson = toJsonValue(parseDocument(JSON.stringify(definition, null, 2), 'json').document);
    const fromYaml = toJsonValue(parseDocument(`# a comment\n${toYaml(definition)}`, 'yaml').document);
    expect(contentHash({ e: fromJson })).toBe(contentHash({ e: fromYaml }));
  });

  it('is a function of the data alone (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const copy = JSON.parse(JSON.stringify(value));
        const reversed = JSON.parse(JSON.stringify(copy), (_k, v) =>
          v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).reverse()) : v,
        );
        expect(contentHash({ root: reversed })).toBe(contentHash({ root: copy }));
        expect(JSON.parse(canonicalJson(copy))).toEqual(JSON.parse(JSON.stringify(copy)));
      }),
    );
  });
});

describe('parseDocument', () => {
  it('reads JSON and YAML and says which', () => {
    expect(parseDocument('{"swagger":"2.0"}', 'x')).toEqual({ document: { swagger: '2.0' }, format: 'json' });
    expect(parseDocument('openapi: 3.1.0\ninfo:\n  title: T\n', 'x')).toEqual({
      document: { openapi: '3.1.0', info: { title: 'T' } },
      format: 'yaml',
    });
    expect(parseDocument('{openapi: 3.1.0}', 'x').format).toBe('yaml');
  });

  it('fails with SYNTAX_ERROR on text that is neither', () => {
    for (const text of ['', '   ', '{"a": ', 'a: b: c:\n  - [', 'key: "unterminated']) {
      let error: unknown;
      try {
        parseDocument(text, 'the doc');
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(SpecProcessingError);
      expect((error as SpecProcessingError).detail).toBe('SYNTAX_ERROR');
    }
  });
});

describe('ref resolution planning', () => {
  const doc = {
    paths: {
      '/pets': { $ref: 'paths/pets.yaml' },
      '/users': { $ref: './paths/users.yaml#/get' },
      '/same': { $ref: 'paths/pets.yaml#/get' },
    },
    components: {
      schemas: {
        Local: { $ref: '#/components/schemas/Other' },
        Remote: { $ref: 'https://schemas.example.com/common.json#/Error' },
        Up: { $ref: '../shared/types.json' },
        Self: { $ref: 'openapi.yaml#/components/schemas/Local' },
      },
    },
    // A property called $ref whose value is not a string is a schema, not a reference.
    properties: { $ref: { type: 'string' } },
  };
  const base = 'https://api.example.com/v2/openapi.yaml';

  it('finds every $ref string once', () => {
    expect(refsIn(doc).sort()).toEqual(
      [
        '#/components/schemas/Other',
        '../shared/types.json',
        './paths/users.yaml#/get',
        'https://schemas.example.com/common.json#/Error',
        'openapi.yaml#/components/schemas/Local',
        'paths/pets.yaml',
        'paths/pets.yaml#/get',
      ].sort(),
    );
  });

  it('plans each other document once, resolved against the base, local refs left out', () => {
    expect(planRefFetches(doc, base, new Set([documentKey(base)]))).toEqual(
      expect.arrayContaining([
        'https://api.example.com/v2/paths/pets.yaml',
        'https://api.example.com/v2/paths/users.yaml',
        'https://schemas.example.com/common.json',
        'https://api.example.com/shared/types.json',
      ]),
    );
    expect(planRefFetches(doc, base, new Set([documentKey(base)]))).toHaveLength(4);
    expect(
      planRefFetches(doc, base, new Set(['https://api.example.com/v2/paths/pets.yaml', 'https://schemas.example.com/common.json'])),
    ).toEqual(expect.not.arrayContaining(['https://api.example.com/v2/paths/pets.yaml']));
  });

  it('keeps credentials for fetching but not in keys', () => {
    const withAuth = 'https://user:secret@api.example.com/v2/openapi.yaml';
    expect(refTarget('paths/pets.yaml', withAuth)).toBe('https://user:secret@api.example.com/v2/paths/pets.yaml');
    expect(documentKey('https://user:secret@api.example.com/v2/paths/pets.yaml#/x')).toBe('https://api.example.com/v2/paths/pets.yaml');
  });

  it('refuses relative refs without a base, and non-http schemes', () => {
    expect(() => refTarget('paths/pets.yaml', null)).toThrow(/relative/);
    expect(refTarget('https://h.example/x.json#/a', null)).toBe('https://h.example/x.json');
    expect(() => refTarget('file:///etc/passwd', base)).toThrow(SpecProcessingError);
    expect(() => refTarget('/etc/passwd', 'https://h.example/a.json')).not.toThrow();
  });
});

describe('bundleForValidation', () => {
  it('rewrites every reference to point inside one document', () => {
    const entry = 'https://h.example/api/openapi.yaml';
    const pets = 'https://h.example/api/paths/pets.yaml';
    const common = 'https://h.example/common.json';
    const filesystem = {
      [entry]: {
        openapi: '3.1.0',
        paths: { '/pets': { $ref: 'paths/pets.yaml' } },
        components: { schemas: { E: { $ref: '../common.json#/Error' } } },
      },
      [pets]: {
        get: { responses: { 200: { $ref: '#/components/ok' } }, x: { $ref: '../openapi.yaml#/components/schemas/E' } },
        components: { ok: { description: 'ok' } },
      },
      [common]: { Error: { type: 'object' } },
    };
    const before = JSON.stringify(filesystem);
    const bundled = bundleForValidation(filesystem, entry) as any;
    expect(JSON.stringify(filesystem)).toBe(before);
    expect(bundled.paths['/pets'].$ref).toBe('#/x-docs-bundle/0');
    expect(bundled.components.schemas.E.$ref).toBe('#/x-docs-bundle/1/Error');
    expect(bundled['x-docs-bundle'][0].get.responses[200].$ref).toBe('#/x-docs-bundle/0/components/ok');
    expect(bundled['x-docs-bundle'][0].get.x.$ref).toBe('#/components/schemas/E');
  });

  it('refuses a reference to a document that is not in the filesystem', () => {
    expect(() => bundleForValidation({ 'https://h.example/a.json': { $ref: 'b.json' } }, 'https://h.example/a.json')).toThrow(
      /not fetched/,
    );
  });
});

describe('error codes', () => {
  it('maps precise reasons onto GitBook codes', () => {
    expect(processErrorCode('FETCH_TIMEOUT')).toBe('FETCH_TIMEOUT');
    for (const detail of ['ADDRESS_NOT_ALLOWED', 'HTTP_ERROR', 'TOO_LARGE', 'NETWORK_ERROR', 'DNS_FAILURE'])
      expect(processErrorCode(detail)).toBe('FETCH_ERROR');
    for (const detail of ['SYNTAX_ERROR', 'INVALID_SPEC', 'UNRESOLVABLE_REF', 'TOO_MANY_FILES'])
      expect(processErrorCode(detail)).toBe('PARSE_ERROR');
    expect(processErrorCode('SOMETHING_NEW')).toBe('FETCH_ERROR');
  });

  it('retries only what may pass', () => {
    expect(isRetryableFailure('FETCH_TIMEOUT')).toBe(true);
    expect(isRetryableFailure('HTTP_ERROR', 503)).toBe(true);
    expect(isRetryableFailure('HTTP_ERROR', 404)).toBe(false);
    expect(isRetryableFailure('ADDRESS_NOT_ALLOWED')).toBe(false);
    expect(isRetryableFailure('INVALID_SPEC')).toBe(false);
    expect(isRetryableFailure('TOO_LARGE')).toBe(false);
  });
});

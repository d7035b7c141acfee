import { describe, expect, it } from '@jest/globals';
import { dereference } from '@readme/openapi-parser';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { SpecProcessingError } from '../../../src/domain/openapi.ts';
import {
  MAX_EXPANDED_NODES,
  MAX_EXPANSION_DEPTH,
  refExpansionSize,
  resolvePointer,
  validateOpenApiDefinition,
} from '../../../src/domain/openapi-validation.ts';
import { invalid30, multiFileSchemas, petstore30, petstore31, swagger20 } from '../../support/openapi-fixtures.ts';

/** `count` schemas, each referring to the one before it twice: 2^count nodes once dereferenced. */
function fanOut(count: number) {
  const schemas: Record<string, unknown> = { S0: { type: 'string' } };
  for (let i = 1; i < count; i++) {
    const previous = { $ref: `#/components/schemas/S${i - 1}` };
    schemas[`S${i}`] = { type: 'object', properties: { a: { ...previous }, b: { ...previous } } };
  }
  return { openapi: '3.0.3', info: { title: 'Fan-out', version: '1' }, paths: {}, components: { schemas } };
}

/** The nodes of the tree a dereferenced document stands for (shared objects counted at each place). */
function treeSize(value: unknown, memo = new Map<object, number>()): number {
  if (value === null || typeof value !== 'object') return 1;
  const known = memo.get(value);
  if (known !== undefined) return known;
  let size = 1;
  for (const inner of Object.values(value)) size += treeSize(inner, memo);
  memo.set(value, size);
  return size;
}

/** What the validator itself makes of a definition: dereferenced as `validate` does (cycles left as $refs). */
async function validatorTreeSize(document: object): Promise<number> {
  const options = { resolve: { external: false }, dereference: { circular: 'ignore' } };
  return treeSize(await dereference(structuredClone(document) as never, options as never));
}

const gitbookDefinition = () =>
  JSON.parse(readFileSync(createRequire(import.meta.url).resolve('@gitbook/api/spec/openapi.json'), 'utf8')) as object;

const cyclic = {
  openapi: '3.0.3',
  info: { title: 'Cycles', version: '1' },
  paths: {},
  components: {
    schemas: {
      Node: { type: 'object', properties: { children: { type: 'array', items: { $ref: '#/components/schemas/Node' } } } },
      A: { properties: { b: { $ref: '#/components/schemas/B' }, leaf: { $ref: '#/components/schemas/Leaf' } } },
      B: { properties: { a: { $ref: '#/components/schemas/A' } } },
      Leaf: { type: 'string', description: 'a leaf' },
      Uses: { allOf: [{ $ref: '#/components/schemas/Leaf' }, { $ref: '#/components/schemas/A' }, { $ref: '#' }] },
    },
  },
};

describe('refExpansionSize', () => {
  it('counts what the validator dereferences, node for node', async () => {
    for (const document of [fanOut(8), fanOut(12), cyclic, petstore30, petstore31, swagger20]) {
      expect(refExpansionSize(structuredClone(document), Number.MAX_SAFE_INTEGER)).toBe(await validatorTreeSize(document));
    }
  });

  it('measures a large real definition close to what the validator makes of it, and far under the budget', async () => {
    // GitBook's own definition: 1.7 MB, hundreds of $refs between mutually recursive blocks.
    const document = gitbookDefinition();
    const measured = refExpansionSize(structuredClone(document), Number.MAX_SAFE_INTEGER);
    const actual = await validatorTreeSize(document);
    expect(Math.abs(measured - actual) / actual).toBeLessThan(0.01);
    expect(measured).toBeLessThan(MAX_EXPANDED_NODES / 10);
  });

  it('refuses the 40-schema fan-out (5 KB of text, 2^40 nodes) without expanding it', () => {
    const probe = fanOut(40);
    expect(JSON.stringify(probe).length).toBeLessThan(5_000);
    let error: unknown;
    try {
      refExpansionSize(probe);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SpecProcessingError);
    expect((error as SpecProcessingError).code).toBe('TOO_COMPLEX');
    expect((error as Error).message).toMatch(/^The definition expands to more than 4,000,000 nodes through its \$refs/);
    // The exact size, measured in time linear in the document: each schema once.
    expect(refExpansionSize(probe, Number.MAX_SAFE_INTEGER)).toBe(5 * 2 ** 40 - 117);
  });

  it('counts a $ref that points nowhere as written (the validator reports it)', () => {
    const missing = { openapi: '3.0.3', a: { $ref: '#/components/schemas/Nowhere' }, b: { $ref: '#/openapi/x' } };
    expect(refExpansionSize(missing)).toBe(6);
  });

  it('stops at the limit it is given', () => {
    const size = refExpansionSize(fanOut(10), Number.MAX_SAFE_INTEGER);
    expect(refExpansionSize(fanOut(10), size)).toBe(size);
    expect(() => refExpansionSize(fanOut(10), size - 1)).toThrow(SpecProcessingError);
  });

  it('counts a cycle once, however often its schemas are referred to', () => {
    const many = structuredClone(cyclic) as { paths: Record<string, unknown> };
    for (let i = 0; i < 1000; i++) {
      many.paths[`/p${i}`] = {
        get: { responses: { 200: { description: 'ok', content: { 'a/b': { schema: { $ref: '#/components/schemas/A' } } } } } },
      };
    }
    // Each use of A stays a $ref (A reaches a cycle): two nodes, not a copy of A.
    const base = refExpansionSize(structuredClone(cyclic));
    expect(refExpansionSize(many)).toBeLessThan(base + 1000 * 20);
  });

  it('refuses objects and $refs nested deeper than MAX_EXPANSION_DEPTH', () => {
    let deep: unknown = { type: 'string' };
    for (let i = 0; i < MAX_EXPANSION_DEPTH + 10; i++) deep = { items: deep };
    expect(() => refExpansionSize({ openapi: '3.0.3', deep })).toThrow(/nests objects and \$refs more than 1000 levels deep/);
  });
});

describe('resolvePointer', () => {
  it('follows JSON pointers with escapes and percent-encoding, and answers undefined for a missing one', () => {
    const document = { paths: { '/pets/{id}': { get: 1 } }, 'a~b': { 'c d': 2 }, list: [10, 20] };
    expect(resolvePointer(document, '#')).toBe(document);
    expect(resolvePointer(document, '#/paths/~1pets~1%7Bid%7D/get')).toBe(1);
    expect(resolvePointer(document, '#/a~0b/c%20d')).toBe(2);
    expect(resolvePointer(document, '#/list/1')).toBe(20);
    expect(resolvePointer(document, '#/list/7')).toBeUndefined();
    expect(resolvePointer(document, '#/nowhere/at/all')).toBeUndefined();
  });
});

describe('validateOpenApiDefinition', () => {
  it('accepts valid Swagger 2.0, OpenAPI 3.0 and 3.1 definitions, split over documents or not', async () => {
    expect(await validateOpenApiDefinition({ 'openapi.json': petstore30 }, 'openapi.json')).toEqual({ ok: true });
    expect(await validateOpenApiDefinition({ 'openapi.yaml': petstore31 }, 'openapi.yaml')).toEqual({ ok: true });
    expect(await validateOpenApiDefinition({ 'openapi.json': swagger20 }, 'openapi.json')).toEqual({ ok: true });
    const entry = {
      openapi: '3.1.0',
      info: { title: 'Split', version: '1' },
      paths: {},
      components: { schemas: { Pet: { $ref: 'https://h.test/schemas.json#/Pet' } } },
    };
    expect(
      await validateOpenApiDefinition(
        { 'https://h.test/openapi.json': entry, 'https://h.test/schemas.json': multiFileSchemas },
        'https://h.test/openapi.json',
      ),
    ).toEqual({ ok: true });
  });

  it('answers why a definition is refused', async () => {
    expect(await validateOpenApiDefinition({ 'openapi.json': invalid30 }, 'openapi.json')).toMatchObject({
      ok: false,
      code: 'INVALID_SPEC',
      message: expect.stringMatching(/^Invalid OpenAPI definition: /),
    });
    expect(await validateOpenApiDefinition({ 'openapi.json': { title: 'x' } }, 'openapi.json')).toMatchObject({
      ok: false,
      code: 'INVALID_SPEC',
    });
    const entry = { ...petstore30, components: { schemas: { X: { $ref: 'https://elsewhere.test/x.json' } } } };
    expect(await validateOpenApiDefinition({ 'openapi.json': entry }, 'openapi.json')).toMatchObject({
      ok: false,
      code: 'UNRESOLVABLE_REF',
    });
    expect(await validateOpenApiDefinition({ 'openapi.json': fanOut(40) }, 'openapi.json')).toMatchObject({
      ok: false,
      code: 'TOO_COMPLEX',
    });
  });

  it('gives the answer as a cloneable value, so it crosses to the thread that asked', async () => {
    const answer = await validateOpenApiDefinition({ 'openapi.json': fanOut(40) }, 'openapi.json');
    expect(structuredClone(answer)).toEqual(answer);
  });
});

import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { filesystemEntries, type FilesystemEntry } from '../../../src/domain/openapi-filesystem.ts';

/**
 * How GitBook's renderer (Scalar's dereferencer) follows a `$ref` between files: the entry whose
 * `filename` is exactly the part before `#`, or the holding file when that part is empty.
 */
function lookup(filesystem: FilesystemEntry[], holder: FilesystemEntry, ref: string): FilesystemEntry | undefined {
  const prefix = ref.split('#')[0];
  return prefix === '' ? holder : filesystem.find((entry) => entry.filename === prefix);
}

describe('filesystemEntries', () => {
  const entry = 'https://h.example/split/api/openapi.yaml';
  const pets = 'https://h.example/split/api/paths/pets.yaml';
  const schemas = 'https://h.example/split/common/schemas.json';
  const owner = 'https://other.example/lib/owner.yaml';
  const documents = () => ({
    [entry]: {
      openapi: '3.1.0',
      paths: { '/pets': { $ref: './paths/pets.yaml' } },
      components: {
        schemas: { Pet: { $ref: '../common/schemas.json#/Pet' }, Same: { $ref: 'https://h.example/split/api/openapi.yaml#/components/x' } },
        x: { type: 'string' },
      },
    },
    [pets]: {
      get: {
        responses: { 200: { items: { $ref: '../../common/schemas.json#/Pet' } }, 201: { $ref: '../openapi.yaml#/components/x' } },
        local: { $ref: '#/get/responses/200' },
      },
    },
    [schemas]: { Pet: { properties: { owner: { $ref: 'https://other.example/lib/owner.yaml#/Owner' }, id: { $ref: '#/Id' } } }, Id: {} },
    [owner]: { Owner: { type: 'string' } },
  });

  it('lists the entry document first, names every document relative to it, and rewrites $refs to those names', () => {
    const filesystem = filesystemEntries(documents(), entry);
    expect(filesystem.map(({ specification: _, ...rest }) => rest)).toEqual([
      { dir: '.', isEntrypoint: true, references: ['paths/pets.yaml', '../common/schemas.json'], filename: 'openapi.yaml' },
      { dir: 'paths', isEntrypoint: false, references: ['../common/schemas.json', 'openapi.yaml'], filename: 'paths/pets.yaml' },
      { dir: '../common', isEntrypoint: false, references: [owner], filename: '../common/schemas.json' },
      { dir: 'https://other.example/lib', isEntrypoint: false, references: [], filename: owner },
    ]);
    const [root, path, common] = filesystem.map((file) => file.specification as any);
    expect(root.paths['/pets'].$ref).toBe('paths/pets.yaml#');
    expect(root.components.schemas.Pet.$ref).toBe('../common/schemas.json#/Pet');
    // A reference to its own document by URL becomes a local one.
    expect(root.components.schemas.Same.$ref).toBe('#/components/x');
    // Relative to the document holding it, named as the renderer will look it up.
    expect(path.get.responses[200].items.$ref).toBe('../common/schemas.json#/Pet');
    expect(path.get.responses[201].$ref).toBe('openapi.yaml#/components/x');
    expect(path.get.local.$ref).toBe('#/get/responses/200');
    expect(common.Pet.properties.owner.$ref).toBe(`${owner}#/Owner`);
    expect(common.Pet.properties.id.$ref).toBe('#/Id');
  });

  it('resolves every $ref, as the renderer looks it up, to the document it pointed at', () => {
    const filesystem = filesystemEntries(documents(), entry);
    const byName = new Map(filesystem.map((file, i) => [file.filename, Object.keys(documents())[i]]));
    const pairs: Array<[string, string | undefined]> = [];
    for (const file of filesystem) {
      const walk = (value: unknown): void => {
        if (value === null || typeof value !== 'object') return;
        const ref = (value as { $ref?: unknown }).$ref;
        if (typeof ref === 'string') pairs.push([ref, byName.get(lookup(filesystem, file, ref)?.filename ?? '')]);
        Object.values(value).forEach(walk);
      };
      walk(file.specification);
    }
    expect(pairs).toEqual([
      ['paths/pets.yaml#', pets],
      ['../common/schemas.json#/Pet', schemas],
      ['#/components/x', entry],
      ['../common/schemas.json#/Pet', schemas],
      ['openapi.yaml#/components/x', entry],
      ['#/get/responses/200', pets],
      [`${owner}#/Owner`, owner],
      ['#/Id', schemas],
    ]);
  });

  it('names a text source openapi.json or openapi.yaml and the documents it refers to by URL', () => {
    const shared = 'https://h.example/specs/shared.yaml';
    const filesystem = filesystemEntries(
      {
        'openapi.json': { openapi: '3.0.3', paths: { '/a': { $ref: `${shared}#/A` } } },
        [shared]: { A: { $ref: 'more/b.yaml' } },
        'https://h.example/specs/more/b.yaml': { get: {} },
      },
      'openapi.json',
    );
    expect(filesystem.map(({ specification: _, ...rest }) => rest)).toEqual([
      { dir: '.', isEntrypoint: true, references: [shared], filename: 'openapi.json' },
      { dir: 'https://h.example/specs', isEntrypoint: false, references: ['https://h.example/specs/more/b.yaml'], filename: shared },
      { dir: 'https://h.example/specs/more', isEntrypoint: false, references: [], filename: 'https://h.example/specs/more/b.yaml' },
    ]);
    expect((filesystem[1].specification as any).A.$ref).toBe('https://h.example/specs/more/b.yaml#');
  });

  it('keeps the query of a URL, writes names that are valid relative references, and takes the entry from its key', () => {
    const filesystem = filesystemEntries(
      {
        'https://h.example/v1/other:thing.json': { c: { $ref: 'spec?format=yaml#/x' } },
        'https://h.example/v1/spec?format=yaml': { openapi: '3.1.0', a: { $ref: './other:thing.json' }, b: { $ref: '/' } },
        'https://h.example/': {},
      },
      'https://h.example/v1/spec?format=yaml',
    );
    expect(filesystem.map((file) => [file.filename, file.dir, file.isEntrypoint])).toEqual([
      ['spec?format=yaml', '.', true],
      ['./other:thing.json', '.', false],
      ['../', '..', false],
    ]);
    expect((filesystem[0].specification as any).a.$ref).toBe('./other:thing.json#');
    expect((filesystem[0].specification as any).b.$ref).toBe('../#');
    expect((filesystem[1].specification as any).c.$ref).toBe('spec?format=yaml#/x');
  });

  it('leaves a $ref it cannot place as written', () => {
    const filesystem = filesystemEntries(
      { 'openapi.yaml': { a: { $ref: 'missing.yaml#/A' }, b: { $ref: 'https://h.example/gone.json' }, c: { $ref: 3 } } },
      'openapi.yaml',
    );
    expect(filesystem[0].specification).toEqual({
      a: { $ref: 'missing.yaml#/A' },
      b: { $ref: 'https://h.example/gone.json' },
      c: { $ref: 3 },
    });
    expect(filesystem[0].references).toEqual([]);
  });

  it('refuses documents without their entry document', () => {
    expect(() => filesystemEntries({ 'https://h.example/a.json': {} }, 'https://h.example/b.json')).toThrow(/entry document/);
  });

  it('gives every document a distinct filename by which each $ref finds its target (property)', () => {
    const segment = fc.constantFrom('a', 'b', 'c:d', 'e f', '');
    const url = fc.record({
      host: fc.constantFrom('h.example', 'other.example'),
      path: fc.tuple(fc.constantFrom('a', 'c:d'), fc.array(segment, { maxLength: 3 })).map(([head, tail]) => [head, ...tail]),
      query: fc.constantFrom('', '?v=1'),
    });
    const arbitrary = fc
      .uniqueArray(
        url.map(({ host, path, query }) => new URL(`https://${host}/${path.join('/')}${query}`).href),
        { minLength: 1, maxLength: 6 },
      )
      .chain((keys) =>
        fc.record({
          keys: fc.constant(keys),
          links: fc.array(
            fc.record({ from: fc.nat(keys.length - 1), to: fc.nat(keys.length - 1), form: fc.constantFrom('absolute', 'root', 'dots') }),
            { maxLength: 12 },
          ),
        }),
      );
    fc.assert(
      fc.property(arbitrary, ({ keys, links }) => {
        const documents: Record<string, { refs: Array<{ $ref: string; expected: string }> }> = {};
        for (const key of keys) documents[key] = { refs: [] };
        for (const { from, to, form } of links) {
          const holder = new URL(keys[from]);
          const target = new URL(keys[to]);
          const sameHost = holder.origin === target.origin;
          const written =
            form === 'absolute' || !sameHost
              ? target.href
              : form === 'root'
                ? target.pathname + target.search
                : './' + '../'.repeat(holder.pathname.split('/').length - 2) + target.pathname.slice(1) + target.search;
          expect(new URL(written, holder).href).toBe(target.href);
          documents[keys[from]].refs.push({ $ref: `${written}#/x`, expected: keys[to] });
        }
        const filesystem = filesystemEntries(structuredClone(documents), keys[0]);
        expect(filesystem.map((file) => file.isEntrypoint)).toEqual(keys.map((_, i) => i === 0));
        expect(new Set(filesystem.map((file) => file.filename)).size).toBe(keys.length);
        filesystem.forEach((file, i) => {
          for (const ref of (file.specification as (typeof documents)[string]).refs) {
            const found = lookup(filesystem, file, ref.$ref);
            expect(found && keys[filesystem.indexOf(found)]).toBe(ref.expected);
            expect(ref.$ref.endsWith('#/x')).toBe(true);
          }
          expect(file.references.every((name) => filesystem.some((other) => other.filename === name))).toBe(true);
          // A valid reference to the document, relative to the entry document or absolute.
          expect(new URL(file.filename, keys[0]).href).toBe(keys[i]);
        });
      }),
    );
  });
});

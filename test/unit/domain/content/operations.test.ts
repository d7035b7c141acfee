import { describe, expect, it } from '@jest/globals';
import { applyOperations, documentMetadata, OperationError } from '../../../../src/domain/content/operations.ts';
import type { PageMap } from '../../../../src/domain/content/tree.ts';

let counter = 0;
const ctx = (base: PageMap = {}) => ({ newId: () => `new${++counter}`, revertSources: { base } });
const page = (id: string, parentId: string | null, position: string, extra: object = {}) => ({
  id,
  parentId,
  position,
  type: 'document' as const,
  title: id,
  slug: id,
  markdown: `${id} text`,
  ...extra,
});

describe('document metadata', () => {
  it('reads the title from front matter, then from a leading level-1 heading only', () => {
    expect(documentMetadata('---\ntitle: From YAML\ndescription: About\n---\n# Heading\n')).toEqual({
      title: 'From YAML',
      description: 'About',
    });
    expect(documentMetadata('# Leading\n\nText')).toEqual({ title: 'Leading' });
    expect(documentMetadata('Intro\n\n# Later heading\n')).toEqual({});
    expect(documentMetadata('## Not level one\n')).toEqual({});
  });
});

describe('applying content operations', () => {
  const base: PageMap = { a: page('a', null, 'a0'), b: page('b', null, 'a1'), c: page('c', 'a', 'a0') };

  it('inserts, moves, updates and deletes in one batch, reporting each page once', () => {
    const { pages, changes } = applyOperations(
      base,
      [
        { operation: 'insert_page', ref: 'n', title: 'New', document: { markdown: 'x' }, into: 'b' },
        { operation: 'update_page', page: 'n', title: 'Renamed' },
        { operation: 'update_page', page: 'c', into: null, at: 0 },
        { operation: 'delete_page', page: 'a' },
      ],
      ctx(),
    );
    const created = changes.find((c) => c.object === 'created_page')!;
    expect(created.ref).toBe('n');
    expect(pages[created.page]).toMatchObject({ title: 'Renamed', parentId: 'b', slug: 'new' });
    expect(pages.c.parentId).toBeNull();
    expect(pages.c.position < pages.b.position).toBe(true);
    expect(pages.a).toBeUndefined();
    expect(changes.filter((c) => c.page === created.page)).toHaveLength(1);
    expect(base.a).toBeDefined();
  });

  it('rejects the batch at the first invalid operation, naming its index', () => {
    const bad = () =>
      applyOperations(
        base,
        [
          { operation: 'update_page', page: 'a', title: 'ok' },
          { operation: 'update_page', page: 'a', into: 'c' },
        ],
        ctx(),
      );
    expect(bad).toThrow(OperationError);
    expect(bad).toThrow(/changes\[1\]/);
    expect(() => applyOperations(base, [{ operation: 'insert_page', title: 'B', slug: 'b', document: {} }], ctx())).toThrow(/slug "b"/);
    expect(() => applyOperations(base, [{ operation: 'delete_page', page: 'zzz' }], ctx())).toThrow(/changes\[0\]: page zzz/);
  });

  it('reverts a page to the base revision, or removes a page the base did not have', () => {
    const edited: PageMap = { ...base, b: { ...base.b, title: 'Changed' }, x: page('x', null, 'a2') };
    const { pages } = applyOperations(
      edited,
      [
        { operation: 'revert_page', page: 'b' },
        { operation: 'revert_page', page: 'x' },
      ],
      ctx(base),
    );
    expect(pages.b.title).toBe('b');
    expect(pages.x).toBeUndefined();
    expect(() => applyOperations(edited, [{ operation: 'revert_page', page: 'b', block: ['k'] }], ctx(base))).toThrow(/block/);
  });
});

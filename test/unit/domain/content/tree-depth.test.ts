import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { applyOperations, OperationError } from '../../../../src/domain/content/operations.ts';
import {
  buildTree,
  childrenIndex,
  MAX_PAGE_DEPTH,
  pageDepth,
  pageDepthProblem,
  pageDepths,
  pagesInOrder,
  subtreeHeight,
  treeDepth,
  validateTree,
  type PageMap,
  type TreeEntry,
} from '../../../../src/domain/content/tree.ts';
import { arbTree, page, pages } from './arbitraries.ts';

/** A chain of `length` pages, each inside the previous one: c0 (top) … c{length-1}. */
function chain(length: number, prefix = 'c', top: string | null = null): PageMap {
  const map: PageMap = {};
  for (let i = 0; i < length; i++) map[`${prefix}${i}`] = page(`${prefix}${i}`, i === 0 ? top : `${prefix}${i - 1}`, 'a0');
  return map;
}

/** The recursive walks these helpers replace: the reference they must agree with. */
function recursiveOrder(entries: TreeEntry[], out: string[] = []): string[] {
  for (const entry of entries) {
    out.push(entry.node.id);
    recursiveOrder(entry.children, out);
  }
  return out;
}
function nesting(entries: TreeEntry[]): number {
  let deepest = 0;
  const stack = entries.map((entry) => ({ entry, depth: 1 }));
  while (stack.length) {
    const { entry, depth } = stack.pop()!;
    deepest = Math.max(deepest, depth);
    for (const child of entry.children) stack.push({ entry: child, depth: depth + 1 });
  }
  return deepest;
}

let counter = 0;
const ctx = () => ({ newId: () => `new${++counter}`, revertSources: { base: {} } });

describe('page depth', () => {
  it('counts levels from the top, for one page, for every page, and for the tree', () => {
    const map = { ...chain(5), side: page('side', 'c1', 'a1'), orphan: page('orphan', 'gone', 'a0') };
    expect(pageDepth(map, 'c0')).toBe(1);
    expect(pageDepth(map, 'c4')).toBe(5);
    expect(pageDepth(map, 'side')).toBe(3);
    // A missing parent: counted from the highest ancestor that exists, as paths are.
    expect(pageDepth(map, 'orphan')).toBe(1);
    expect(pageDepth(map, 'nope')).toBe(0);
    expect(pageDepth(map, 'c4', 2)).toBe(2);
    expect(Object.fromEntries(pageDepths(map))).toEqual({ c0: 1, c1: 2, c2: 3, c3: 4, c4: 5, side: 3, orphan: 1 });
    expect(treeDepth(map)).toBe(5);
    expect(treeDepth({})).toBe(0);
  });

  it('measures subtrees: 1 for a leaf, one more per level below', () => {
    const map = { ...chain(5), side: page('side', 'c1', 'a1') };
    const index = childrenIndex(map);
    expect(subtreeHeight(index, 'c4')).toBe(1);
    expect(subtreeHeight(index, 'c1')).toBe(4);
    expect(subtreeHeight(index, 'c0')).toBe(5);
  });

  it('stays bounded on cycles: no depth for pages on or under one', () => {
    const map = pages(page('a', 'b', 'a0'), page('b', 'a', 'a0'), page('under', 'a', 'a1'), page('top', null, 'a0'));
    expect(Object.fromEntries(pageDepths(map))).toEqual({ top: 1 });
    // Walking up a cycle stops after as many steps as there are pages.
    expect(pageDepth(map, 'a')).toBe(4);
    expect(subtreeHeight(childrenIndex(map), 'a')).toBe(2);
  });

  it('handles trees far deeper than any stack without recursion', () => {
    const map = chain(50_000);
    expect(treeDepth(map)).toBe(50_000);
    expect(pageDepth(map, 'c49999')).toBe(50_000);
    expect(subtreeHeight(childrenIndex(map), 'c0')).toBe(50_000);
    expect(pagesInOrder(map)).toHaveLength(50_000);
    expect(nesting(buildTree(map, MAX_PAGE_DEPTH))).toBe(MAX_PAGE_DEPTH + 1);
  });

  it(`names the deepest page past ${MAX_PAGE_DEPTH} levels, and reports the first one too deep on each branch`, () => {
    expect(pageDepthProblem(chain(MAX_PAGE_DEPTH))).toBeUndefined();
    const deep = chain(MAX_PAGE_DEPTH + 3);
    expect(pageDepthProblem(deep)).toBe(
      `page "Page c102" would be 103 levels deep; pages may be nested at most ${MAX_PAGE_DEPTH} levels deep`,
    );
    expect(validateTree(chain(MAX_PAGE_DEPTH))).toEqual([]);
    expect(validateTree(deep)).toEqual([
      {
        kind: 'too-deep',
        pageId: `c${MAX_PAGE_DEPTH}`,
        message: `page c${MAX_PAGE_DEPTH} is 101 levels deep; the limit is ${MAX_PAGE_DEPTH}`,
      },
    ]);
  });
});

describe('presenting a tree no deeper than a limit', () => {
  it('changes nothing in a tree within the limit, and agrees with the recursive walk on generated trees', () => {
    fc.assert(
      fc.property(arbTree(15), (map) => {
        if (nesting(buildTree(map)) <= 3) expect(buildTree(map, 3)).toEqual(buildTree(map));
        expect(pagesInOrder(map).map((p) => p.id)).toEqual(recursiveOrder(buildTree(map)));
        // Limited or not, every page is there once, in the same order.
        expect(recursiveOrder(buildTree(map, 2))).toEqual(recursiveOrder(buildTree(map)));
        expect(nesting(buildTree(map, 2))).toBeLessThanOrEqual(3);
      }),
    );
  });

  it('hangs the pages below the limit under their ancestor at the limit, depth first', () => {
    const map = { ...chain(6), side: page('side', 'c3', 'a1'), leaf: page('leaf', 'side', 'a0') };
    const tree = buildTree(map, 3);
    const atLimit = tree[0].children[0].children[0];
    expect(atLimit.node.id).toBe('c2');
    expect(atLimit.children.map((e) => e.node.id)).toEqual(['c3', 'c4', 'c5', 'side', 'leaf']);
    expect(atLimit.children.every((e) => e.children.length === 0)).toBe(true);
  });
});

describe('content operations keep trees within the depth limit', () => {
  const deepest = `c${MAX_PAGE_DEPTH - 1}`;

  it('refuses an insert below the deepest allowed level, naming the limit and the operation', () => {
    const map = chain(MAX_PAGE_DEPTH);
    const insert = () =>
      applyOperations(
        map,
        [
          { operation: 'insert_page', title: 'Fine', into: 'c0' },
          { operation: 'insert_page', title: 'Too deep', into: deepest },
        ],
        ctx(),
      );
    expect(insert).toThrow(OperationError);
    expect(insert).toThrow(
      `changes[1]: into: this would put a page 101 levels deep; pages may be nested at most ${MAX_PAGE_DEPTH} levels deep`,
    );
    // Through a ref made in the same batch, too.
    expect(() =>
      applyOperations(
        map,
        [
          { operation: 'insert_page', title: 'At the limit', ref: 'r', into: `c${MAX_PAGE_DEPTH - 2}` },
          { operation: 'insert_page', title: 'Below it', into: 'r' },
        ],
        ctx(),
      ),
    ).toThrow(/changes\[1\]: into: .*101 levels deep/);
    expect(
      applyOperations(map, [{ operation: 'insert_page', title: 'Last level', into: `c${MAX_PAGE_DEPTH - 2}` }], ctx()).changes,
    ).toHaveLength(1);
  });

  it('counts the pages under a page that moves', () => {
    const map = { ...chain(MAX_PAGE_DEPTH - 2), ...chain(3, 's') };
    // s0 with two levels under it, under c97 (depth 98): s2 would be at 101.
    expect(() => applyOperations(map, [{ operation: 'update_page', page: 's0', into: `c${MAX_PAGE_DEPTH - 3}` }], ctx())).toThrow(
      /changes\[0\]: into: this would put a page 101 levels deep/,
    );
    expect(applyOperations(map, [{ operation: 'update_page', page: 's1', into: `c${MAX_PAGE_DEPTH - 3}` }], ctx()).pages.s2.parentId).toBe(
      's1',
    );
    // Renaming or reordering a page where it is never counts as a move.
    expect(applyOperations(map, [{ operation: 'update_page', page: 's0', title: 'Renamed', at: 0 }], ctx()).changes).toHaveLength(1);
  });

  it('lets pages of a tree deeper than the limit (written before it) move up, but nothing go deeper', () => {
    const map = { ...chain(300), b: page('b', null, 'a1'), b1: page('b1', 'b', 'a0') };
    // c250 is 251 levels deep with 49 levels under it: anywhere shallower is allowed, even if still too deep.
    expect(applyOperations(map, [{ operation: 'update_page', page: 'c250', into: null }], ctx()).pages.c250.parentId).toBeNull();
    expect(applyOperations(map, [{ operation: 'update_page', page: 'c250', into: 'b1' }], ctx()).pages.c250.parentId).toBe('b1');
    expect(applyOperations(map, [{ operation: 'update_page', page: 'c299', title: 'Edited' }], ctx()).pages.c299.title).toBe('Edited');
    // Nothing goes deeper than the limit: b (with b1) under c200, or a new page under c299.
    expect(() => applyOperations(map, [{ operation: 'update_page', page: 'b', into: 'c200' }], ctx())).toThrow(/into: .*203 levels deep/);
    expect(() => applyOperations(map, [{ operation: 'insert_page', title: 'Deeper', into: 'c299' }], ctx())).toThrow(/301 levels deep/);
  });

  it('refuses a revert that would put a restored page below the limit', () => {
    const base = { ...chain(MAX_PAGE_DEPTH), x: page('x', `c${MAX_PAGE_DEPTH - 1}`, 'a1') };
    const current = chain(MAX_PAGE_DEPTH);
    // In the base, x was at depth 101 (a tree from before the limit): restoring it there is refused.
    expect(() => applyOperations(current, [{ operation: 'revert_page', page: 'x' }], { ...ctx(), revertSources: { base } })).toThrow(
      /changes\[0\]: revision: this would put a page 101 levels deep/,
    );
  });
});

describe('a batch keeps its parent → children index up to date', () => {
  type Spec = { kind: string; target: number; parent: number; at: number };
  const arbSpecs = fc.array(
    fc.record({
      kind: fc.constantFrom('insert', 'insert', 'move', 'move', 'move', 'delete', 'revert'),
      target: fc.nat(30),
      parent: fc.nat(30),
      at: fc.nat(4),
    }),
    { minLength: 1, maxLength: 12 },
  );

  /** Operations on pages of the base (p0…) and, now and then, pages the batch creates (new1…) or the top level. */
  function operations(specs: Spec[], size: number) {
    const id = (n: number) => (n % 4 === 3 ? `new${((n >> 2) % 3) + 1}` : `p${n % size}`);
    return specs.map((s, i) => {
      const parent = s.parent % 5 === 4 ? null : id(s.parent);
      switch (s.kind) {
        case 'insert':
          return { operation: 'insert_page' as const, title: `Page ${i}`, ...(parent ? { into: parent } : {}), at: s.at };
        case 'move':
          return { operation: 'update_page' as const, page: id(s.target), into: parent, at: s.at };
        case 'delete':
          return { operation: 'delete_page' as const, page: id(s.target) };
        default:
          return { operation: 'revert_page' as const, page: id(s.target) };
      }
    });
  }

  it('applies a batch exactly as the same operations one batch each (where the index is built afresh)', () => {
    let applied = 0;
    fc.assert(
      fc.property(arbTree(10), arbSpecs, (base, specs) => {
        const ops = operations(specs, Object.keys(base).length);
        let n = 0;
        let batch: PageMap | string;
        try {
          batch = applyOperations(base, ops, { newId: () => `new${++n}`, revertSources: { base } }).pages;
          applied++;
        } catch (error) {
          batch = (error as OperationError).message;
        }
        let m = 0;
        let sequence: PageMap | string = base;
        for (const [i, op] of ops.entries()) {
          try {
            sequence = applyOperations(sequence, [op], { newId: () => `new${++m}`, revertSources: { base } }).pages;
          } catch (error) {
            sequence = (error as OperationError).message.replace('changes[0]', `changes[${i}]`);
            break;
          }
        }
        expect(batch).toEqual(sequence);
      }),
      { numRuns: 1000 },
    );
    // Many batches apply whole (the others stop at the same operation with the same error).
    expect(applied).toBeGreaterThan(100);
  });
});

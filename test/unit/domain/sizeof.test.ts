import { describe, expect, it } from '@jest/globals';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { PageMap } from '../../../src/domain/content/tree.ts';
import { pageIndex, pageIndexBytes } from '../../../src/domain/sites/resolve.ts';
import { CACHE_ENTRY_OVERHEAD, entryBytes, estimateBytes, stringBytes } from '../../../src/domain/sizeof.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** The heap bytes `make(i)` for i < n takes, per value, measured around a full collection. */
function measured(n: number, make: (i: number) => unknown): number {
  const keep: unknown[] = new Array(n);
  gc();
  gc();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < n; i++) keep[i] = make(i);
  gc();
  gc();
  const after = process.memoryUsage().heapUsed;
  expect(keep.length).toBe(n);
  return (after - before) / n;
}

/** Flat strings, as values read from the database or a request are (a template literal makes a rope). */
const flat = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/** Values of the shapes the caches hold, made distinct by `i` so nothing is shared between them. */
const shapes: Record<string, (i: number) => unknown> = {
  'a verified caller': (i) =>
    flat({
      caller: {
        user: { id: `usr${i}`.padEnd(20, 'x'), displayName: `Reader number ${i}`, email: `reader${i}@example.com`, photoUrl: null },
        tokenId: `tok${i}`.padEnd(20, 'y'),
        organizationId: null,
      },
      expires: 1_800_000_000_000 + i,
    }),
  'links of a document': (i) =>
    flat(
      Array.from({ length: 20 }, (_, j) => ({
        url: `https://example.com/${i}/page-${j}`,
        kind: 'link',
        text: `Link ${j} of ${i}`,
        line: j + 1,
      })),
    ),
  'a JSON row read from the database': (i) =>
    flat({ id: `s${i}`, path: `section-${i}`, condition: null, is_default: i % 2 === 0, position: i, title: 'Ünïcode title ✓' }),
  'a map of records by their ids': (i) =>
    new Map(Array.from({ length: 50 }, (_, j) => flat([`p${i}-${j}-key`, { title: `Page ${j} of ${i}`, position: j }]))),
};

describe('estimateBytes', () => {
  it.each(Object.keys(shapes))('is within ±35%% of what the heap measures for %s', (name) => {
    const make = shapes[name];
    const actual = measured(2_000, make);
    const estimate = estimateBytes(make(1_000_000));
    expect(estimate).toBeGreaterThan(actual * 0.65);
    expect(estimate).toBeLessThan(actual * 1.35);
  });

  it('is within ±35% of what the heap measures for a page index (keys shared with its entries)', () => {
    const tree = (i: number): PageMap => {
      const map: PageMap = {};
      for (let g = 0; g < 5; g++) {
        const group = `g${i}-${g}-group-id`;
        map[group] = flat({
          id: group,
          parentId: null,
          position: `a${g}`,
          type: 'group',
          title: `Group ${g}`,
          slug: `group-${g}`,
          markdown: '',
        });
        for (let j = 0; j < 10; j++) {
          const id = `p${i}-${g}-${j}-page-id`;
          map[id] = flat({
            id,
            parentId: group,
            position: `a${j}`,
            type: 'document',
            title: `Page ${j} of group ${g}`,
            slug: `page-${j}`,
            markdown: '',
          });
        }
      }
      return map;
    };
    // The index keeps its ids and titles from the page map, which is dropped once it is built.
    const actual = measured(1_000, (i) => pageIndex(tree(i)));
    const estimate = pageIndexBytes(pageIndex(tree(1_000_000)));
    expect(estimate).toBeGreaterThan(actual * 0.65);
    expect(estimate).toBeLessThan(actual * 1.35);
  });

  it('counts two-byte strings twice, an object reached twice once, and survives cycles and depth', () => {
    expect(stringBytes('é'.repeat(100))).toBeLessThan(stringBytes('€'.repeat(100)));
    expect(stringBytes('x'.repeat(1000))).toBe(1016);
    const shared = { text: 'x'.repeat(1000) };
    expect(estimateBytes([shared, shared])).toBeLessThan(estimateBytes([shared, { text: 'y'.repeat(1000) }]));
    const cyclic: Record<string, unknown> = { a: 'x'.repeat(100) };
    cyclic.self = cyclic;
    expect(estimateBytes(cyclic)).toBeGreaterThan(100);
    let deep: unknown = 'leaf';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(estimateBytes(deep)).toBeGreaterThan(100_000 * 8);
  });

  it('adds the key and the cache slot for an entry', () => {
    expect(entryBytes('k', 'v')).toBe(CACHE_ENTRY_OVERHEAD + stringBytes('k') + stringBytes('v'));
    expect(entryBytes('k', null, 5_000)).toBe(CACHE_ENTRY_OVERHEAD + stringBytes('k') + 5_000);
  });
});

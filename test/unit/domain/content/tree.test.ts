import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import {
  allPaths,
  buildTree,
  childrenIndex,
  childrenOf,
  deepEqual,
  pagePath,
  slugify,
  validateTree,
  type PageMap,
  type TreeEntry,
} from '../../../../src/domain/content/tree.ts';
import { arbTree, page, pages } from './arbitraries.ts';

const site = pages(
  page('guides', null, 'a1', { slug: 'guides' }),
  page('intro', null, 'a0', { slug: 'intro' }),
  page('install', 'guides', 'a0', { slug: 'install' }),
  page('configure', 'guides', 'a1', { slug: 'configure' }),
  page('upgrade', 'guides', 'a1', { slug: 'upgrade' }),
  page('linux', 'install', 'a0', { slug: 'linux' }),
);

function flatten(entries: TreeEntry[]): string[] {
  return entries.flatMap((entry) => [entry.node.id, ...flatten(entry.children)]);
}

describe('page tree', () => {
  it('orders siblings by position, then by id', () => {
    expect(childrenOf(site, null).map((node) => node.id)).toEqual(['intro', 'guides']);
    expect(childrenOf(site, 'guides').map((node) => node.id)).toEqual(['install', 'configure', 'upgrade']);
    expect(childrenOf(site, 'linux')).toEqual([]);
    expect(childrenIndex(site).get('guides')).toEqual(childrenOf(site, 'guides'));
  });

  it('compares positions as plain strings, not by locale', () => {
    const map = pages(page('lower', null, 'a'), page('upper', null, 'Z'));
    expect(childrenOf(map, null).map((node) => node.id)).toEqual(['upper', 'lower']);
  });

  it('builds the nested tree in order', () => {
    const tree = buildTree(site);
    expect(tree.map((entry) => entry.node.id)).toEqual(['intro', 'guides']);
    expect(tree[1].children.map((entry) => entry.node.id)).toEqual(['install', 'configure', 'upgrade']);
    expect(tree[1].children[0].children.map((entry) => entry.node.id)).toEqual(['linux']);
    expect(flatten(tree)).toEqual(['intro', 'guides', 'install', 'linux', 'configure', 'upgrade']);
  });

  it('leaves pages that cannot be reached from the top level out of the tree', () => {
    const map = pages(page('root', null, 'a0'), page('lost', 'gone', 'a0'), page('x', 'y', 'a0'), page('y', 'x', 'a0'));
    expect(flatten(buildTree(map))).toEqual(['root']);
  });

  it('builds a very deep tree without overflowing the stack', () => {
    const map: PageMap = {};
    for (let i = 0; i < 20000; i++) map[`p${i}`] = page(`p${i}`, i === 0 ? null : `p${i - 1}`, 'a0');
    let depth = 0;
    for (let level = buildTree(map); level.length > 0; level = level[0].children) depth++;
    expect(depth).toBe(20000);
    expect(allPaths(map).get('p19999')?.split('/')).toHaveLength(20000);
  });

  it('gives the path of slugs from the top level', () => {
    expect(pagePath(site, 'linux')).toBe('guides/install/linux');
    expect(pagePath(site, 'intro')).toBe('intro');
    expect(allPaths(site)).toEqual(
      new Map([
        ['guides', 'guides'],
        ['intro', 'intro'],
        ['install', 'guides/install'],
        ['configure', 'guides/configure'],
        ['upgrade', 'guides/upgrade'],
        ['linux', 'guides/install/linux'],
      ]),
    );
  });

  it('starts a path at the highest ancestor that exists, and refuses unknown pages and cycles', () => {
    const map = pages(page('lost', 'gone', 'a0', { slug: 'lost' }), page('child', 'lost', 'a0', { slug: 'child' }));
    expect(pagePath(map, 'child')).toBe('lost/child');
    expect(allPaths(map).get('child')).toBe('lost/child');
    expect(() => pagePath(map, 'nope')).toThrow(RangeError);

    const cyclic = pages(page('x', 'y', 'a0'), page('y', 'x', 'a0'), page('under', 'x', 'a0'), page('ok', null, 'a0'));
    expect(() => pagePath(cyclic, 'under')).toThrow(RangeError);
    expect([...allPaths(cyclic).keys()]).toEqual(['ok']);
  });

  it('makes slugs from titles', () => {
    expect(slugify('Hello, World!')).toBe('hello-world');
    expect(slugify('  Getting   started -- fast  ')).toBe('getting-started-fast');
    expect(slugify('Café crème brûlée')).toBe('cafe-creme-brulee');
    expect(slugify('API v2.1')).toBe('api-v2-1');
    expect(slugify('日本語')).toBe('page');
    expect(slugify('')).toBe('page');
    expect(slugify('---')).toBe('page');
    expect(slugify(`${'a'.repeat(99)} b`)).toBe('a'.repeat(99));
    expect(slugify('x'.repeat(150))).toBe('x'.repeat(100));
  });

  it('only ever makes well-formed slugs', () => {
    fc.assert(
      fc.property(fc.string(), (title) => {
        const slug = slugify(title);
        return /^[a-z0-9]+(-[a-z0-9]+)*$/.test(slug) && slug.length <= 100 && slugify(slug) === slug;
      }),
    );
  });

  it('finds nothing wrong with a valid tree', () => {
    expect(validateTree(site)).toEqual([]);
    expect(validateTree({})).toEqual([]);
  });

  it('reports missing parents, cycles, shared slugs and mismatched ids', () => {
    const map: PageMap = {
      ...pages(
        page('root', null, 'a0', { slug: 'docs' }),
        page('orphan', 'gone', 'a0'),
        page('x', 'y', 'a0'),
        page('y', 'x', 'a1'),
        page('below', 'x', 'a0'),
        page('self', 'self', 'a0'),
        page('twin', null, 'a1', { slug: 'docs' }),
      ),
      stored: page('other', null, 'a2'),
    };
    const found = validateTree(map).map(({ kind, pageId }) => `${kind} ${pageId}`);
    expect(found.sort()).toEqual(
      [
        'missing-parent orphan',
        'cycle x',
        'cycle y',
        'cycle self',
        'duplicate-slug root',
        'duplicate-slug twin',
        'id-mismatch stored',
      ].sort(),
    );
    const clash = validateTree(map).find((problem) => problem.kind === 'duplicate-slug');
    expect(clash).toMatchObject({ parentId: null, slug: 'docs' });
  });

  it('allows the same slug under different parents', () => {
    const map = pages(
      page('a', null, 'a0'),
      page('b', null, 'a1'),
      page('a-setup', 'a', 'a0', { slug: 'setup' }),
      page('b-setup', 'b', 'a0', { slug: 'setup' }),
    );
    expect(validateTree(map)).toEqual([]);
  });

  it('keeps every page of a generated tree once, in sibling order, with consistent paths', () => {
    fc.assert(
      fc.property(arbTree(15), (map) => {
        expect(validateTree(map)).toEqual([]);
        const order = flatten(buildTree(map));
        expect([...order].sort()).toEqual(Object.keys(map).sort());
        const index = childrenIndex(map);
        for (const [parentId, children] of index) {
          expect(children).toEqual(childrenOf(map, parentId));
          for (let i = 1; i < children.length; i++) {
            const [a, b] = [children[i - 1], children[i]];
            expect(a.position < b.position || (a.position === b.position && a.id < b.id)).toBe(true);
          }
        }
        const paths = allPaths(map);
        expect(paths.size).toBe(Object.keys(map).length);
        for (const id of Object.keys(map)) expect(paths.get(id)).toBe(pagePath(map, id));
      }),
    );
  });

  it('compares page values structurally, with undefined equal to missing but not to null', () => {
    expect(deepEqual({ a: 1, b: { c: [1, 2] } }, { b: { c: [1, 2] }, a: 1 })).toBe(true);
    expect(deepEqual({ a: 1, b: undefined }, { a: 1 })).toBe(true);
    expect(deepEqual({ a: 1 }, { a: 1, b: undefined })).toBe(true);
    expect(deepEqual({ a: null }, { a: undefined })).toBe(false);
    expect(deepEqual({ a: null }, {})).toBe(false);
    expect(deepEqual([1, 2], [2, 1])).toBe(false);
    expect(deepEqual([1], { 0: 1 })).toBe(false);
    expect(deepEqual({ cover: true }, { cover: false })).toBe(false);
  });
});

import { describe, expect, it } from '@jest/globals';
import { documentResolvers } from '../../../../src/domain/content/resolvers.ts';
import type { PageMap, PageNode } from '../../../../src/domain/content/tree.ts';

const page = (id: string, slug: string, parentId: string | null = null, position = 'a'): PageNode => ({
  id,
  parentId,
  position,
  type: 'document',
  title: slug,
  slug,
  markdown: '',
});
const pages: PageMap = { p1: page('p1', 'guides'), p2: page('p2', 'install', 'p1'), p3: page('p3', 'api', null, 'b') };
const resolvers = documentResolvers({
  pages,
  files: [{ id: 'f1', name: 'my logo.png' }],
  reusableContents: [
    { id: 'r1', path: '.gitbook/includes/intro.md' },
    { id: 'r2', path: '.gitbook/includes/legal/notice.md' },
    { id: 'r3', path: null },
  ],
});

describe('documentResolvers', () => {
  it('resolves stored references by id, and only to what the revision has', () => {
    expect(resolvers.resolveLink('gitbook://page/p2#step-2')).toEqual({ kind: 'page', page: 'p2', anchor: 'step-2' });
    expect(resolvers.resolveLink('gitbook://page/p3')).toEqual({ kind: 'page', page: 'p3' });
    expect(resolvers.resolveLink('gitbook://page/gone')).toBeNull();
    expect(resolvers.resolveLink('gitbook://file/f1')).toEqual({ kind: 'file', file: 'f1' });
    expect(resolvers.resolveFile('gitbook://file/f1')).toEqual({ kind: 'file', file: 'f1' });
    expect(resolvers.resolveFile('gitbook://file/f2')).toBeNull();
  });

  it('resolves relative paths to pages by path and to files by name; anything else is a URL', () => {
    expect(resolvers.resolveLink('../guides/install.md#setup')).toEqual({ kind: 'page', page: 'p2', anchor: 'setup' });
    expect(resolvers.resolveLink('guides/README.md')).toEqual({ kind: 'page', page: 'p1' });
    expect(resolvers.resolveLink('.gitbook/assets/my%20logo.png')).toEqual({ kind: 'file', file: 'f1' });
    expect(resolvers.resolveFile('<../.gitbook/assets/my logo.png>'.slice(1, -1))).toEqual({ kind: 'file', file: 'f1' });
    expect(resolvers.resolveLink('#anchor')).toEqual({ kind: 'anchor', anchor: 'anchor' });
    expect(resolvers.resolveLink('https://example.com/x')).toEqual({ kind: 'url', url: 'https://example.com/x' });
    expect(resolvers.resolveLink('nowhere.md')).toEqual({ kind: 'url', url: 'nowhere.md' });
    expect(resolvers.resolveFile('https://example.com/x.png')).toBeNull();
  });

  it('resolves include paths to reusable contents, and a dangling include to null', () => {
    expect(resolvers.reusableContent('../.gitbook/includes/intro.md')).toEqual({ kind: 'reusable-content', reusableContent: 'r1' });
    expect(resolvers.reusableContent('.gitbook/includes/legal/notice.md')).toEqual({ kind: 'reusable-content', reusableContent: 'r2' });
    expect(resolvers.reusableContent('../../.gitbook/includes/INTRO.md')).toEqual({ kind: 'reusable-content', reusableContent: 'r1' });
    expect(resolvers.reusableContent('.gitbook/includes/missing.md')).toBeNull();
    expect(resolvers.reusableContent('')).toBeNull();
  });
});

import { describe, expect, it } from '@jest/globals';
import { groupLinks, linkIndex, pageLinks, resolveLink } from '../../../../src/domain/content/links.ts';
import type { PageMap, PageNode } from '../../../../src/domain/content/tree.ts';

const page = (id: string, parentId: string | null, position: string, slug: string, markdown = ''): PageNode => ({
  id,
  parentId,
  position,
  type: 'document',
  title: slug,
  slug,
  markdown,
});

// welcome, guides (→ install, upgrade), api
const pages: PageMap = {
  p1: page('p1', null, 'a0', 'welcome'),
  p2: page('p2', null, 'a1', 'guides'),
  p3: page('p3', 'p2', 'a0', 'install'),
  p4: page('p4', 'p2', 'a1', 'upgrade'),
  p5: page('p5', null, 'a2', 'api'),
};
const files = [
  { id: 'f1', name: 'logo.png' },
  { id: 'f2', name: 'logo.png' },
  { id: 'f3', name: 'guide.pdf' },
];
const index = linkIndex({ publicUrl: 'http://docs.test', spaceId: 's1', pages, files });

describe('linkIndex', () => {
  it('orders pages depth first and maps paths and aliases to pages', () => {
    expect(index.order).toEqual(['p1', 'p2', 'p3', 'p4', 'p5']);
    expect(index.pageByPath.get('guides/install')).toBe('p3');
    expect(index.pageByPath.get('')).toBe('p1');
    expect(index.pageByPath.get('pages/p4')).toBe('p4');
    expect(index.pageByPath.get('pages/guides/upgrade')).toBe('p4');
    expect(index.fileByName.get('logo.png')).toBe('f1');
    expect(index.fileByName.get('files/f2')).toBe('f2');
  });

  it('never lets an alias shadow a real page path', () => {
    const withPages = linkIndex({
      publicUrl: 'http://docs.test',
      spaceId: 's1',
      pages: { ...pages, p6: page('p6', null, 'a3', 'pages') },
      files: [],
    });
    expect(withPages.pageByPath.get('pages')).toBe('p6');
  });
});

describe('resolveLink', () => {
  const at = (pageId: string, url: string) => resolveLink(index, pageId, url);

  it('resolves relative markdown paths to pages the way GitBook lays pages out in git', () => {
    expect(at('p3', 'upgrade.md')).toEqual({ status: 'ok', target: { kind: 'page', page: 'p4', space: 's1' } });
    expect(at('p3', '../api.md#auth')).toEqual({ status: 'ok', target: { kind: 'page', page: 'p5', space: 's1' } });
    expect(at('p2', 'install.md')).toEqual({ status: 'ok', target: { kind: 'page', page: 'p3', space: 's1' } }); // from guides/README.md
    expect(at('p3', 'README.md')).toEqual({ status: 'ok', target: { kind: 'page', page: 'p2', space: 's1' } }); // guides/README.md
    expect(at('p3', '../README.md')).toEqual({ status: 'ok', target: { kind: 'page', page: 'p1', space: 's1' } }); // the space's first page
    expect(at('p5', '/README.md')).toEqual({ status: 'ok', target: { kind: 'page', page: 'p1', space: 's1' } });
    expect(at('p5', 'guides/install')).toEqual({ status: 'ok', target: { kind: 'page', page: 'p3', space: 's1' } });
    expect(at('p5', 'missing.md')).toEqual({ status: 'broken', target: { kind: 'url', url: 'missing.md' } });
  });

  it('accepts the forms GitBook writes: /pages/<id or path>, /files/<id>, gitbook:// references', () => {
    expect(at('p1', '/pages/p3')).toEqual({ status: 'ok', target: { kind: 'page', page: 'p3', space: 's1' } });
    expect(at('p1', '/pages/guides/upgrade.md')).toEqual({ status: 'ok', target: { kind: 'page', page: 'p4', space: 's1' } });
    expect(at('p1', '/files/f3')).toEqual({ status: 'ok', target: { kind: 'file', file: 'f3', space: 's1' } });
    expect(at('p1', '/files/nope')).toEqual({ status: 'broken', target: { kind: 'url', url: '/files/nope' } });
    expect(at('p1', 'gitbook://page/p5')).toEqual({ status: 'ok', target: { kind: 'page', page: 'p5', space: 's1' } });
    expect(at('p1', 'gitbook://file/f2')).toEqual({ status: 'ok', target: { kind: 'file', file: 'f2', space: 's1' } });
    expect(at('p1', 'gitbook://page/gone').status).toBe('broken');
  });

  it('resolves file names and asset paths to the first file of that name', () => {
    expect(at('p3', '../.gitbook/assets/logo.png')).toEqual({ status: 'ok', target: { kind: 'file', file: 'f1', space: 's1' } });
    expect(at('p1', 'guide.pdf')).toEqual({ status: 'ok', target: { kind: 'file', file: 'f3', space: 's1' } });
  });

  it('keeps absolute URLs as URLs, except app URLs of pages', () => {
    expect(at('p1', 'https://example.com/x')).toEqual({ status: 'ok', target: { kind: 'url', url: 'https://example.com/x' } });
    expect(at('p1', 'mailto:a@b.example')).toEqual({ status: 'ok', target: { kind: 'url', url: 'mailto:a@b.example' } });
    expect(at('p1', 'http://docs.test/somewhere')).toEqual({
      status: 'in-app',
      target: { kind: 'url', url: 'http://docs.test/somewhere' },
    });
    expect(at('p1', 'http://docs.test/app/spaces/s2/pages/q9')).toEqual({
      status: 'in-app',
      target: { kind: 'page', page: 'q9', space: 's2' },
    });
  });

  it('points anchors and queries at the page itself', () => {
    expect(at('p4', '#steps')).toEqual({ status: 'ok', target: { kind: 'page', page: 'p4', space: 's1' } });
    expect(at('p4', '?tab=2')).toEqual({ status: 'ok', target: { kind: 'page', page: 'p4', space: 's1' } });
  });
});

describe('groupLinks', () => {
  it('groups by status and target in order of first appearance, listing each page once', () => {
    const grouped = groupLinks([
      {
        pageId: 'p1',
        links: pageLinks(index, 'p1', '[a](guides/install.md) [b](https://x.example) [c](guides/install.md#x) [d](nope.md)'),
      },
      { pageId: 'p3', links: pageLinks(index, 'p3', '[d](nope.md) [a](./install.md) [e](https://x.example)') },
    ]);
    expect(grouped).toEqual([
      { status: 'ok', target: { kind: 'page', page: 'p3', space: 's1' }, pages: ['p1', 'p3'] },
      { status: 'ok', target: { kind: 'url', url: 'https://x.example' }, pages: ['p1', 'p3'] },
      { status: 'broken', target: { kind: 'url', url: 'nope.md' }, pages: ['p1', 'p3'] },
    ]);
  });
});

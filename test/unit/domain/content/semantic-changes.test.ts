import { describe, expect, it } from '@jest/globals';
import { semanticChanges, type FileFacts } from '../../../../src/domain/content/semantic-changes.ts';
import { edit, page, pages, without } from './arbitraries.ts';

const base = pages(
  page('guides', null, 'a1', { slug: 'guides', title: 'Guides' }),
  page('intro', null, 'a0', { slug: 'intro', title: 'Intro' }),
  page('install', 'guides', 'a0', { slug: 'install', title: 'Install' }),
  page('links', null, 'a2', { type: 'link', slug: 'links', title: 'Links', href: 'https://a.example' }),
);

const file = (id: string, extra: Partial<FileFacts> = {}): FileFacts => ({
  id,
  name: `${id}.png`,
  contentType: 'image/png',
  size: 10,
  width: 1,
  height: 1,
  sha256: 'a'.repeat(64),
  ...extra,
});

describe('semantic changes', () => {
  it('reports nothing between equal states', () => {
    expect(semanticChanges({ pages: base, files: [file('f')] }, { pages: { ...base }, files: [file('f')] })).toEqual([]);
  });

  it('reports created pages in tree order with their paths, deleted pages after them', () => {
    const after = without(
      { ...base, linux: page('linux', 'install', 'a0', { slug: 'linux', title: 'Linux' }), faq: page('faq', null, 'a9', { slug: 'faq' }) },
      'intro',
    );
    const changes = semanticChanges({ pages: base, files: [] }, { pages: after, files: [] });
    expect(changes).toEqual([
      { type: 'page_created', page: { id: 'linux', type: 'document', title: 'Linux', path: 'guides/install/linux' } },
      { type: 'page_created', page: { id: 'faq', type: 'document', title: 'Page faq', path: 'faq' } },
      { type: 'page_deleted', page: { id: 'intro', type: 'document', title: 'Intro', path: 'intro' } },
    ]);
  });

  it('reports edited attributes with their values before and after, the document as changed', () => {
    const after = edit(edit(base, 'intro', { title: 'Welcome', markdown: '# changed\n', emoji: '1f600' }), 'links', {
      href: 'https://b.example',
    });
    const changes = semanticChanges({ pages: base, files: [] }, { pages: after, files: [] });
    expect(changes).toEqual([
      {
        type: 'page_edited',
        page: { id: 'intro', type: 'document', title: 'Welcome', path: 'intro' },
        attributes: { title: { before: 'Intro', after: 'Welcome' }, document: {}, emoji: { after: '1f600' } },
      },
      {
        type: 'page_edited',
        page: { id: 'links', type: 'link', title: 'Links', path: 'links' },
        attributes: { target: { before: { kind: 'url', url: 'https://a.example' }, after: { kind: 'url', url: 'https://b.example' } } },
      },
    ]);
  });

  it('reports a move between parents with both parents, and not a reorder among the same siblings', () => {
    const moved = edit(edit(base, 'install', { parentId: null, position: 'a5' }), 'intro', { position: 'a3' });
    expect(semanticChanges({ pages: base, files: [] }, { pages: moved, files: [] })).toEqual([
      {
        type: 'page_moved',
        page: { id: 'install', type: 'document', title: 'Install', path: 'install' },
        parent: { before: { id: 'guides', type: 'document', title: 'Guides', path: 'guides' } },
      },
    ]);
    const back = semanticChanges({ pages: moved, files: [] }, { pages: base, files: [] });
    expect(back).toEqual([
      {
        type: 'page_moved',
        page: { id: 'install', type: 'document', title: 'Install', path: 'guides/install' },
        parent: { after: { id: 'guides', type: 'document', title: 'Guides', path: 'guides' } },
      },
    ]);
  });

  it('reports a page both moved and edited as two changes, the move first', () => {
    const after = edit(base, 'install', { parentId: 'intro', slug: 'setup' });
    expect(semanticChanges({ pages: base, files: [] }, { pages: after, files: [] }).map((c) => c.type)).toEqual([
      'page_moved',
      'page_edited',
    ]);
  });

  it('reports files created, edited (new bytes included) and deleted', () => {
    const before = [file('a'), file('b'), file('c'), file('d')];
    const after = [file('b', { name: 'renamed.png' }), file('c', { sha256: 'b'.repeat(64) }), file('d'), file('e')];
    const changes = semanticChanges({ pages: {}, files: before }, { pages: {}, files: after });
    expect(changes.map((c) => [c.type, 'file' in c ? c.file.id : ''])).toEqual([
      ['file_edited', 'c'],
      ['file_created', 'e'],
      ['file_edited', 'b'],
      ['file_deleted', 'a'],
    ]);
    expect(changes[2]).toMatchObject({ attributes: { name: { before: 'b.png', after: 'renamed.png' } } });
    expect(changes[0]).toEqual(expect.objectContaining({ attributes: { downloadURL: {} } }));
  });

  it('treats an empty first state as every page and file created', () => {
    const changes = semanticChanges({ pages: {}, files: [] }, { pages: base, files: [file('f')] });
    expect(changes.map((c) => c.type)).toEqual(['page_created', 'page_created', 'page_created', 'page_created', 'file_created']);
  });
});

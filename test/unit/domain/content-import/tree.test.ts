import { describe, expect, it } from '@jest/globals';
import {
  mergeImported,
  placement,
  planPages,
  titleFromFileName,
  toPageMap,
  type ImportedPage,
} from '../../../../src/domain/content-import/tree.ts';
import { buildTree, validateTree, type PageMap, type PageNode } from '../../../../src/domain/content/tree.ts';

const page = (title: string, children: ImportedPage[] = []): ImportedPage => ({ title, markdown: `${title} text\n`, children });
const ids = () => {
  let n = 0;
  return () => `id${++n}`;
};
const node = (id: string, over: Partial<PageNode> = {}): PageNode => ({
  id,
  parentId: null,
  position: 'a0',
  type: 'document',
  title: id,
  slug: id,
  markdown: '',
  ...over,
});

describe('planPages / toPageMap', () => {
  it('gives ids, ordered positions, sibling-unique slugs and paths, depth first', () => {
    const planned = planPages([page('Intro'), page('Guide', [page('Install'), page('Install')]), page('Intro')], ids());
    expect(planned.map((p) => [p.id, p.parentId, p.slug, p.path])).toEqual([
      ['id1', null, 'intro', 'intro'],
      ['id2', null, 'guide', 'guide'],
      ['id3', 'id2', 'install', 'guide/install'],
      ['id4', 'id2', 'install-2', 'guide/install-2'],
      ['id5', null, 'intro-2', 'intro-2'],
    ]);
    expect(planned[0].position < planned[1].position && planned[1].position < planned[4].position).toBe(true);
    const map = toPageMap(planned);
    expect(validateTree(map)).toEqual([]);
    expect(buildTree(map).map((e) => e.node.title)).toEqual(['Intro', 'Guide', 'Intro']);
    expect(map.id3).toMatchObject({ type: 'document', title: 'Install', markdown: 'Install text\n', parentId: 'id2' });
  });

  it('lets the caller rewrite markdown and keeps descriptions', () => {
    const map = toPageMap(planPages([{ ...page('A'), description: 'About A' }], ids()), (p) => `rewritten ${p.id}`);
    expect(map.id1).toMatchObject({ markdown: 'rewritten id1', description: 'About A' });
  });
});

describe('placement / mergeImported', () => {
  const imported = toPageMap(planPages([page('Intro'), page('Guide', [page('Step')])], ids()));

  it('replaces the single empty page a new space starts with', () => {
    const existing: PageMap = { u: node('u', { title: 'Untitled', slug: 'untitled' }) };
    expect(placement(existing)).toEqual({ after: null, taken: [], replace: ['u'] });
    const { pages, replaced } = mergeImported(existing, imported);
    expect(replaced).toEqual(['u']);
    expect(Object.keys(pages).sort()).toEqual(['id1', 'id2', 'id3']);
  });

  it('adds after the existing top-level pages with unique slugs, keeping everything there', () => {
    const existing: PageMap = {
      a: node('a', { slug: 'intro', position: 'a0', markdown: 'x' }),
      b: node('b', { slug: 'other', position: 'a1' }),
      c: node('c', { parentId: 'a', slug: 'guide', position: 'a0' }),
    };
    expect(placement(existing)).toEqual({ after: 'a1', taken: ['intro', 'other'], replace: [] });
    const { pages, replaced } = mergeImported(existing, imported);
    expect(replaced).toEqual([]);
    expect(validateTree(pages)).toEqual([]);
    expect(buildTree(pages).map((e) => e.node.slug)).toEqual(['intro', 'other', 'intro-2', 'guide']);
    expect(pages.id3.position).toBe(imported.id3.position);
  });
});

describe('titleFromFileName', () => {
  it('makes a title of a file name', () => {
    expect(titleFromFileName('getting-started.md')).toBe('Getting started');
    expect(titleFromFileName('docs/My_Report.docx')).toBe('My Report');
    expect(titleFromFileName('.md')).toBe('Untitled');
  });
});

import { describe, expect, it } from '@jest/globals';
import { normalizeFolder, readFolder, type FolderFile } from '../../../../src/domain/content-import/folder.ts';
import { buildTree, type PageMap, type TreeEntry } from '../../../../src/domain/content/tree.ts';
import { LayoutError } from '../../../../src/domain/git/summary.ts';

const files = (entries: Record<string, string>): FolderFile[] =>
  Object.entries(entries).map(([path, text]) => ({ path, bytes: new TextEncoder().encode(text) }));
const shape = (map: PageMap) => {
  const walk = (entries: TreeEntry[]): unknown[] =>
    entries.map((e) => (e.children.length ? [e.node.title, walk(e.children)] : e.node.title));
  return walk(buildTree(map));
};
const byTitle = (map: PageMap, title: string) => Object.values(map).find((p) => p.title === title)!;

describe('normalizeFolder', () => {
  it('drops junk and dot files (but .gitbook), `..` paths and one wrapping folder', () => {
    const out = normalizeFolder(
      files({
        'repo-main/README.md': '',
        'repo-main/.gitbook/assets/a.png': '',
        'repo-main/.gitbook.yaml': '',
        'repo-main/.DS_Store': '',
        '__MACOSX/x': '',
        'repo-main/.hidden': '',
        'repo-main/../evil.md': '',
      }),
    );
    expect(out.map((f) => f.path).sort()).toEqual(['.gitbook.yaml', '.gitbook/assets/a.png', 'README.md']);
  });
});

describe('readFolder', () => {
  it('reads markdown and HTML documents with SUMMARY.md, links as content references', () => {
    const { layout, bytes } = readFolder(
      files({
        'SUMMARY.md': '* [Home](README.md)\n* [Page](page.html)\n',
        'README.md': '# Home\n\nSee [page](page.html) and ![pic](img/p.png).\n',
        'page.html': '<html><body><h1>HTML page</h1><p>Back <a href="README.md">home</a>.</p></body></html>',
        'img/p.png': 'png',
      }),
    );
    expect(shape(layout.pages)).toEqual(['Home', 'HTML page']);
    const home = byTitle(layout.pages, 'Home');
    const html = byTitle(layout.pages, 'HTML page');
    expect(html.slug).toBe('page');
    expect(home.markdown).toContain(`[page](gitbook://page/${html.id})`);
    expect(html.markdown).toContain(`[home](gitbook://page/${home.id})`);
    expect(layout.files).toEqual([{ id: expect.any(String), path: 'img/p.png', name: 'p.png' }]);
    expect(home.markdown).toContain(`![pic](gitbook://file/${layout.files[0].id})`);
    expect(new TextDecoder().decode(bytes.get('img/p.png'))).toBe('png');
  });

  it('reads a GitHub wiki: Home first, [[links]], sidebar and footer left out', () => {
    const { layout } = readFolder(
      files({
        'Home.md': 'Start: [[Install Guide]].\n',
        'Install-Guide.md': 'Back [[Home]].\n',
        'Zeta.md': 'z\n',
        '_Sidebar.md': '[[Home]]\n',
        '_Footer.md': 'f\n',
      }),
      { wiki: true },
    );
    expect(shape(layout.pages)).toEqual(['Home', 'Install Guide', 'Zeta']);
    const home = byTitle(layout.pages, 'Home');
    const install = byTitle(layout.pages, 'Install Guide');
    expect(home.markdown).toBe(`Start: [Install Guide](gitbook://page/${install.id}).\n`);
    expect(install.markdown).toBe(`Back [Home](gitbook://page/${home.id}).\n`);
  });

  it('refuses a folder without documents', () => {
    expect(() => readFolder(files({ 'a.png': 'x' }))).toThrow(LayoutError);
  });
});

import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  readLayout,
  renderLayout,
  type ImportedLayout,
  type ParentLayoutFiles,
  type RenderedLayout,
} from '../../../../src/domain/git/layout.ts';
import { allPaths, type PageMap, type PageNode } from '../../../../src/domain/content/tree.ts';

/**
 * Two real repositories in GitBook's git layout (test/fixtures/repos/SOURCES.md): reading them and
 * writing them back on top of themselves (an export right after an import) changes no byte, and a
 * change is written where it is and nowhere else.
 */

const FIXTURES = join(import.meta.dirname, '../../../fixtures/repos');

function readFolder(root: string): ParentLayoutFiles {
  const markdown: Record<string, string> = {};
  const assets: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = dir === '' ? entry.name : `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (/\.(md|markdown)$/i.test(entry.name)) markdown[path] = readFileSync(join(root, path), 'utf8');
      else assets.push(path);
    }
  };
  walk('');
  let gitbookYaml: string | null = null;
  if (assets.includes('.gitbook.yaml')) gitbookYaml = readFileSync(join(root, '.gitbook.yaml'), 'utf8');
  return { markdown, assets, gitbookYaml };
}

const repositories = [
  { name: 'gitbook-documentation', root: join(FIXTURES, 'gitbook-documentation'), edited: 'getting-started/quickstart.md', exact: true },
  { name: 'fluent-bit-docs', root: join(FIXTURES, 'fluent-bit-docs'), edited: 'concepts/key-concepts.md', exact: false },
];

/** What the export does with a rendering: the parent's tree, less the owned files not written, plus what is written. */
function apply(
  parent: ParentLayoutFiles,
  out: RenderedLayout,
): { tree: ParentLayoutFiles; added: string[]; removed: string[]; changed: string[] } {
  const written = new Set([...Object.keys(out.texts), ...out.assets.map((a) => a.path)]);
  const before = new Set([...Object.keys(parent.markdown), ...parent.assets]);
  const removed = [...new Set(out.owned)].filter((p) => !written.has(p)).sort();
  const added = [...written].filter((p) => !before.has(p)).sort();
  const markdown = { ...parent.markdown };
  for (const path of removed) delete markdown[path];
  const changed: string[] = [];
  for (const [path, text] of Object.entries(out.texts)) {
    if (markdown[path] !== text) changed.push(path);
    markdown[path] = text;
  }
  const assets = [...new Set([...parent.assets.filter((p) => !removed.includes(p)), ...out.assets.map((a) => a.path)])];
  return { tree: { markdown, assets, gitbookYaml: parent.gitbookYaml }, added, removed, changed: changed.sort() };
}

/** The repository read (an import), changed by `change`, then rendered on top of `parent` (an export). */
function exportOf(read: ImportedLayout, parent: ParentLayoutFiles, change?: (layout: ImportedLayout) => void): RenderedLayout {
  const layout: ImportedLayout = { ...read, pages: structuredClone(read.pages) };
  change?.(layout);
  return renderLayout(
    layout.pages,
    layout.files.map((f) => ({ id: f.id, name: f.name })),
    { config: layout.config, reusableContents: layout.reusableContents, parent },
  );
}

const pageAt = (layout: ImportedLayout, file: string): PageNode => {
  const id = Object.entries(layout.pageFiles).find(([, path]) => path === file)?.[0];
  if (id === undefined) throw new Error(`no page at ${file}`);
  return layout.pages[id];
};

describe.each(repositories)('the real repository $name', ({ root, edited, exact }) => {
  const input = readFolder(root);
  const read = readLayout(input);
  const files = Object.values(read.pageFiles).sort();

  it('comes back byte for byte when written on top of itself: no file changed, added or removed', () => {
    expect(read.warnings).toEqual([]);
    const out = exportOf(read, input);
    const first = apply(input, out);
    expect(first.changed).toEqual([]);
    expect(first.added).toEqual([]);
    expect(first.removed).toEqual([]);
    for (const [path, text] of Object.entries(out.texts)) expect(text).toBe(input.markdown[path]);
    expect(out.kept.sort()).toEqual(Object.keys(out.texts).sort());
    for (const asset of out.assets) expect(input.assets).toContain(asset.path);
    // Every page of the repository is written back to its own file.
    expect(Object.values(out.pageFiles).sort()).toEqual(files);

    // A second export on top of the first changes nothing either.
    const second = apply(first.tree, exportOf(read, first.tree));
    expect([second.changed, second.added, second.removed]).toEqual([[], [], []]);
  });

  it('rewrites a page whose text changed, and only it', () => {
    const result = apply(
      input,
      exportOf(read, input, (layout) => {
        pageAt(layout, edited).markdown += '\nOne more line.\n';
      }),
    );
    expect([result.changed, result.added, result.removed]).toEqual([[edited], [], []]);
    if (exact) expect(result.tree.markdown[edited]).toBe(`${input.markdown[edited]}\nOne more line.\n`);
    else expect(result.tree.markdown[edited]).toMatch(/\nOne more line\.\n$/);
  });

  it('rewrites a renamed page and the summary, and nothing else', () => {
    const result = apply(
      input,
      exportOf(read, input, (layout) => {
        pageAt(layout, edited).title = 'A brand new title';
      }),
    );
    expect([result.changed, result.added, result.removed]).toEqual([[edited, read.config.summary].sort(), [], []]);
    expect(result.tree.markdown[edited]).toContain('# A brand new title\n');
    expect(result.tree.markdown[read.config.summary]).toContain('[A brand new title](');
  });

  it('writes a new page and the summary, and removes the file of a page removed', () => {
    // A page no other page links to: removing it changes no other page.
    const gone = files.find((file) => {
      const id = pageAt(read, file).id;
      return !/readme\.md$/i.test(file) && !Object.values(read.pages).some((p) => p.markdown.includes(`gitbook://page/${id}`));
    })!;
    const result = apply(
      input,
      exportOf(read, input, (layout) => {
        delete layout.pages[pageAt(layout, gone).id];
        const top = Object.values(layout.pages).find((p) => p.parentId === null && p.type === 'document')!;
        layout.pages.added = {
          id: 'added',
          parentId: top.id,
          position: 'zz',
          type: 'document',
          title: 'Added',
          slug: 'added-page',
          markdown: 'New.\n',
        };
      }),
    );
    expect(result.removed).toEqual([gone]);
    expect(result.added).toHaveLength(1);
    expect(result.changed.sort()).toEqual([...result.added, read.config.summary].sort());
    expect(result.tree.markdown[result.added[0]]).toBe('# Added\n\nNew.\n');
    // The summary written lists the new page and not the one removed; the rest reads as before.
    const again = readLayout(result.tree);
    expect(Object.values(again.pages).map((p) => p.title)).toContain('Added');
    expect(Object.keys(again.pages)).toHaveLength(Object.keys(read.pages).length);
  });
});

describe("GitBook's own documentation, read", () => {
  const input = readFolder(repositories[0].root);
  const layout = readLayout(input);
  const byTitle = (title: string) => Object.values(layout.pages).find((p) => p.title === title)!;
  const fileId = (path: string) => layout.files.find((f) => f.path === path)!.id;

  it('takes a group slug from its heading anchor and the title without it', () => {
    const group = Object.values(layout.pages).find((p) => p.type === 'group' && p.title === 'Get Started')!;
    expect(group).toMatchObject({ slug: 'getting-started', parentId: null });
    const paths = allPaths(layout.pages);
    expect(paths.get(pageAt(layout, 'getting-started/quickstart.md').id)).toBe('getting-started/quickstart');
  });

  it('puts the pages after a separator at the top level, where their files are', () => {
    const skill = pageAt(layout, 'skill/README.md');
    expect(skill.parentId).toBeNull();
    expect(Object.values(layout.pages).filter((p) => p.parentId === skill.id)).toHaveLength(6);
  });

  it('reads the cover and the layout of the front matter in GitBook’s API form', () => {
    const home = pageAt(layout, 'README.md');
    expect(home.cover).toEqual({ ref: { kind: 'file', file: fileId('.gitbook/assets/hero (1).png') }, yPos: 0, height: 461 });
    expect(home.layout).toEqual({
      width: 'wide',
      cover: true,
      coverSize: 'background',
      coverMask: 'none',
      title: false,
      description: false,
      tableOfContents: false,
      outline: false,
      pagination: true,
      metadata: true,
      tags: true,
      actions: true,
    });
    expect(byTitle('Style guide').layout).toEqual({
      width: 'default',
      title: true,
      description: true,
      tableOfContents: true,
      outline: true,
      pagination: true,
      metadata: true,
      tags: true,
      actions: true,
    });
  });

  it('writes pages in GitBook’s format without a parent: front matter, cover, layout, links', () => {
    const out = renderLayout(layout.pages, layout.files, { config: layout.config, reusableContents: layout.reusableContents });
    for (const file of [
      'README.md',
      'create-content/styleguide.md',
      'getting-started/quickstart.md',
      'create-content/content-structure/page/README.md',
    ])
      expect([file, out.texts[file]]).toEqual([file, input.markdown[file]]);
    expect(out.texts['SUMMARY.md']).toBe(input.markdown['SUMMARY.md']);
  });

  it('keeps a hidden cover hidden, in the front matter written and read again', () => {
    const pages: PageMap = structuredClone(layout.pages);
    const home = pageAt({ ...layout, pages }, 'README.md');
    home.layout = { ...home.layout, cover: false };
    const out = renderLayout(pages, layout.files, { config: layout.config, parent: input });
    expect(out.kept).not.toContain('README.md');
    expect(out.texts['README.md']).toContain('layout:\n  width: wide\n  cover:\n    visible: false\n    size: background\n');
    expect(out.texts['README.md']).toContain('cover: .gitbook/assets/hero (1).png\ncoverY: 0\ncoverHeight: 461\n');
    const again = readLayout({ ...input, markdown: { ...input.markdown, 'README.md': out.texts['README.md'] } });
    expect(pageAt(again, 'README.md').layout).toMatchObject({ cover: false, coverSize: 'background' });
  });

  it('keeps front matter keys GitBook does not map when a page is rewritten', () => {
    const pages: PageMap = structuredClone(layout.pages);
    const page = pageAt({ ...layout, pages }, 'skill/cr-review.md');
    page.description = 'Shorter.';
    const out = renderLayout(pages, layout.files, { config: layout.config, parent: input });
    expect(out.texts['skill/cr-review.md']).toMatch(
      /^---\ndescription: Shorter\.\nhidden: true\nname: cr-review\nmetadata:\n {2}version: '1\.0'\n---\n/,
    );
  });
});

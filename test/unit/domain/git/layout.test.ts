import { describe, expect, it } from '@jest/globals';
import { assetsFolder, readLayout, renderLayout, readPageFile, relativePath, slugOf } from '../../../../src/domain/git/layout.ts';
import { parseSummary, renderSummary, parseGitbookYaml, LayoutError } from '../../../../src/domain/git/summary.ts';
import { rewriteLinks } from '../../../../src/domain/git/links.ts';
import { renderFrontMatter, splitFrontMatter } from '../../../../src/domain/git/frontmatter.ts';
import { buildTree, type PageMap } from '../../../../src/domain/content/tree.ts';

const md = (...lines: string[]) => lines.join('\n');

/** A repository as GitBook users have them: root in docs/, nesting, groups, assets with spaces, blocks. */
function sampleRepo() {
  return {
    gitbookYaml: md(
      'root: ./docs/',
      'structure:',
      '  readme: README.md',
      '  summary: SUMMARY.md',
      'redirects:',
      '  old/page: guides/install.md',
    ),
    markdown: {
      'README.md': '# Not the docs\n',
      'docs/SUMMARY.md': md(
        '# Table of contents',
        '',
        '* [Welcome](README.md)',
        '* [Guides](guides/README.md)',
        '  * [Install it](guides/install.md)',
        '  * [Set up](guides/set%20up.md)',
        '* Just a title',
        '  * [Nested under a title](guides/nested.md)',
        '',
        '## Reference',
        '',
        '* [API](reference/api.md)',
        '* [External](https://example.com/x)',
        '',
      ),
      'docs/README.md': md(
        '---',
        'description: The start',
        '---',
        '',
        '# Welcome',
        '',
        'See [install](guides/install.md#step-2) and ![logo](.gitbook/assets/my%20logo.png).',
        '',
      ),
      'docs/guides/README.md': md(
        '# Guides',
        '',
        '{% hint style="info" %}',
        'A [relative link](../reference/api.md).',
        '{% endhint %}',
        '',
      ),
      'docs/guides/install.md': md(
        '---',
        'icon: download',
        'hidden: true',
        '---',
        '',
        '# Install',
        '',
        '![shot](<../.gitbook/assets/my logo.png>)',
        '',
        '{% tabs %}',
        '{% tab title="npm" %}',
        '```sh',
        'npm i',
        '```',
        '{% endtab %}',
        '{% endtabs %}',
        '',
      ),
      'docs/guides/set up.md': md('# Set up', '', 'Back to [guides](./).', ''),
      'docs/guides/nested.md': md('Body without a heading.', '', '<img src="../.gitbook/assets/diagram.svg" alt="d">', ''),
      'docs/reference/api.md': md(
        '# API',
        '',
        '{% embed url="https://www.youtube.com/watch?v=x" %}',
        '',
        '[Home](../README.md) [file](../files/data.csv)',
        '',
      ),
    },
    assets: [
      'docs/.gitbook/assets/my logo.png',
      'docs/.gitbook/assets/diagram.svg',
      'docs/files/data.csv',
      'docs/files/unused.bin',
      'logo-outside.png',
    ],
  };
}

function titles(pages: PageMap): unknown {
  const walk = (entries: ReturnType<typeof buildTree>): unknown[] =>
    entries.map((e) => (e.children.length ? { [`${e.node.type}:${e.node.title}`]: walk(e.children) } : `${e.node.type}:${e.node.title}`));
  return walk(buildTree(pages));
}

describe('readLayout', () => {
  it('reads the tree from SUMMARY.md under the configured root, in order, with groups, untitled entries and links', () => {
    const layout = readLayout(sampleRepo());
    expect(titles(layout.pages)).toEqual([
      'document:Welcome',
      { 'document:Guides': ['document:Install', 'document:Set up'] },
      { 'document:Just a title': ['document:Nested under a title'] },
      { 'group:Reference': ['document:API', 'link:External'] },
    ]);
    expect(layout.config.redirects).toEqual({ 'old/page': 'guides/install.md' });
  });

  it('turns relative links into page and file references and keeps GitBook blocks intact', () => {
    const layout = readLayout(sampleRepo());
    const byTitle = (t: string) => Object.values(layout.pages).find((p) => p.title === t)!;
    const file = (path: string) => layout.files.find((f) => f.path === path)!.id;
    expect(byTitle('Welcome')).toMatchObject({
      description: 'The start',
      markdown: `See [install](gitbook://page/${byTitle('Install').id}#step-2) and ![logo](gitbook://file/${file('docs/.gitbook/assets/my logo.png')}).\n`,
    });
    expect(byTitle('Install')).toMatchObject({ icon: 'download', hidden: true, slug: 'install' });
    expect(byTitle('Install').markdown).toContain(`![shot](gitbook://file/${file('docs/.gitbook/assets/my logo.png')})`);
    expect(byTitle('Install').markdown).toContain('{% tabs %}\n{% tab title="npm" %}');
    expect(byTitle('Guides').markdown).toBe(
      `{% hint style="info" %}\nA [relative link](gitbook://page/${byTitle('API').id}).\n{% endhint %}\n`,
    );
    expect(byTitle('Set up')).toMatchObject({ slug: 'set-up', markdown: `Back to [guides](gitbook://page/${byTitle('Guides').id}).\n` });
    expect(byTitle('Nested under a title').markdown).toContain(`<img src="gitbook://file/${file('docs/.gitbook/assets/diagram.svg')}"`);
    expect(byTitle('API').markdown).toContain(`[file](gitbook://file/${file('docs/files/data.csv')})`);
    expect(layout.files.map((f) => f.name).sort()).toEqual(['data.csv', 'diagram.svg', 'my logo.png']);
  });

  it('follows the folders without a SUMMARY.md', () => {
    const layout = readLayout({
      markdown: { 'README.md': '# Home\n', 'b.md': '# B\n', 'a/README.md': '# A\n', 'a/x.md': '# X\n', 'c/y.md': '# Y\n' },
      assets: [],
    });
    expect(titles(layout.pages)).toEqual([
      'document:Home',
      'document:B',
      { 'document:A': ['document:X'] },
      { 'document:c': ['document:Y'] },
    ]);
  });

  it('refuses a repository without markdown as not a GitBook layout', () => {
    expect(() => readLayout({ markdown: {}, assets: ['x.png'] })).toThrow(LayoutError);
    expect(() => readLayout({ markdown: { 'README.md': 'x' }, assets: [], gitbookYaml: 'root: [' })).toThrow(/not valid YAML/);
  });

  it('keeps ids given for slug paths and file paths', () => {
    const layout = readLayout(sampleRepo(), { pageId: (p) => `id:${p}`, fileId: (p) => `f:${p}` });
    expect(Object.keys(layout.pages)).toContain('id:guides/install');
    expect(layout.files.map((f) => f.id)).toContain('f:docs/files/data.csv');
  });
});

describe('renderLayout', () => {
  it('round-trips: reading what it wrote gives the same pages and files', () => {
    const repo = sampleRepo();
    const first = readLayout(repo);
    const ids = new Map(Object.values(first.pages).map((p) => [p.id, p.id]));
    const rendered = renderLayout(first.pages, first.files, { config: first.config });
    expect(Object.keys(rendered.texts)).toContain('docs/guides/README.md');
    expect(rendered.texts['docs/guides/install.md']).toContain('![shot](<../.gitbook/assets/my logo.png>)');
    // Ids by slug path as the service keeps them, files by name.
    const slugPaths = new Map<string, string>();
    const paths = (entries: ReturnType<typeof buildTree>, prefix: string) => {
      for (const e of entries) {
        const p = prefix ? `${prefix}/${e.node.slug}` : e.node.slug;
        slugPaths.set(p, e.node.id);
        paths(e.children, p);
      }
    };
    paths(buildTree(first.pages), '');
    const fileByName = new Map(first.files.map((f) => [f.name, f.id]));
    const second = readLayout(
      { markdown: rendered.texts, assets: rendered.assets.map((a) => a.path), gitbookYaml: repo.gitbookYaml },
      { pageId: (p) => slugPaths.get(p) ?? `new:${p}`, fileId: (p) => fileByName.get(p.slice(p.lastIndexOf('/') + 1)) ?? `new:${p}` },
    );
    expect(second.pages).toEqual(first.pages);
    expect(second.files.map((f) => f.id).sort()).toEqual(first.files.map((f) => f.id).sort());
    expect(ids.size).toBe(Object.keys(second.pages).length);
    const third = renderLayout(second.pages, second.files, { config: second.config });
    expect(third.texts).toEqual(rendered.texts);
  });

  it('writes the first page as README.md and a page with children as a folder README', () => {
    const pages: PageMap = {
      a: {
        id: 'a',
        parentId: null,
        position: 'a0',
        type: 'document',
        title: 'Home',
        slug: 'home',
        markdown: 'Hi [b](gitbook://page/c#x)\n',
      },
      b: { id: 'b', parentId: null, position: 'a1', type: 'document', title: 'Guide', slug: 'guide', markdown: '' },
      c: { id: 'c', parentId: 'b', position: 'a0', type: 'document', title: 'Deep', slug: 'deep', markdown: '# Deep\n\nx' },
    };
    const out = renderLayout(pages, []);
    expect(out.texts).toEqual({
      'README.md': '# Home\n\nHi [b](guide/deep.md#x)\n',
      'guide/README.md': '# Guide\n',
      'guide/deep.md': '# Deep\n\nx',
      'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Guide](guide/README.md)\n  * [Deep](guide/deep.md)\n',
    });
  });
});

describe('pieces', () => {
  it('parses and writes summaries', () => {
    const parts = parseSummary('# TOC\n\n* [A](a.md)\n  * B\n\n## G\n\n* [C \\[x\\]](c%20d.md)\n');
    expect(parts).toEqual([
      { title: null, entries: [{ title: 'A', href: 'a.md', children: [{ title: 'B', href: null, children: [] }] }] },
      { title: 'G', entries: [{ title: 'C [x]', href: 'c%20d.md', children: [] }] },
    ]);
    expect(parseSummary(renderSummary(parts))).toEqual(parts);
  });

  it('reads .gitbook.yaml with defaults', () => {
    expect(parseGitbookYaml(null)).toEqual({ root: '', readme: 'README.md', summary: 'SUMMARY.md', redirects: {} });
    expect(parseGitbookYaml('root: ./docs\nstructure:\n  summary: toc.md\n')).toMatchObject({ root: 'docs', summary: 'toc.md' });
  });

  it('splits and writes front matter', () => {
    expect(splitFrontMatter('---\ndescription: x\n---\nbody')).toEqual({ data: { description: 'x' }, body: 'body' });
    expect(splitFrontMatter('---\n\ntext')).toEqual({ data: {}, body: '---\n\ntext' });
    expect(renderFrontMatter({ description: 'd', hidden: true })).toBe('---\ndescription: d\nhidden: true\n---\n');
    expect(renderFrontMatter({})).toBe('');
  });

  it('reads a page file', () => {
    expect(readPageFile('---\nicon: x\n---\n\n# Title *here*\n\nBody\n')).toEqual({
      fields: { icon: 'x' },
      title: 'Title here',
      body: 'Body\n',
    });
    expect(readPageFile('No heading\n')).toEqual({ fields: {}, title: null, body: 'No heading\n' });
  });

  it('rewrites only link targets', () => {
    const text = 'a [x](one.md "t") `[y](two.md)` ![i](<sp ace.png>)\n\n[ref]: three.md\n';
    expect(rewriteLinks(text, (u) => u.toUpperCase())).toBe('a [x](ONE.MD "t") `[y](two.md)` ![i](<SP ACE.PNG>)\n\n[ref]: THREE.MD\n');
    expect(relativePath('a/b/c.md', 'a/x.png')).toBe('../x.png');
    expect(relativePath('README.md', 'a/x.md')).toBe('a/x.md');
    expect(slugOf('Getting Started.md')).toBe('getting-started');
    expect(slugOf('install.md')).toBe('install');
  });
});

describe('assetsFolder', () => {
  it('is .gitbook/assets under the root .gitbook.yaml names and the project directory, the folder whose files readLayout takes', () => {
    expect(assetsFolder(null)).toBe('.gitbook/assets');
    expect(assetsFolder('root: ./docs/\n')).toBe('docs/.gitbook/assets');
    expect(assetsFolder('root: ./docs/\n', 'product')).toBe('product/docs/.gitbook/assets');
    expect(assetsFolder('root: [unclosed\n')).toBeNull();
    const layout = readLayout({
      markdown: { 'docs/README.md': '# Home\n' },
      assets: ['docs/.gitbook/assets/a (1).png', 'docs/other.png', '.gitbook/assets/b.png'],
      gitbookYaml: 'root: ./docs/\n',
    });
    const folder = assetsFolder('root: ./docs/\n')!;
    expect(layout.files.map((f) => f.path)).toEqual(['docs/.gitbook/assets/a (1).png']);
    expect(layout.files.every((f) => f.path.startsWith(`${folder}/`))).toBe(true);
  });
});

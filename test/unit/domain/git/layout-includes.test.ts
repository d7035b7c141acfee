import { describe, expect, it } from '@jest/globals';
import { includePath, readIncludeFile, readLayout, renderLayout } from '../../../../src/domain/git/layout.ts';

/** A repository with reusable contents: one named in front matter, one by its heading, one nested, and a dangling include. */
function repo() {
  return {
    gitbookYaml: 'root: ./docs/\n',
    markdown: {
      'docs/README.md': '# Welcome\n\n{% include "../.gitbook/includes/intro.md" %}\n\n{% include ".gitbook/includes/missing.md" %}\n',
      'docs/guides/install.md': '# Install\n\n{% include "../.gitbook/includes/intro.md" %}\n',
      'docs/.gitbook/includes/intro.md':
        '---\ntitle: Shared intro\n---\n\n# A heading of the content\n\nSee [install](../../guides/install.md).\n',
      'docs/.gitbook/includes/legal notice.md': '# Legal notice\n\nAll rights reserved.\n',
    },
    assets: [],
  };
}

describe('reusable contents in the git layout', () => {
  it('reads .gitbook/includes as reusable contents, never as pages, whatever the includes name', () => {
    const layout = readLayout(repo());
    expect(
      Object.values(layout.pages)
        .map((p) => p.title)
        .sort(),
    ).toEqual(['Install', 'Welcome', 'guides']);
    const byPath = Object.fromEntries(layout.reusableContents.map((c) => [c.path, c]));
    expect(Object.keys(byPath).sort()).toEqual(['.gitbook/includes/intro.md', '.gitbook/includes/legal notice.md']);
    const install = Object.values(layout.pages).find((p) => p.title === 'Install')!;
    expect(byPath['.gitbook/includes/intro.md']).toMatchObject({
      title: 'Shared intro',
      markdown: `# A heading of the content\n\nSee [install](gitbook://page/${install.id}).\n`,
    });
    expect(byPath['.gitbook/includes/legal notice.md']).toMatchObject({ title: 'Legal notice', markdown: 'All rights reserved.\n' });
    // Includes are kept as written in pages, the dangling one too.
    const welcome = Object.values(layout.pages).find((p) => p.title === 'Welcome')!;
    expect(welcome.markdown).toContain('{% include ".gitbook/includes/missing.md" %}');
  });

  it('keeps the ids the caller has for known include paths', () => {
    const layout = readLayout(repo(), { reusableContentId: (path) => (path === '.gitbook/includes/intro.md' ? 'kept' : `new:${path}`) });
    expect(layout.reusableContents.map((c) => c.id).sort()).toEqual(['kept', 'new:.gitbook/includes/legal notice.md']);
  });

  it('writes reusable contents back where they came from, and reading them again gives the same contents', () => {
    const first = readLayout(repo(), { reusableContentId: (path) => path, pageId: (path) => path.replace(/\//g, '_') });
    const rendered = renderLayout(first.pages, [], { projectDirectory: '', reusableContents: first.reusableContents });
    expect(
      Object.keys(rendered.texts)
        .filter((p) => p.startsWith('.gitbook/includes/'))
        .sort(),
    ).toEqual(['.gitbook/includes/intro.md', '.gitbook/includes/legal notice.md']);
    expect(rendered.texts['.gitbook/includes/intro.md']).toBe(
      '---\ntitle: "Shared intro"\n---\n\n# A heading of the content\n\nSee [install](../../guides/install.md).\n',
    );
    const again = readLayout(
      { markdown: rendered.texts, assets: [] },
      { reusableContentId: (path) => path, pageId: (path) => path.replace(/\//g, '_') },
    );
    expect(again.reusableContents).toEqual(first.reusableContents);
  });

  it('writes a content without a safe path under .gitbook/includes by its title, never outside', () => {
    const taken = new Set<string>();
    expect(includePath({ id: 'a', title: 'Shared intro', path: null }, taken)).toBe('.gitbook/includes/shared-intro.md');
    expect(includePath({ id: 'b', title: 'Shared intro', path: '../../etc/passwd' }, taken)).toBe('.gitbook/includes/shared-intro-2.md');
    expect(includePath({ id: 'c', title: 'X', path: '.gitbook/includes/../../x.md' }, taken)).toBe('.gitbook/includes/x.md');
  });

  it('takes the title from front matter and keeps a leading heading in the text', () => {
    expect(readIncludeFile('---\ntitle: T\n---\n\n# H\n\nbody\n')).toEqual({ title: 'T', body: '# H\n\nbody\n' });
    expect(readIncludeFile('# H\n\nbody\n')).toEqual({ title: 'H', body: 'body\n' });
  });
});

import { describe, expect, it } from '@jest/globals';
import { documentToMarkdown, markdownToDocument } from '../../../../../src/domain/content/document.ts';
import { revisionResolvers } from '../../../../../src/domain/content/gitbook/resolvers.ts';

const index = {
  fromPath: 'guides/install',
  pages: new Map([
    ['', 'root'],
    ['guides', 'guides'],
    ['guides/install', 'install'],
    ['guides/upgrade', 'upgrade'],
    ['reference/api', 'api'],
  ]),
  pageFiles: new Map([['guides', 'guides/README.md']]),
  files: new Map([['.gitbook/assets/logo.png', 'f1']]),
  reusableContents: new Map([['.gitbook/includes/note.md', 'rc1']]),
};

describe('revisionResolvers', () => {
  const { read, write } = revisionResolvers(index);

  it('resolves paths of the git layout to pages, anchors, files and reusable contents', () => {
    expect(read.resolveLink!('upgrade.md')).toEqual({ kind: 'page', page: 'upgrade' });
    expect(read.resolveLink!('../reference/api.md#auth')).toEqual({ kind: 'anchor', anchor: 'auth', page: 'api' });
    expect(read.resolveLink!('./')).toEqual({ kind: 'page', page: 'guides' });
    expect(read.resolveLink!('../README.md')).toEqual({ kind: 'page', page: 'root' });
    expect(read.resolveLink!('#here')).toEqual({ kind: 'anchor', anchor: 'here' });
    expect(read.resolveLink!('../.gitbook/assets/logo.png')).toEqual({ kind: 'file', file: 'f1' });
    expect(read.resolveLink!('gitbook://page/api')).toEqual({ kind: 'page', page: 'api' });
    expect(read.resolveLink!('https://example.com/upgrade.md')).toBeNull();
    expect(read.resolveLink!('missing.md')).toBeNull();
    expect(read.resolveFile!('../.gitbook/assets/logo.png')).toEqual({ kind: 'file', file: 'f1' });
    expect(read.resolveFile!('https://example.com/logo.png')).toBeNull();
    expect(read.reusableContent!('../.gitbook/includes/note.md')).toBe('rc1');
    expect(read.reusableContent!('../.gitbook/includes/gone.md')).toBeNull();
  });

  it('writes references back as paths relative to the page', () => {
    const markdown =
      '[a](upgrade.md) [b](../reference/api.md#auth) [c](#here) [d](./)\n\n' +
      '<figure><img src="../.gitbook/assets/logo.png" alt=""><figcaption></figcaption></figure>\n\n' +
      '{% include "../.gitbook/includes/note.md" %}\n';
    const doc = markdownToDocument(markdown, read);
    expect(documentToMarkdown(doc, write)).toBe(
      '[a](upgrade.md) [b](../reference/api.md#auth) [c](#here) [d](README.md)\n\n' +
        '<figure><img src="../.gitbook/assets/logo.png" alt=""><figcaption></figcaption></figure>\n\n' +
        '{% include "../.gitbook/includes/note.md" %}\n',
    );
  });
});

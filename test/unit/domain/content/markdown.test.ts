import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import {
  classifyLink,
  extractLinks,
  plainText,
  resolveRelativePath,
  snippet,
  splitSections,
} from '../../../../src/domain/content/markdown.ts';
import type { LinkContext } from '../../../../src/domain/content/markdown.ts';

const md = (...lines: string[]) => lines.join('\n');

describe('extractLinks', () => {
  it('finds inline links and images with their text and line', () => {
    const links = extractLinks(
      md('# Guide', '', 'See [the *install* page](install.md "Install") now.', '', '![Logo](.gitbook/assets/logo.png)'),
    );
    expect(links).toEqual([
      { url: 'install.md', kind: 'link', text: 'the install page', line: 3 },
      { url: '.gitbook/assets/logo.png', kind: 'image', text: 'Logo', line: 5 },
    ]);
  });

  it('finds autolinks and GFM autolink literals', () => {
    const links = extractLinks('Go to <https://a.example/x>, www.b.example, https://c.example/y or write to team@d.example.');
    expect(links.map((l) => l.url)).toEqual([
      'https://a.example/x',
      'http://www.b.example',
      'https://c.example/y',
      'mailto:team@d.example',
    ]);
    expect(links[0].text).toBe('https://a.example/x');
  });

  it('resolves full, collapsed and shortcut references through their definitions', () => {
    const links = extractLinks(
      md(
        'A [full][Docs] link, a [docs][] link, a [Docs] link and an ![image][pic].',
        '',
        '[docs]: ../other/page.md#part "Title"',
        '[DOCS]: ignored-second-definition.md',
        '[pic]: <images/a b.png>',
      ),
    );
    expect(links).toEqual([
      { url: '../other/page.md#part', kind: 'link', text: 'full', line: 1 },
      { url: '../other/page.md#part', kind: 'link', text: 'docs', line: 1 },
      { url: '../other/page.md#part', kind: 'link', text: 'Docs', line: 1 },
      { url: 'images/a b.png', kind: 'image', text: 'image', line: 1 },
    ]);
  });

  it('ignores references without a definition and unused definitions', () => {
    expect(extractLinks(md('A [missing] reference and [text][nowhere].', '', '[unused]: https://x.example'))).toEqual([]);
  });

  it('ignores links in fenced, indented and inline code', () => {
    const links = extractLinks(
      md(
        '```markdown',
        '[fenced](https://fenced.example)',
        '```',
        '',
        '    [indented](https://indented.example)',
        '',
        'Inline `[code](https://inline.example)` and a [real](https://real.example) one.',
      ),
    );
    expect(links).toEqual([{ url: 'https://real.example', kind: 'link', text: 'real', line: 7 }]);
  });

  it('finds GitBook-style relative page links', () => {
    const links = extractLinks(md('- [Other](../other/page.md)', '- [Anchor](page.md#anchor)', '- [Sub](./sub/README.md)'));
    expect(links.map((l) => [l.url, l.line])).toEqual([
      ['../other/page.md', 1],
      ['page.md#anchor', 2],
      ['./sub/README.md', 3],
    ]);
  });

  it('finds links in nested lists, block quotes, tables and footnotes', () => {
    const links = extractLinks(
      md(
        '- one',
        '  - two [deep](deep.md)',
        '    1. three ![pic](p.png)',
        '',
        '> quoted [q](q.md)',
        '',
        '| Name | Link |',
        '| ---- | ---- |',
        '| a    | [cell](cell.md) |',
        '',
        'Text[^1].',
        '',
        '[^1]: A note with [a link](note.md).',
      ),
    );
    expect(links.map((l) => [l.kind, l.url, l.line])).toEqual([
      ['link', 'deep.md', 2],
      ['image', 'p.png', 3],
      ['link', 'q.md', 5],
      ['link', 'cell.md', 9],
      ['link', 'note.md', 13],
    ]);
  });

  it('reports an image inside a link as two targets', () => {
    const links = extractLinks('[![Badge](badge.svg)](https://ci.example)');
    expect(links).toEqual([
      { url: 'https://ci.example', kind: 'link', text: 'Badge', line: 1 },
      { url: 'badge.svg', kind: 'image', text: 'Badge', line: 1 },
    ]);
  });

  it('reads <img src> and <a href> tags of raw HTML, skipping GitBook heading anchors', () => {
    const links = extractLinks(
      md(
        '## Setup <a href="#setup" id="setup"></a>',
        '',
        '<figure><img src="../.gitbook/assets/shot.png" alt="A &amp; B"><figcaption></figcaption></figure>',
        '',
        'Press <a href="keys.md">the <b>keys</b></a> now.',
        '',
        '<div>',
        '<a href=\'https://x.example\' class="button">Go</a>',
        '</div>',
      ),
    );
    expect(links).toEqual([
      { url: '../.gitbook/assets/shot.png', kind: 'image', text: 'A & B', line: 3 },
      { url: 'keys.md', kind: 'link', text: 'the keys', line: 5 },
      { url: 'https://x.example', kind: 'link', text: 'Go', line: 8 },
    ]);
  });

  it('keeps line numbers right after YAML front matter and does not read it as content', () => {
    const links = extractLinks(md('---', 'description: See [x](front.md)', '---', '', '[after](after.md)'));
    expect(links).toEqual([{ url: 'after.md', kind: 'link', text: 'after', line: 5 }]);
  });

  it('handles empty documents and unicode', () => {
    expect(extractLinks('')).toEqual([]);
    expect(extractLinks('   \n\n')).toEqual([]);
    expect(extractLinks('Voir [la page d’accueil 🏠](accueil/README.md)')).toEqual([
      { url: 'accueil/README.md', kind: 'link', text: 'la page d’accueil 🏠', line: 1 },
    ]);
  });

  it('keeps every occurrence, in document order', () => {
    const links = extractLinks('[a](x.md) [b](x.md)\n\n[c](x.md)');
    expect(links.map((l) => l.text)).toEqual(['a', 'b', 'c']);
  });
});

describe('resolveRelativePath', () => {
  it('resolves against the directory of the file like a file-system path', () => {
    expect(resolveRelativePath('a/b.md', 'c.md')).toBe('a/c.md');
    expect(resolveRelativePath('a/b.md', './c.md')).toBe('a/c.md');
    expect(resolveRelativePath('a/b.md', '../c/d.md')).toBe('c/d.md');
    expect(resolveRelativePath('a/b/README.md', '../c.md')).toBe('a/c.md');
    expect(resolveRelativePath('a/b', 'x/./y/../z/')).toBe('a/x/z');
    expect(resolveRelativePath('README.md', 'guides/install.md')).toBe('guides/install.md');
  });

  it('starts from the root for a leading slash', () => {
    expect(resolveRelativePath('a/b/c.md', '/guides/install')).toBe('guides/install');
  });

  it('ignores the anchor and query', () => {
    expect(resolveRelativePath('a/b.md', 'c.md#part')).toBe('a/c.md');
    expect(resolveRelativePath('a/b.md', 'c.md?x=1#part')).toBe('a/c.md');
  });

  it('returns the root as an empty path and null above the root', () => {
    expect(resolveRelativePath('a/b.md', '..')).toBe('');
    expect(resolveRelativePath('a/b.md', '../..')).toBeNull();
    expect(resolveRelativePath('b.md', '../x.md')).toBeNull();
  });
});

describe('classifyLink', () => {
  const ctx = (over: Partial<LinkContext> = {}): LinkContext => ({
    publicUrl: 'https://docs.example.com',
    fromPath: 'a/b',
    pagePaths: new Set(['', 'a', 'a/b', 'a/c', 'a/b/d', 'guides/install', 'café/menu']),
    fileNames: new Set(['.gitbook/assets/logo.png', 'diagram.svg', 'my file.pdf']),
    pageIds: new Set(['pg1']),
    fileIds: new Set(['fl1']),
    ...over,
  });

  it('marks URLs on the service origin as in-app', () => {
    expect(classifyLink('https://docs.example.com/o/x/s/y', ctx())).toBe('in-app');
    expect(classifyLink('https://DOCS.example.com:443/', ctx())).toBe('in-app');
    expect(classifyLink('//docs.example.com/x', ctx())).toBe('in-app');
    expect(classifyLink('http://docs.example.com/x', ctx())).toBe('ok'); // another origin (scheme)
    expect(classifyLink('https://docs.example.com:8443/x', ctx())).toBe('ok'); // another origin (port)
  });

  it('accepts other absolute URLs without checking them', () => {
    for (const url of [
      'https://github.com/x',
      'http://example.org',
      'mailto:a@b.example',
      'tel:+33123456789',
      'ftp://f.example',
      '//cdn.example/x.js',
    ]) {
      expect(classifyLink(url, ctx())).toBe('ok');
    }
  });

  it('accepts anchors and same-page targets', () => {
    expect(classifyLink('#section', ctx())).toBe('ok');
    expect(classifyLink('#', ctx())).toBe('ok');
    expect(classifyLink('', ctx())).toBe('ok');
    expect(classifyLink('?tab=2', ctx())).toBe('ok');
  });

  it('matches relative page links in either git layout, with or without extension or anchor', () => {
    for (const url of [
      '../c.md',
      'c.md',
      'c',
      'c/',
      'c/README.md',
      '../c',
      'c.md#anchor',
      '../c.md#anchor',
      './c.md',
      'd.md',
      'd/README.md',
      'd',
    ]) {
      expect([url, classifyLink(url, ctx())]).toEqual([url, 'ok']);
    }
  });

  it('matches pages above, at the root and from the root page', () => {
    expect(classifyLink('../README.md', ctx())).toBe('ok');
    expect(classifyLink('../../README.md', ctx())).toBe('ok');
    expect(classifyLink('../guides/install.md', ctx())).toBe('ok');
    expect(classifyLink('/guides/install', ctx())).toBe('ok');
    expect(classifyLink('guides/install.md', ctx({ fromPath: '' }))).toBe('ok');
    expect(classifyLink('a/README.md', ctx({ fromPath: '' }))).toBe('ok');
  });

  it('decodes percent-escapes in paths', () => {
    expect(classifyLink('../caf%C3%A9/menu.md', ctx())).toBe('ok');
    expect(classifyLink('my%20file.pdf', ctx())).toBe('ok');
    expect(classifyLink('bad%ZZescape.md', ctx())).toBe('broken');
  });

  it('matches files by path or by bare name', () => {
    expect(classifyLink('../.gitbook/assets/logo.png', ctx())).toBe('ok');
    expect(classifyLink('../../.gitbook/assets/logo.png', ctx())).toBe('ok');
    expect(classifyLink('images/diagram.svg', ctx())).toBe('ok');
    expect(classifyLink('../.gitbook/assets/missing.png', ctx())).toBe('broken');
  });

  it('marks missing targets as broken', () => {
    expect(classifyLink('nothing.md', ctx())).toBe('broken');
    expect(classifyLink('../x/c.md', ctx())).toBe('broken');
    expect(classifyLink('../../../../c.md', ctx())).toBe('broken');
    expect(classifyLink('www.example.com', ctx())).toBe('broken'); // a relative path to a browser too
  });

  it('looks up GitBook content references by id', () => {
    expect(classifyLink('gitbook://page/pg1', ctx())).toBe('ok');
    expect(classifyLink('gitbook://page/pg1#part', ctx())).toBe('ok');
    expect(classifyLink('gitbook://file/fl1', ctx())).toBe('ok');
    expect(classifyLink('gitbook://page/fl1', ctx())).toBe('broken');
    expect(classifyLink('gitbook://file/missing', ctx())).toBe('broken');
    expect(classifyLink('gitbook://page/', ctx())).toBe('broken');
    expect(classifyLink('gitbook://unknown/pg1', ctx())).toBe('broken');
  });

  it('never reports in-app when the public URL is unusable', () => {
    expect(classifyLink('https://docs.example.com/x', ctx({ publicUrl: '' }))).toBe('ok');
  });

  it('classifies what extractLinks finds', () => {
    const page = md(
      'Read [install](../guides/install.md), [c](c.md#x) and [gone](gone.md).',
      '![logo](../.gitbook/assets/logo.png) [app](https://docs.example.com/s/1) [ext](https://example.org)',
    );
    const statuses = extractLinks(page).map((l) => [l.text, classifyLink(l.url, ctx())]);
    expect(statuses).toEqual([
      ['install', 'ok'],
      ['c', 'ok'],
      ['gone', 'broken'],
      ['logo', 'ok'],
      ['app', 'in-app'],
      ['ext', 'ok'],
    ]);
  });
});

describe('splitSections', () => {
  it('splits at headings of any depth, with the intro first', () => {
    const sections = splitSections(
      md(
        'Welcome to the **docs**.',
        '',
        '# Install',
        '',
        'Run `npm i`.',
        '',
        '## On Linux',
        '',
        'Use apt.',
        '',
        '### Notes',
        '',
        '# Usage',
        'Call it.',
      ),
    );
    expect(sections).toEqual([
      { id: '', title: '', depth: 0, body: 'Welcome to the docs.' },
      { id: 'install', title: 'Install', depth: 1, body: 'Run npm i.' },
      { id: 'on-linux', title: 'On Linux', depth: 2, body: 'Use apt.' },
      { id: 'notes', title: 'Notes', depth: 3, body: '' },
      { id: 'usage', title: 'Usage', depth: 1, body: 'Call it.' },
    ]);
  });

  it('skips an intro without text', () => {
    expect(splitSections(md('', '<!-- a comment -->', '', '---', '', '# First', 'Body'))).toEqual([
      { id: 'first', title: 'First', depth: 1, body: 'Body' },
    ]);
  });

  it('gives duplicate titles unique ids', () => {
    const ids = splitSections(md('# Example', '## Example', '## Example', '# Example 1')).map((s) => s.id);
    expect(ids).toEqual(['example', 'example-1', 'example-2', 'example-1-1']);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('reads setext headings and headings with inline code, links, emphasis and images', () => {
    const sections = splitSections(
      md('The `config.ts` [file](f.md) *option*', '====', 'text', '', '## Using ![icon](i.png) `--flag` __now__'),
    );
    expect(sections.map(({ id, title, depth }) => ({ id, title, depth }))).toEqual([
      { id: 'the-configts-file-option', title: 'The config.ts file option', depth: 1 },
      { id: 'using-icon---flag-now', title: 'Using icon --flag now', depth: 2 },
    ]);
  });

  it('uses a GitBook custom anchor as the id', () => {
    const sections = splitSections(md('## Set up <a href="#setup" id="setup"></a>', 'Body'));
    expect(sections).toEqual([{ id: 'setup', title: 'Set up', depth: 2, body: 'Body' }]);
  });

  it('gives plain, whitespace-collapsed bodies for lists, tables, quotes and code', () => {
    const [section] = splitSections(
      md(
        '# Reference',
        '',
        '- first',
        '  - nested **bold**',
        '    1. deeper',
        '',
        '| Key | Value |',
        '| --- | ----- |',
        '| `a` | [one](1.md) |',
        '',
        '> quoted',
        '> line',
        '',
        '```js',
        'const x =   1;',
        '```',
        '',
        'Hard  ',
        'break and ~~gone~~.',
        '',
        '[ref]: https://x.example',
      ),
    );
    expect(section.body).toBe('first nested bold deeper Key Value a one quoted line const x = 1; Hard break and gone.');
  });

  it('does not split at headings inside block quotes or lists', () => {
    expect(splitSections(md('# Top', '> # quoted heading', '- # listed heading')).map((s) => s.title)).toEqual(['Top']);
  });

  it('ignores # inside code blocks', () => {
    expect(splitSections(md('# Shell', '```sh', '# a comment', 'ls', '```')).map((s) => [s.title, s.body])).toEqual([
      ['Shell', '# a comment ls'],
    ]);
  });

  it('handles empty documents, empty headings and unicode', () => {
    expect(splitSections('')).toEqual([]);
    expect(splitSections('\n  \n')).toEqual([]);
    expect(splitSections(md('#', 'text'))).toEqual([{ id: '-1', title: '', depth: 1, body: 'text' }]);
    expect(splitSections(md('## Über uns 🚀', 'Größe')).at(0)).toEqual({ id: 'über-uns-', title: 'Über uns 🚀', depth: 2, body: 'Größe' });
    expect(splitSections('# 日本語の見出し').at(0)?.id).toBe('日本語の見出し');
  });

  it('leaves front matter out', () => {
    expect(splitSections(md('---', 'description: Short', '---', '', 'Intro'))).toEqual([{ id: '', title: '', depth: 0, body: 'Intro' }]);
    expect(splitSections(md('---', 'description: Short', 'layout:', '  cover: true', '...', '# Title'))).toEqual([
      { id: 'title', title: 'Title', depth: 1, body: '' },
    ]);
  });

  it('does not take a leading thematic break for front matter', () => {
    expect(splitSections(md('---', '', '# Title', 'text', '', '---', '', 'more'))).toEqual([
      { id: 'title', title: 'Title', depth: 1, body: 'text more' },
    ]);
  });
});

describe('plainText', () => {
  it("leaves out GitBook's block tags, but not tags quoted as code", () => {
    const text = plainText(
      md('{% tabs %}', '{% tab title="macOS" %}', 'Use brew.', '{% endtab %}', '{% endtabs %}', '', 'Write `{% hint %}` to open a hint.'),
    );
    expect(text).toBe('Use brew. Write {% hint %} to open a hint.');
  });

  it('drops markdown syntax and keeps visible text', () => {
    expect(
      plainText(
        md(
          '# Title',
          '',
          'Some *emphasis*, **strong**, `code`, [a link](x.md) and ![alt text](i.png).',
          '',
          '1. one',
          '2. two',
          '',
          '- [x] done',
          '- [ ] todo',
        ),
      ),
    ).toBe('Title Some emphasis, strong, code, a link and alt text. one two done todo');
  });

  it('keeps words of adjacent blocks apart and joins inline runs', () => {
    expect(plainText(md('para', 'graph', '', 'next'))).toBe('para graph next');
    expect(plainText('foo**bar**baz')).toBe('foobarbaz');
    expect(plainText(md('| a | b |', '|---|---|', '| c | d |'))).toBe('a b c d');
  });

  it('leaves out raw HTML tags, definitions and footnote markers', () => {
    expect(plainText(md('Press <kbd>Ctrl</kbd> now[^n].', '', '[^n]: The note.', '', '[d]: https://x.example'))).toBe(
      'Press Ctrl now. The note.',
    );
  });

  it('keeps escaped characters and entities as text', () => {
    expect(plainText('\\*not emphasis\\* &amp; &copy; 5 &lt; 6')).toBe('*not emphasis* & © 5 < 6');
  });

  it('is empty for an empty document', () => {
    expect(plainText('')).toBe('');
    expect(plainText('---\n\n***')).toBe('');
  });
});

describe('snippet', () => {
  const long = `${'Lorem ipsum dolor sit amet. '.repeat(12)}The Needle is here. ${'Consectetur adipiscing elit. '.repeat(12)}`.trim();

  it('returns short bodies whole, whitespace-collapsed', () => {
    expect(snippet('  short   text\n here ', ['text'])).toBe('short text here');
    expect(snippet('', ['x'])).toBe('');
  });

  it('cuts around the first match, case-insensitively, with ellipses', () => {
    const out = snippet(long, ['needle'], 80);
    expect(out.length).toBeLessThanOrEqual(80);
    expect(out.startsWith('…')).toBe(true);
    expect(out.endsWith('…')).toBe(true);
    expect(out).toContain('The Needle is here.');
  });

  it('cuts between words', () => {
    const out = snippet(long, ['needle'], 80);
    const inner = out.slice(1, -1);
    expect(long.includes(inner)).toBe(true);
    const at = long.indexOf(inner);
    expect(at === 0 || long[at - 1] === ' ').toBe(true);
    expect(at + inner.length === long.length || long[at + inner.length] === ' ').toBe(true);
  });

  it('uses the earliest match of any term', () => {
    const body = `alpha ${'x '.repeat(100)}beta ${'y '.repeat(100)}gamma`;
    expect(snippet(body, ['gamma', 'beta'], 40)).toContain('beta');
    expect(snippet(body, ['gamma', 'beta'], 40)).not.toContain('gamma');
  });

  it('starts at the beginning when the match is near it or there is none', () => {
    const out = snippet(long, ['lorem'], 50);
    expect(out.startsWith('Lorem')).toBe(true);
    expect(out.endsWith('…')).toBe(true);
    expect(snippet(long, ['absent'], 50).startsWith('Lorem')).toBe(true);
    expect(snippet(long, [], 50).startsWith('Lorem')).toBe(true);
    expect(snippet(long, ['  ', ''], 50).startsWith('Lorem')).toBe(true);
  });

  it('ends at the end when the match is near it', () => {
    const out = snippet(`${long} Final words.`, ['final'], 50);
    expect(out.startsWith('…')).toBe(true);
    expect(out.endsWith('elit. Final words.')).toBe(true);
    expect(out.length).toBeLessThanOrEqual(50);
  });

  it('treats terms literally, including regular-expression characters', () => {
    const body = `${'word '.repeat(50)}call f(x) [0].* here ${'word '.repeat(50)}`;
    expect(snippet(body, ['f(x) [0].*'], 40)).toContain('f(x) [0].*');
  });

  it('matches unicode case-insensitively and never splits a surrogate pair', () => {
    const body = `${'😀'.repeat(100)} ÉCOLE ${'😀'.repeat(100)}`;
    const out = snippet(body, ['école'], 30);
    expect(out).toContain('ÉCOLE');
    expect(out.length).toBeLessThanOrEqual(30);
    expect(out).toBe(out.normalize());
    expect(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(out)).toBe(false);
  });

  it('uses 200 characters by default', () => {
    expect(snippet(long, ['needle']).length).toBeLessThanOrEqual(200);
    expect(snippet(long, ['needle']).length).toBeGreaterThan(150);
  });

  it('always stays within max and contains a match that fits', () => {
    const word = fc.stringMatching(/^[a-zA-Z]{1,12}$/);
    fc.assert(
      fc.property(fc.array(word, { minLength: 1, maxLength: 120 }), fc.nat(), fc.integer({ min: 20, max: 120 }), (words, pick, max) => {
        const body = words.join(' ');
        const term = words[pick % words.length];
        const out = snippet(body, [term], max);
        if (out.length > max) return false;
        return out.toLowerCase().includes(term.toLowerCase());
      }),
    );
  });
});

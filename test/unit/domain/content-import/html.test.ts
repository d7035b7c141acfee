import { describe, expect, it } from '@jest/globals';
import { htmlToMarkdown } from '../../../../src/domain/content-import/html.ts';

describe('htmlToMarkdown', () => {
  it('converts through unified: headings, emphasis, lists, tables and code', () => {
    const out = htmlToMarkdown(
      '<h1>Title</h1><h2>Part</h2><p>Some <strong>bold</strong>, <em>italic</em> and <code>code</code>.</p><ul><li>one</li><li>two</li></ul>' +
        '<table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr></table><pre><code class="language-js">let x = 1;</code></pre>',
    );
    expect(out.title).toBe('Title');
    expect(out.body).toBe(
      '## Part\n\nSome **bold**, _italic_ and `code`.\n\n- one\n- two\n\n| a | b |\n| - | - |\n| 1 | 2 |\n\n```js\nlet x = 1;\n```\n',
    );
    expect(out.markdown).toBe(`# Title\n\n${out.body}`);
  });

  it('keeps the main content of a web page and drops scripts, navigation and chrome', () => {
    const out = htmlToMarkdown(
      '<html><head><title>Doc | Site</title><style>p{}</style></head><body><header>Logo</header><nav><a href="/x">Nav</a></nav>' +
        '<main><p>Body text</p><aside>Related</aside><script>alert(1)</script></main><footer>Footer</footer></body></html>',
      { mainContent: true },
    );
    expect(out.title).toBe('Doc | Site');
    expect(out.body).toBe('Body text\n');
    expect(out.links).toEqual([]);
  });

  it('resolves links and images against the page URL (and <base>), drops javascript: links', () => {
    const out = htmlToMarkdown(
      '<p><a href="b.html#x">b</a> <a href="/root">r</a> <a href="javascript:alert(1)">js</a> <img src="img/a.png" alt="A"></p>',
      { baseUrl: 'https://docs.example.com/guide/a.html' },
    );
    expect(out.links).toEqual(['https://docs.example.com/guide/b.html#x', 'https://docs.example.com/root']);
    expect(out.images).toEqual(['https://docs.example.com/guide/img/a.png']);
    expect(out.body).toContain('[b](https://docs.example.com/guide/b.html#x)');
    expect(out.body).toContain('![A](https://docs.example.com/guide/img/a.png)');
    expect(out.body).not.toContain('javascript');
    const based = htmlToMarkdown('<head><base href="/other/"></head><a href="c">c</a>', { baseUrl: 'https://h.example/x/y' });
    expect(based.links).toEqual(['https://h.example/other/c']);
  });

  it('lets the caller rewrite targets', () => {
    const out = htmlToMarkdown('<p><img src="media/1.png" alt="one"><a href="x">x</a></p>', {
      rewrite: (url, kind) => (kind === 'image' ? `files/${url}` : null),
    });
    expect(out.body).toBe('![one](files/media/1.png)[x](x)\n');
  });

  it('gives no title and no markdown for an empty document', () => {
    expect(htmlToMarkdown('')).toEqual({ title: null, markdown: '', body: '', links: [], images: [] });
  });
});

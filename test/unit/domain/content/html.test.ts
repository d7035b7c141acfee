import { describe, expect, it } from '@jest/globals';
import type { Element, Root } from 'hast';
import rehypeStringify from 'rehype-stringify';
import { unified } from 'unified';
import {
  imageSources,
  markdownToHtml,
  markdownToSafeTree,
  printDocumentHtml,
  sanitizeTree,
  selectPrintPages,
} from '../../../../src/domain/content/html.ts';
import type { PageMap, PageNode } from '../../../../src/domain/content/tree.ts';

const md = (...lines: string[]) => lines.join('\n');

describe('markdownToHtml: sanitization', () => {
  it('removes script elements, whatever their form', () => {
    const html = markdownToHtml(
      md('<script>alert(1)</script>', '', 'Text <script src="https://evil.example/x.js"></script> after', '', '<SCRIPT>alert(2)</SCRIPT>'),
    );
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toContain('evil.example');
    expect(html).toContain('after');
  });

  it('removes javascript:, vbscript:, data: and file: link and image targets but keeps the text', () => {
    const html = markdownToHtml(
      md(
        '[one](javascript:alert(1)) [two](JaVaScRiPt:alert(2)) [three](vbscript:msgbox) [four](data:text/html,<b>x</b>) [five](file:///etc/passwd)',
        '',
        '[ref][r] ![img](javascript:alert(3))',
        '',
        '[r]: javascript:alert(4)',
      ),
    );
    expect(html).not.toMatch(/javascript:|vbscript:|data:|file:/i);
    for (const word of ['one', 'two', 'three', 'four', 'five', 'ref']) expect(html).toContain(`<a>${word}</a>`);
  });

  it('removes on* handlers, style, iframes, forms and other raw HTML', () => {
    const html = markdownToHtml(
      md(
        '<a href="https://x.example" onclick="steal()">raw link</a>',
        '',
        '<img src="x.png" onerror="steal()">',
        '',
        '<div style="background:url(https://track.example)" onmouseover="steal()">div</div>',
        '',
        '<iframe src="https://evil.example"></iframe>',
        '',
        '<form action="https://evil.example"><input name="q"></form>',
        '',
        '<style>body { background: url(https://track.example) }</style>',
        '',
        '<svg><script>alert(1)</script></svg>',
      ),
    );
    expect(html).not.toMatch(/\son[a-z]+=/i);
    expect(html).not.toMatch(/<(iframe|form|style|svg|script|object|embed)/i);
    expect(html).not.toMatch(/style=/i);
    expect(html).not.toContain('track.example');
    expect(html).not.toContain('evil.example');
  });

  const toHtml = (tree: Root) => unified().use(rehypeStringify).stringify(tree);

  it('cleans an HTML tree: scripts, handlers, styles and unsafe URLs go, the rest stays', () => {
    const el = (tagName: string, properties: Element['properties'], children: Element['children'] = []): Element => ({
      type: 'element',
      tagName,
      properties,
      children,
    });
    const tree: Root = {
      type: 'root',
      children: [
        el('script', {}, [{ type: 'text', value: 'alert(1)' }]),
        el('p', { onClick: 'steal()', onMouseOver: 'steal()', style: 'color:red', className: ['x'] }, [
          el('a', { href: 'javascript:alert(1)', onFocus: 'steal()' }, [{ type: 'text', value: 'js' }]),
          el('a', { href: 'https://ok.example/', target: '_blank' }, [{ type: 'text', value: 'ok' }]),
          el('img', { src: 'https://img.example/a.png', alt: 'a', onError: 'steal()' }),
          el('iframe', { src: 'https://evil.example' }),
        ]),
        el('style', {}, [{ type: 'text', value: 'body{}' }]),
        el('h2', { id: 'part' }, [{ type: 'text', value: 'Part' }]),
      ],
    };
    expect(toHtml(sanitizeTree(tree))).toBe(
      '<p><a>js</a><a href="https://ok.example/">ok</a><img src="https://img.example/a.png" alt="a"></p>body{}<h2 id="user-content-part">Part</h2>',
    );
    expect(toHtml(tree)).toContain('onclick');
  });

  it('escapes text that looks like markup', () => {
    expect(markdownToHtml('A `<b onclick="x">` and 1 < 2 & 3')).toBe('<p>A <code>&#x3C;b onclick="x"></code> and 1 &#x3C; 2 &#x26; 3</p>');
  });
});

describe('markdownToHtml: structure kept', () => {
  it('keeps headings, emphasis, links and lists', () => {
    const html = markdownToHtml(
      md(
        '# Guide',
        '',
        '## Install',
        '',
        'Some *emphasis*, **strong**, ~~gone~~ and [a link](https://docs.example/x "Title").',
        '',
        '- one',
        '- two',
        '  1. nested',
        '',
        'Tasks:',
        '',
        '* [x] done',
        '* [ ] todo',
      ),
    );
    expect(html).toContain('<h1>Guide</h1>');
    expect(html).toContain('<h2>Install</h2>');
    expect(html).toContain('<em>emphasis</em>');
    expect(html).toContain('<strong>strong</strong>');
    expect(html).toContain('<del>gone</del>');
    expect(html).toContain('<a href="https://docs.example/x" title="Title">a link</a>');
    expect(html).toMatch(/<ul>\s*<li>one<\/li>\s*<li>two\s*<ol>\s*<li>nested<\/li>\s*<\/ol>\s*<\/li>\s*<\/ul>/);
    expect(html).toContain('<input type="checkbox" checked disabled> done');
    expect(html).toContain('<input type="checkbox" disabled> todo');
  });

  it('keeps code blocks with their language, and inline code', () => {
    const html = markdownToHtml(md('Run `npm test`.', '', '```ts', 'const a: number = 1 < 2 ? 1 : 2;', '```'));
    expect(html).toContain('<code>npm test</code>');
    expect(html).toContain('<pre><code class="language-ts">const a: number = 1 &#x3C; 2 ? 1 : 2;\n</code></pre>');
  });

  it('keeps tables with their alignment', () => {
    const html = markdownToHtml(md('| Name | Size |', '|:-----|-----:|', '| a | 1 |'));
    expect(html).toMatch(/<table>\s*<thead>\s*<tr>\s*<th align="left">Name<\/th>\s*<th align="right">Size<\/th>/);
    expect(html).toMatch(/<tbody>\s*<tr>\s*<td align="left">a<\/td>\s*<td align="right">1<\/td>/);
  });

  it('links footnote references to their notes', () => {
    const html = markdownToHtml(md('Text[^n].', '', '[^n]: The note.'));
    const ref = /<a href="#([^"]+)" id="([^"]+)"[^>]*data-footnote-ref/.exec(html);
    expect(ref).not.toBeNull();
    expect(html).toContain(`<li id="${ref![1]}">`);
    expect(html).toContain(`href="#${ref![2]}"`);
  });

  it('skips front matter', () => {
    expect(markdownToHtml(md('---', 'description: x', '---', '', 'Body'))).toBe('<p>Body</p>');
  });
});

describe('images', () => {
  const markdown = md(
    '![Logo](.gitbook/assets/logo.png) ![Remote](https://img.example/a.png) ![Local](missing.png) ![](https://img.example/b.png)',
  );

  it('lists the sources as they appear after sanitization', () => {
    expect(imageSources(markdownToSafeTree(markdown + ' ![x](javascript:alert(1)) ![dup](.gitbook/assets/logo.png)'))).toEqual([
      '.gitbook/assets/logo.png',
      'https://img.example/a.png',
      'missing.png',
      'https://img.example/b.png',
    ]);
  });

  it('inlines what the resolver gives and turns other images into links or text', () => {
    const html = markdownToHtml(markdown, {
      image: (src) => (src === '.gitbook/assets/logo.png' ? 'data:image/png;base64,iVBORw0KGgo=' : null),
    });
    expect(html).toContain('<img src="data:image/png;base64,iVBORw0KGgo=" alt="Logo">');
    expect(html).toContain('<a href="https://img.example/a.png" class="missing-image">[image: Remote]</a>');
    expect(html).toContain('<span class="missing-image">[image: Local]</span>');
    expect(html).toContain('<a href="https://img.example/b.png" class="missing-image">[image]</a>');
    expect(html).not.toContain('<img src="http');
  });

  it('accepts only data:image URIs from the resolver', () => {
    const html = markdownToHtml('![x](a.png)', { image: () => 'https://tracker.example/pixel.png' });
    expect(html).toBe('<p><span class="missing-image">[image: x]</span></p>');
  });
});

function page(id: string, parentId: string | null, position: string, extra: Partial<PageNode> = {}): PageNode {
  return { id, parentId, position, type: 'document', title: id.toUpperCase(), slug: id, markdown: `Body of ${id}`, ...extra };
}

describe('selectPrintPages', () => {
  const map: PageMap = {
    b: page('b', null, 'b'),
    a: page('a', null, 'a'),
    a2: page('a2', 'a', 'b'),
    a1: page('a1', 'a', 'a'),
    a1x: page('a1x', 'a1', 'a'),
    h: page('h', null, 'c', { hidden: true }),
    hc: page('hc', 'h', 'a'),
    a3: page('a3', 'a', 'c', { hidden: true }),
  };
  const ids = (pages: { page: PageNode; depth: number }[] | null) => pages?.map((p) => `${p.page.id}:${p.depth}`);

  it('prints the whole content depth first in tree order, without hidden pages and what is under them', () => {
    expect(ids(selectPrintPages(map, {}))).toEqual(['a:0', 'a1:1', 'a1x:2', 'a2:1', 'b:0']);
  });

  it('prints a page with the pages under it', () => {
    expect(ids(selectPrintPages(map, { pageId: 'a1' }))).toEqual(['a1:0', 'a1x:1']);
    expect(ids(selectPrintPages(map, { pageId: 'a', only: false }))).toEqual(['a:0', 'a1:1', 'a1x:2', 'a2:1']);
  });

  it('prints one page alone with only, even a hidden one', () => {
    expect(ids(selectPrintPages(map, { pageId: 'a', only: true }))).toEqual(['a:0']);
    expect(ids(selectPrintPages(map, { pageId: 'h', only: true }))).toEqual(['h:0']);
    expect(ids(selectPrintPages(map, { pageId: 'h' }))).toEqual(['h:0', 'hc:1']);
  });

  it('answers null for an unknown page, including inherited property names', () => {
    expect(selectPrintPages(map, { pageId: 'nope' })).toBeNull();
    expect(selectPrintPages(map, { pageId: 'constructor', only: true })).toBeNull();
  });

  it('survives a cycle under the page asked for', () => {
    const cyclic: PageMap = { x: page('x', 'y', 'a'), y: page('y', 'x', 'a') };
    expect(ids(selectPrintPages(cyclic, { pageId: 'x' }))).toEqual(['x:0', 'y:1']);
    expect(selectPrintPages(cyclic, {})).toEqual([]);
  });
});

describe('printDocumentHtml', () => {
  it('builds one section per page with escaped titles, a page break rule, a policy that loads nothing and a stylesheet', () => {
    const html = printDocumentHtml({
      title: 'Release <notes> & more',
      subtitle: 'Docs · Change request #3: "Release"',
      pages: [
        {
          depth: 0,
          page: page('a', null, 'a', {
            title: '<img src=x onerror=alert(1)>',
            description: 'About <this>',
            markdown: '# Hello\n\n<script>x()</script>',
          }),
        },
        { depth: 1, page: page('g', null, 'b', { type: 'group', title: 'Group', markdown: 'ignored' }) },
        { depth: 0, page: page('l', null, 'c', { type: 'link', title: 'Out', href: 'https://example.com/x', markdown: '' }) },
        { depth: 0, page: page('j', null, 'd', { type: 'link', title: 'Bad', href: 'javascript:alert(1)', markdown: '' }) },
      ],
    });
    expect(html.startsWith('<!doctype html><html><head><meta charset="utf-8">')).toBe(true);
    expect(html).toContain('<meta http-equiv="Content-Security-Policy" content="default-src &#x27;none&#x27;; img-src data:;');
    expect(html).toContain('<title>Release &#x3C;notes> &#x26; more</title>');
    expect(html).toContain('.page + .page { break-before: page; }');
    expect(html).toContain('<div class="document-header">Docs · Change request #3: "Release"</div>');
    expect(html).toContain('<h1 class="page-title">&#x3C;img src=x onerror=alert(1)></h1>');
    expect(html).toContain('<p class="page-description">About &#x3C;this></p>');
    expect(html).toContain('<div class="page-body"><h1>Hello</h1>');
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toContain('ignored');
    expect(html).toContain('<p class="page-link"><a href="https://example.com/x">https://example.com/x</a></p>');
    expect(html).toContain('<p class="page-link"><a>javascript:alert(1)</a></p>');
    expect(html.match(/<section class="page/g)).toHaveLength(4);
  });

  it('keeps the anchors of each page apart', () => {
    const note = { markdown: 'Text[^1].\n\n[^1]: Note.' };
    const html = printDocumentHtml({
      title: 't',
      pages: [
        { depth: 0, page: page('a', null, 'a', note) },
        { depth: 0, page: page('b', null, 'b', note) },
      ],
    });
    const ids = [...html.matchAll(/ id="([^"]+)"/g)].map((m) => m[1]);
    expect(new Set(ids).size).toBe(ids.length);
    for (const [, target] of html.matchAll(/href="#([^"]+)"/g)) expect(ids).toContain(target);
  });

  it('prints a page from the tree it is given, and parses the pages that have none', () => {
    const pages = [
      { depth: 0, page: page('a', null, 'a', { markdown: 'From the markdown of a' }) },
      { depth: 0, page: page('b', null, 'b', { markdown: 'From the markdown of b' }) },
    ];
    const given = markdownToSafeTree('Parsed before [^1]\n\n[^1]: A note.');
    const html = printDocumentHtml({ title: 't', pages }, { trees: new Map([['a', given]]) });
    expect(html).toContain('Parsed before');
    expect(html).not.toContain('From the markdown of a');
    expect(html).toContain('From the markdown of b');
    // The given tree goes through the same steps as a parsed one: its anchors are scoped to its page.
    expect(html).toMatch(/id="p0-/);
  });
});

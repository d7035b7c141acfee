import { describe, expect, it } from '@jest/globals';
import remarkParse from 'remark-parse';
import { unified } from 'unified';
import { visit } from 'unist-util-visit';
import { htmlToMarkdown, isSafeUrl } from '../../../../src/domain/content-import/html.ts';

/** Every link, image and definition URL a markdown reader finds in the converted markdown. */
function urlsOf(markdown: string): string[] {
  const urls: string[] = [];
  visit(unified().use(remarkParse).parse(markdown), (node) => {
    if ('url' in node && typeof node.url === 'string') urls.push(node.url);
  });
  return urls;
}

/** Hostile targets, as pages in the wild (and probes) write them. */
const HOSTILE = [
  'javascript:alert(1)',
  'JaVaScRiPt:alert(1)',
  ' javascript:alert(1)',
  'java&#x09;script:alert(1)',
  'java&#10;script:alert(1)',
  '&#1;javascript:alert(1)',
  'javascript&colon;alert(1)',
  'vbscript:msgbox(1)',
  'VBScript:msgbox(1)',
  'data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==',
  'data:image/svg+xml,<svg onload=alert(1)>',
  'file:///etc/passwd',
];

describe('htmlToMarkdown and hostile URLs', () => {
  it.each([undefined, 'https://docs.example.com/guide/a.html'])(
    'keeps the text of links to other schemes and drops such images (base %s)',
    (baseUrl) => {
      const html = HOSTILE.map(
        (url, i) =>
          `<p><a href="${url}">link ${i}</a> <img src="${url}" alt="image ${i}"> <video src="${url}" poster="${url}">video ${i}</video></p>`,
      ).join('');
      const out = htmlToMarkdown(
        `<html><body><main><h1>Page</h1>${html}<input type="image" src="javascript:alert(2)"></main></body></html>`,
        {
          ...(baseUrl ? { baseUrl } : {}),
          mainContent: true,
        },
      );
      for (let i = 0; i < HOSTILE.length; i++) expect(out.body).toContain(`link ${i}`);
      expect(out.body).not.toMatch(/javascript|vbscript|data:|file:|image \d/i);
      expect(urlsOf(out.markdown)).toEqual([]);
      expect(out.links).toEqual([]);
      expect(out.images).toEqual([]);
    },
  );

  it('keeps http(s), mailto, relative, protocol-relative and fragment links, and a safe image inside an unsafe link', () => {
    const out = htmlToMarkdown(
      '<p><a href="https://a.example/x">a</a> <a href="HTTP://b.example/">b</a> <a href="mailto:me@example.com">m</a> ' +
        '<a href="guide/b.html">r</a> <a href="/root">s</a> <a href="//cdn.example/x">p</a> <a href="#top">f</a> ' +
        '<a href="javascript:void(0)"><img src="logo.png" alt="logo"></a></p>',
    );
    expect(urlsOf(out.markdown)).toEqual([
      'https://a.example/x',
      'HTTP://b.example/',
      'mailto:me@example.com',
      'guide/b.html',
      '/root',
      '//cdn.example/x',
      '#top',
      'logo.png',
    ]);
  });

  it('isSafeUrl reads the scheme as a browser would', () => {
    for (const url of HOSTILE)
      expect([url, isSafeUrl(url.replace('&#x09;', '\t').replace('&#10;', '\n').replace('&#1;', '\u0001'))]).toEqual([url, false]);
    for (const url of HOSTILE) expect([url, isSafeUrl(url)]).toEqual([url, false]);
    for (const url of ['https://x.example', 'mailto:a@b.c', 'a/b:c', './c:d', '#x', '', '?q=1', '//h.example/p']) {
      expect([url, isSafeUrl(url)]).toEqual([url, true]);
    }
  });
});

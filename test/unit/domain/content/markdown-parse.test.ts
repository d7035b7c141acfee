import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import type { Link, Nodes } from 'mdast';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import { unified } from 'unified';
import type { Construct, Extension } from 'micromark-util-types';
import {
  blankFrontMatter,
  EVERY_GFM_CONSTRUCT,
  gfmConstructsOf,
  parseMarkdown,
  remarkGfmFor,
} from '../../../../src/domain/content/markdown-parse.ts';

/** remark-gfm as it comes: every autolink literal kind tried on every document. */
const reference = unified().use(remarkParse).use(remarkGfm).freeze();
const parseReference = (markdown: string) => reference.parse(blankFrontMatter(markdown));

function links(node: Nodes): string[] {
  const own = node.type === 'link' ? [(node as Link).url] : [];
  return 'children' in node ? [...own, ...(node.children as Nodes[]).flatMap(links)] : own;
}

/** Pieces of markdown near the autolink literals' edges: markers, near-markers, brackets, emphasis, code. */
const FRAGMENTS = [
  'word',
  'w',
  'ww',
  'www',
  'wWw.',
  'www.',
  'example.com',
  '.org',
  '/path_a_b_',
  '?q=1',
  'h',
  'http',
  'http:',
  'https:/',
  'HTTPS://',
  'http://',
  'team',
  '@',
  '\\@',
  '&#64;',
  'mailto:',
  'xmpp:',
  '+',
  '-',
  '_',
  '.',
  ' ',
  '\n',
  '\n\n',
  '\t',
  '(',
  ')',
  '[',
  ']',
  '](',
  '![',
  '<',
  '>',
  '*',
  '**',
  '~',
  '~~',
  '`',
  '[^1]',
  '[^1]: note',
  '- ',
  '- [ ] ',
  '> ',
  '| a | b |\n| - | - |\n| ',
  '|',
  ':',
  ':-',
  '-:',
  '\n-',
  '\n:-',
  '\n|-',
  '\n---\n',
  '# ',
  '    ',
  '```\n',
];
const arbDocument = fc.array(fc.constantFrom(...FRAGMENTS), { maxLength: 50 }).map((parts) => parts.join(''));

/** The names of the micromark constructs `remarkGfmFor(kinds)` registers. */
function constructNames(kinds: number): Set<string> {
  const extensions = (unified().use(remarkGfmFor, kinds).freeze().data().micromarkExtensions ?? []) as Extension[];
  const names = new Set<string>();
  for (const extension of extensions) {
    for (const record of Object.values(extension)) {
      for (const value of Object.values((record ?? {}) as Record<string, Construct | Construct[]>)) {
        for (const construct of Array.isArray(value) ? value : [value]) if (construct?.name) names.add(construct.name);
      }
    }
  }
  return names;
}

describe('parseMarkdown', () => {
  it("leaves out remark-gfm's own constructs by their names (a renamed one would no longer be left out)", () => {
    const optional = ['emailAutolink', 'wwwAutolink', 'protocolAutolink', 'table'];
    const every = constructNames(EVERY_GFM_CONSTRUCT);
    const none = constructNames(0);
    for (const name of optional) {
      expect(every.has(name)).toBe(true);
      expect(none.has(name)).toBe(false);
    }
    expect([...none].sort()).toEqual([...every].filter((name) => !optional.includes(name)).sort());
  });

  it('knows which optional constructs a document has the markers of', () => {
    expect(gfmConstructsOf('plain words only: a list - of things')).toBe(0);
    expect(gfmConstructsOf('write to a@b.example')).toBe(0b0001);
    expect(gfmConstructsOf('see WWW.example.com')).toBe(0b0010);
    expect(gfmConstructsOf('see Https://example.com')).toBe(0b0100);
    expect(gfmConstructsOf('www. and http:// and @')).toBe(0b0111);
    expect(gfmConstructsOf('ww.example.com, http:/x, wwwexample')).toBe(0);
    expect(gfmConstructsOf('a | b\n--|--')).toBe(0b1000);
    expect(gfmConstructsOf('a\n:-')).toBe(0b1000);
    expect(gfmConstructsOf('> - a\n>   | - |')).toBe(0b1000);
    expect(gfmConstructsOf('Heading\n---\n\ntext | pipe')).toBe(0);
  });

  it('still reads a table without pipes, and one in a list in a quote', () => {
    expect(parseMarkdown('a\n:-').children.map((c) => c.type)).toEqual(['table']);
    const quoted = parseMarkdown('> - | a | b |\n>   | - | - |\n>   | c | d |').children[0];
    expect(JSON.stringify(quoted)).toContain('"type":"table"');
  });

  it('still turns each kind of autolink literal into a link when it is the only one in the document', () => {
    expect(links(parseMarkdown('Write to team@example.com today.'))).toEqual(['mailto:team@example.com']);
    expect(links(parseMarkdown('Go to WWW.example.com/a_b_c now.'))).toEqual(['http://WWW.example.com/a_b_c']);
    expect(links(parseMarkdown('Open HTTPS://example.com/x?y=1.'))).toEqual(['HTTPS://example.com/x?y=1']);
  });

  it('gives the same tree as GFM with every construct, markers or not', () => {
    fc.assert(
      fc.property(arbDocument, (markdown) => {
        expect(parseMarkdown(markdown)).toEqual(parseReference(markdown));
      }),
      { numRuns: 400 },
    );
  });

  it('gives the same tree as GFM on prose with links, code and emphasis around the markers', () => {
    const doc = [
      '---',
      'description: front matter',
      '---',
      '# Title with `www.inline.code` and *emphasis*',
      '',
      'A [link](https://example.com/a_b) and ![an image](https://example.com/i.png), <https://auto.example>.',
      'Words with_underscores_ and **strong www** text; ww.not.a.link and http:/not.one either.',
      '',
      '```',
      'www.in.code https://in.code a@in.code',
      '```',
      '',
      '> quoted wiki.example.org [unbalanced ( link',
      '',
      '| a | b |',
      '| - | - |',
      '| c | d~~e~~ |',
      '',
      '- [ ] task [^1]',
      '',
      '[^1]: a footnote &#64; home',
    ].join('\n');
    for (const variant of [doc, `${doc}\nnow www.example.com`, `${doc}\nnow a@b.example`, `${doc}\nnow http://x.example`]) {
      expect(parseMarkdown(variant)).toEqual(parseReference(variant));
    }
  });
});

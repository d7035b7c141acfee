import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { toString } from 'mdast-util-to-string';
import { parse as parseYaml } from 'yaml';
import { documentMetadata, MAX_FRONT_MATTER, MAX_TITLE_SOURCE, METADATA_SCAN_LIMIT } from '../../../../src/domain/content/operations.ts';
import { htmlBlockEnd, leadingHeadingSource } from '../../../../src/domain/content/leading-block.ts';
import { parseMarkdown } from '../../../../src/domain/content/markdown-parse.ts';

/** documentMetadata as it was before its reading was bounded: the whole document parsed. The reference. */
function wholeDocumentMetadata(markdown: string): { title?: string; description?: string; emoji?: string } {
  const out: { title?: string; description?: string; emoji?: string } = {};
  const fm = /^---\r?\n([\s\S]*?)\r?\n---(\r?\n|$)/.exec(markdown);
  if (fm) {
    try {
      const data = parseYaml(fm[1]);
      if (data && typeof data === 'object') {
        const d = data as Record<string, unknown>;
        if (typeof d.title === 'string' && d.title.trim()) out.title = d.title.trim();
        if (typeof d.description === 'string') out.description = d.description;
        if (typeof d.icon === 'string') out.emoji = d.icon;
      }
    } catch {
      // not front matter after all
    }
  }
  if (!out.title) {
    const first = parseMarkdown(markdown).children.find((n) => n.type !== 'yaml' && n.type !== 'html');
    const text = first?.type === 'heading' && first.depth === 1 ? toString(first).trim() : '';
    if (text) out.title = text;
  }
  return out;
}

const FRAGMENTS = [
  // front matter and what looks like it
  '---\ntitle: From YAML\ndescription: About\nicon: book\n---\n',
  '---\ndescription: Only a description\n---\n',
  '---\n\n',
  '---\ntitle: unclosed\n',
  '...\n',
  // raw HTML blocks of every kind, and lines that only look like one
  '<!-- a comment -->\n',
  '<!--\nspanning\n\nlines\n-->\n',
  '<!-->\n',
  '<!--- x --->\n',
  '<!-- a -- b -- > c -->\n',
  '<div>\n<p>x</p>\n</div>\n',
  '<div class="note">\n',
  '<DIV/>\n',
  '</section>\n',
  '<script>\nvar a = "<b>";\n\nvar b;\n</script>\n',
  '<style type="text/css">p { color: red }</style> trailing\n',
  '<pre>\n# not a heading\n</pre>\n',
  '<textarea>\n</textarea>\n',
  '<?php echo 1; ?>\n',
  '<?\n?>\n',
  '<!DOCTYPE html>\n',
  '<![CDATA[ x ]] ]]>\n',
  '<a href="x" title=\'y\' data-z=w>\n',
  '<img src=x.png alt=a=b />\n',
  '<custom-el flag>\n',
  '<x-y a="unterminated\n',
  '<span>inline</span> text\n',
  '<a href="x">link</a>\n',
  '</a>\n',
  '<a\n',
  '<\n',
  '< div>\n',
  '<1>\n',
  '   <!-- indented -->\n',
  '    <!-- code -->\n',
  // headings and what looks like them
  '# Leading heading\n',
  '# Closed heading ##\n',
  '#NoSpace\n',
  '## Second level\n',
  '   # Three spaces\n',
  '    # Four spaces\n',
  '\t# Tab\n',
  'Setext title\n===\n',
  'Two line\nsetext title\n=======   \n',
  'Setext two\n---\n',
  'Not underlined\n    ===\n',
  '# *Emphasis* and `code` and [a link](./x.md)\n',
  '# [Reference][ref] title\n',
  '# [Shortcut] title\n',
  '# Footnoted[^1]\n',
  '# ![alt text][img]\n',
  '#\n',
  // other first blocks
  'A paragraph of text.\n',
  '- list item\n',
  '> # quoted heading\n',
  '```\n# fenced\n```\n',
  '| a | b |\n| --- | --- |\n',
  '***\n',
  '===\n',
  // blank lines
  '\n',
  '  \n',
  '\t\n',
];

/**
 * Definitions the headings above refer to; documents end with some of them, after a blank line.
 * (Definition-like lines elsewhere, inside a paragraph or an unclosed HTML block, are the one
 * documented difference: see the test of references.)
 */
const DEFINITIONS = ['[ref]: ./target.md "Title"\n', '[Shortcut]: ./short.md\n', '[img]:\n  ./img.png\n', '[^1]: A footnote.\n'];

const documents = fc
  .tuple(
    fc.array(fc.constantFrom(...FRAGMENTS), { maxLength: 7 }),
    fc.subarray(DEFINITIONS),
    fc.constantFrom('\n', '\r\n', '\r'),
    fc.boolean(),
  )
  .map(([parts, definitions, eol, trailing]) => {
    const text = parts.join('') + (definitions.length ? `\n${definitions.join('')}` : '');
    const ended = trailing ? text : text.replace(/\n$/, '');
    return eol === '\n' ? ended : ended.replace(/\n/g, eol);
  });

describe('document metadata, read from a bounded prefix', () => {
  it('names the page as before: front matter, leading # heading, setext heading, heading after HTML', () => {
    expect(documentMetadata('---\ntitle: From YAML\ndescription: About\n---\n# Heading\n')).toEqual({
      title: 'From YAML',
      description: 'About',
    });
    expect(documentMetadata('---\ndescription: About\nicon: book\n---\n\n# After front matter\n')).toEqual({
      title: 'After front matter',
      description: 'About',
      emoji: 'book',
    });
    expect(documentMetadata('# Leading\n\nText')).toEqual({ title: 'Leading' });
    expect(documentMetadata('Setext *title*\n===\n\nText')).toEqual({ title: 'Setext title' });
    expect(documentMetadata('<!-- generated -->\n# After a comment\n')).toEqual({ title: 'After a comment' });
    expect(documentMetadata('<div align="center">\n<img src="logo.png">\n</div>\n\n# After a div\n')).toEqual({ title: 'After a div' });
    expect(documentMetadata('Intro\n\n# Later heading\n')).toEqual({});
    expect(documentMetadata('[ref]: ./x.md\n# After a definition\n')).toEqual({});
    expect(documentMetadata('## Not level one\n')).toEqual({});
  });

  it('resolves references in the heading against definitions anywhere in the document', () => {
    const definitions = '[g]: ./guide.md\n[shortcut]:\n  ./s.md\n[^n]: note\n';
    const doc = `# [Guide][g] and [Shortcut]![^n]\n\n${'text\n\n'.repeat(12_000)}${definitions}`;
    expect(doc.length).toBeGreaterThan(METADATA_SCAN_LIMIT);
    expect(documentMetadata(doc)).toEqual({ title: 'Guide and Shortcut!' });
    expect(wholeDocumentMetadata(`# [Guide][g] and [Shortcut]![^n]\n\ntext\n\n${definitions}`)).toEqual({ title: 'Guide and Shortcut!' });
    // Without the definitions, the brackets are text, as before.
    expect(documentMetadata('# [Guide][g]\n')).toEqual({ title: '[Guide][g]' });
    // The one difference: a definition-like line where a full parse sees none (here, inside an HTML block) still resolves.
    const inHtml = '# [Guide][g]\n\n<div>\n[g]: ./guide.md\n</div>\n';
    expect(wholeDocumentMetadata(inHtml)).toEqual({ title: '[Guide][g]' });
    expect(documentMetadata(inHtml)).toEqual({ title: 'Guide' });
  });

  it('gives the same metadata as parsing the whole document, for documents of every shape', () => {
    fc.assert(
      fc.property(documents, (doc) => {
        expect(documentMetadata(doc)).toEqual(wholeDocumentMetadata(doc));
      }),
      { numRuns: 3000 },
    );
  });

  it('keeps the title of a large document, however long its body', () => {
    const body = 'Some text with **bold** and [links](./x.md).\n\n'.repeat(30_000);
    for (const head of ['---\ntitle: Big\n---\n', '# Big\n', 'Big\n===\n', '<!-- x -->\n# Big\n']) {
      expect(documentMetadata(head + body)).toEqual({ title: 'Big' });
    }
  });

  it('gives no title that would need more than the bounded prefix', () => {
    const pad = (n: number) => 'x'.repeat(n);
    // A leading HTML comment, front matter or heading running past what is read.
    expect(documentMetadata(`<!--\n${pad(METADATA_SCAN_LIMIT)}\n-->\n# Title\n`)).toEqual({});
    expect(documentMetadata(`<div>\n${`${pad(70)}\n`.repeat(METADATA_SCAN_LIMIT / 70)}\n# Title\n`)).toEqual({});
    expect(documentMetadata(`---\ntitle: T\nnote: ${pad(MAX_FRONT_MATTER)}\n---\n# Heading\n`)).toEqual({});
    expect(documentMetadata(`---\ntitle: T\nnote: ${pad(METADATA_SCAN_LIMIT)}\n---\n# Heading\n`)).toEqual({});
    expect(documentMetadata(`# ${pad(MAX_TITLE_SOURCE)}\n\ntext`)).toEqual({});
    expect(documentMetadata(`${'word '.repeat(MAX_TITLE_SOURCE / 5)}\n===\n`)).toEqual({});
    // Within the bounds, the same documents are read in full.
    expect(documentMetadata(`<!--\n${pad(1000)}\n-->\n# Title\n`)).toEqual({ title: 'Title' });
    expect(documentMetadata(`# ${pad(MAX_TITLE_SOURCE - 100)}\n`).title).toHaveLength(MAX_TITLE_SOURCE - 100);
  });
});

describe('leading heading source', () => {
  const limits = { scanLimit: METADATA_SCAN_LIMIT, maxSource: MAX_TITLE_SOURCE };

  it('is only the heading, not the document around it', () => {
    expect(leadingHeadingSource('---\ntitle: x\n---\n\n<!-- c -->\n# Title\n\nbody', limits)).toBe('\n# Title');
    expect(leadingHeadingSource('Line one\nline two\n===\nbody', limits)).toBe('\nLine one\nline two\n===');
    expect(leadingHeadingSource('Paragraph\n\n# Later', limits)).toBeUndefined();
    expect(leadingHeadingSource('', limits)).toBeUndefined();
    expect(leadingHeadingSource('<!-- only -->\n', limits)).toBeUndefined();
  });
});

describe('HTML block end (micromark html-flow, ported)', () => {
  const lines = [
    '<!-- c -->',
    '<!-- a\n\nb -->',
    '<!-->',
    '<!--->',
    '<!-- -- >',
    '<div>',
    '<div>\nx',
    '<div>\n',
    '<div/>',
    '<div/ >',
    '</DIV >',
    '<script>x</script>',
    '<script>\n\n</SCRIPT>',
    '<script src=x>',
    '<pre',
    '<?x?>',
    '<?\n\n?>',
    '<!X>',
    '<!X\n\n>',
    '<![CDATA[x]]>',
    '<![CDATA[x\n\n]]>',
    '<![CDAT',
    '<a>',
    '<a >',
    '<a/>',
    '<a b>',
    '<a b=c>',
    '<a b=c=d>',
    '<a b="c">',
    "<a b='c' d>",
    '<a b="c"d>',
    '<a b="c\nd">',
    '<a b=`c`>',
    '<a b=>',
    '<a _:b.c-d=1>',
    '<a>x',
    '</a>',
    '</a x>',
    '</a/>',
    '<a-b1>',
    '<a.b>',
    '<1a>',
    '< a>',
    '<',
    '<!',
    '<!-',
    '<!- x -->',
  ];
  const tails = ['', '\n', '\nmore', '\n\nafter', '\r\nmore', '\rmore', ' \n  \nafter'];

  it('ends where micromark ends the HTML block, and finds none where micromark finds none', () => {
    for (const line of lines) {
      for (const tail of tails) {
        const text = line + tail;
        const first = parseMarkdown(text).children[0];
        const expected = first?.type === 'html' && first.position!.start.offset === 0 ? first.position!.end.offset! : null;
        expect([text, htmlBlockEnd(text, 0)]).toEqual([text, expected]);
      }
    }
  });
});

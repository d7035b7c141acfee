import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { documentToMarkdown, markdownToDocument } from '../../../../src/domain/content/document.ts';

/**
 * The same document with each text node's leaves rewritten as runs of characters that share
 * marks, where whitespace carries no marks: two documents are equal under this view when they
 * show the same characters with the same emphasis.
 */
function normalize(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalize);
  if (!value || typeof value !== 'object') return value;
  const { key: _key, ...node } = value as Record<string, unknown>;
  if (node.object === 'text') {
    const runs: { text: string; marks: string[] }[] = [];
    for (const l of node.leaves as { text: string; marks: { type: string }[] }[]) {
      for (const ch of l.text) {
        const marks = /\s/.test(ch) ? [] : l.marks.map((m) => m.type).sort();
        const last = runs[runs.length - 1];
        if (last && last.marks.join() === marks.join()) last.text += ch;
        else runs.push({ text: ch, marks });
      }
    }
    // Markdown drops whitespace at the ends of a paragraph.
    if (runs.length > 0) {
      runs[0].text = runs[0].text.replace(/^\s+/, '');
      runs[runs.length - 1].text = runs[runs.length - 1].text.replace(/\s+$/, '');
    }
    return { object: 'text', runs: runs.filter((r) => r.text !== '') };
  }
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, normalize(v)]));
}

const text = (t: string, ...marks: string[]) => ({ object: 'leaf', text: t, marks: marks.map((type) => ({ object: 'mark', type })) });

describe('markdownToDocument', () => {
  it('turns paragraphs and marks into blocks, texts and leaves', () => {
    const doc = JSON.parse(JSON.stringify(markdownToDocument('Hello **bold _both_** and `code` ~~gone~~\n')), (name, v) =>
      name === 'key' ? undefined : v,
    );
    expect(doc).toEqual({
      object: 'document',
      data: {},
      nodes: [
        {
          object: 'block',
          type: 'paragraph',
          data: {},
          isVoid: false,
          nodes: [
            {
              object: 'text',
              leaves: [
                text('Hello '),
                text('bold ', 'bold'),
                text('both', 'bold', 'italic'),
                text(' and '),
                text('code', 'code'),
                text(' '),
                text('gone', 'strikethrough'),
              ],
            },
          ],
        },
      ],
    });
  });

  it('maps headings, lists, tasks, code, quotes, dividers, links and images', () => {
    const doc = markdownToDocument(
      [
        '# One',
        '#### Four',
        '- a',
        '- b',
        '',
        '3. c',
        '',
        '- [x] done',
        '- [ ] todo',
        '',
        '```ts',
        'let x;',
        'x = 1;',
        '```',
        '> quoted',
        '> ```',
        '> raw',
        '> ```',
        '',
        '***',
        '',
        'See [site](https://example.com) ![pic](https://example.com/p.png)',
        '',
        '[ref]: https://ref.example',
        '',
        'A [reference][ref].',
      ].join('\n'),
    );
    expect(doc.nodes.map((n) => n.type)).toEqual([
      'heading-1',
      'heading-3',
      'list-unordered',
      'list-ordered',
      'list-tasks',
      'code',
      'blockquote',
      'divider',
      'paragraph',
      'paragraph',
    ]);
    expect(doc.nodes[3].data).toEqual({ start: 3 });
    expect(doc.nodes[4].nodes!.map((n) => (n as { data: object }).data)).toEqual([{ checked: true }, { checked: false }]);
    expect(doc.nodes[5].data).toEqual({ syntax: 'ts' });
    expect(doc.nodes[5].nodes).toHaveLength(2);
    expect((doc.nodes[6].nodes![1] as { type: string }).type).toBe('paragraph');
    const [, link, , image] = doc.nodes[8].nodes as { object: string; type?: string; data?: object }[];
    expect(link).toMatchObject({ object: 'inline', type: 'link', data: { ref: { kind: 'url', url: 'https://example.com' } } });
    expect(image).toMatchObject({
      object: 'inline',
      type: 'inline-image',
      isVoid: true,
      data: { ref: { kind: 'url', url: 'https://example.com/p.png' }, alt: 'pic' },
    });
    expect(doc.nodes[9].nodes![1]).toMatchObject({ type: 'link', data: { ref: { url: 'https://ref.example' } } });
  });

  it('keeps the text of constructs the document model lacks', () => {
    const doc = markdownToDocument('| a | b |\n|---|---|\n| 1 | 2 |\n\n<div>hi</div>\n');
    expect(doc.nodes.map((n) => n.type)).toEqual(['table', 'paragraph']);
    expect(JSON.stringify(doc)).toContain('<div>hi</div>');
  });

  it('gives an empty document for empty markdown', () => {
    expect(markdownToDocument('')).toEqual({ object: 'document', data: {}, nodes: [] });
  });
});

describe('documentToMarkdown', () => {
  const samples = [
    'Plain text with *stars* and _underscores_ \\[not a link\\]\n',
    'Hello **bold _both_** and `co`de` and ~~gone~~\n',
    'a**b*c***d and ***all*** and *x **y** z* in_word_underscores 2*3*4\n',
    '# One\n\n## Two\n\n### Three\n',
    '- a\n- b\n  - nested\n\n1. x\n2. y\n\n7. start\n\n- [x] done\n- [ ] todo\n',
    '```js\nconst a = 1;\n\nconsole.log(a);\n```\n',
    '> quoted\n>\n> - in a list\n',
    'before\n\n---\n\nafter\n',
    'A [link](https://example.com/a b) and ![alt](https://example.com/i.png)\n',
    'line one\\\nline two\n',
    '# not a heading? no, a heading\n\n\\# not a heading\n\n\\- not a list\n\n1\\. not a list\n',
  ];

  it('writes markdown that reads back as the same document', () => {
    for (const markdown of samples) {
      const doc = markdownToDocument(markdown);
      const written = documentToMarkdown(doc);
      expect({ markdown, written, doc: normalize(markdownToDocument(written)) }).toEqual({ markdown, written, doc: normalize(doc) });
    }
  });

  it('writes the usual markdown for common blocks', () => {
    expect(documentToMarkdown(markdownToDocument('Hello **world**'))).toBe('Hello **world**\n');
    expect(documentToMarkdown(markdownToDocument('1. a\n2. b'))).toBe('1. a\n2. b\n');
    expect(documentToMarkdown({ object: 'document', data: {}, nodes: [] })).toBe('');
  });

  it('takes the text of unknown blocks and tolerates malformed input', () => {
    const doc = {
      object: 'document',
      nodes: [
        {
          object: 'block',
          type: 'expandable',
          nodes: [{ object: 'block', type: 'paragraph', nodes: [{ object: 'text', leaves: [{ text: 'inside' }] }] }],
        },
        { object: 'block', type: 'paragraph', nodes: [{ object: 'inline', type: 'emoji', data: { code: '1f600' } }] },
        { object: 'block', type: 'paragraph', nodes: 'nonsense' },
        null,
      ],
    };
    expect(documentToMarkdown(doc)).toBe('inside\n\n😀\n');
    expect(documentToMarkdown(null)).toBe('');
    expect(documentToMarkdown({ nodes: [{ leaves: 3 }] })).toBe('');
  });

  it('keeps the marks of any run of words through a round trip', () => {
    // Marks that change between words (not inside a word next to punctuation, which markdown
    // itself cannot always express).
    const words = fc.stringMatching(/^[a-z]{1,5}( [a-z,.!?]{1,4})?$/).map((w) => `${w} `);
    const leafArb = fc.record({
      object: fc.constant('leaf'),
      text: words,
      marks: fc.subarray(['bold', 'italic', 'strikethrough', 'code']).map((ms) => ms.map((type) => ({ object: 'mark', type }))),
    });
    fc.assert(
      fc.property(fc.array(leafArb, { minLength: 1, maxLength: 6 }), (leaves) => {
        const doc = {
          object: 'document',
          data: {},
          nodes: [{ object: 'block', type: 'paragraph', data: {}, nodes: [{ object: 'text', leaves }], isVoid: false }],
        };
        const written = documentToMarkdown(doc);
        expect({ written, doc: normalize(markdownToDocument(written)) }).toEqual({ written, doc: normalize(doc) });
      }),
      { numRuns: 300 },
    );
  });
});

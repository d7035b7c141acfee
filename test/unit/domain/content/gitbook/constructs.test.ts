import { describe, expect, it } from '@jest/globals';
import { documentToMarkdown, markdownToDocument, type MarkdownToDocumentOptions } from '../../../../../src/domain/content/document.ts';
import { expectValidDocument } from './schema.ts';

const options: MarkdownToDocumentOptions = {
  resolveLink: (href) =>
    href === 'page.md' ? { kind: 'page', page: 'page1' } : href.startsWith('#') ? { kind: 'anchor', anchor: href.slice(1) } : null,
  resolveFile: (src) => (src.includes('.gitbook/assets/') ? { kind: 'file', file: `file-${src.split('/').pop()}` } : null),
  reusableContent: (path) => (path === '.gitbook/includes/known.md' ? 'rc1' : null),
};

/** The document for `markdown`, checked against GitBook's schema. */
/** The document with its nodes' keys left out (the keys test below checks them). */
function withoutKeys<T>(value: T): T {
  return JSON.parse(JSON.stringify(value), (name, v) => (name === 'key' ? undefined : v));
}

function convert(markdown: string) {
  const doc = markdownToDocument(markdown, options);
  expectValidDocument(doc);
  return withoutKeys(doc);
}

const text = (t: string) => ({ object: 'text', leaves: [{ object: 'leaf', text: t, marks: [] }] });
const para = (t: string) => ({ object: 'block', type: 'paragraph', nodes: [text(t)] });

describe('GitBook blocks from markdown', () => {
  it('reads hints with their style and icon', () => {
    const doc = convert(
      '{% hint style="warning" icon="books" %}\n**Careful** here.\n\n- one\n{% endhint %}\n\n{% hint style="odd" %}\nx\n{% endhint %}\n',
    );
    expect(doc.nodes).toMatchObject([
      {
        type: 'hint',
        data: { style: 'warning', icon: 'books' },
        nodes: [{ type: 'paragraph' }, { type: 'list-unordered' }],
        isVoid: false,
      },
      { type: 'hint', data: { style: 'info' }, nodes: [para('x')] },
    ]);
  });

  it('reads tabs, with a tab written on one line', () => {
    const doc = convert(
      '{% tabs %}\n{% tab title="Windows" icon="windows" %} On Windows {% endtab %}\n{% tab title="Linux" %}\n```sh\napt\n```\n{% endtab %}\n{% endtabs %}\n',
    );
    expect(doc.nodes).toMatchObject([
      {
        type: 'tabs',
        nodes: [
          { type: 'tabs-item', data: { title: 'Windows', icon: 'windows' }, nodes: [para('On Windows')] },
          { type: 'tabs-item', data: { title: 'Linux' }, nodes: [{ type: 'code', data: { syntax: 'sh' } }] },
        ],
      },
    ]);
  });

  it('reads steppers and steps', () => {
    const doc = convert(
      '{% stepper %}\n{% step %}\n### First\n\nDo this.\n{% endstep %}\n\n{% step %}\nThen that.\n{% endstep %}\n{% endstepper %}\n',
    );
    expect(doc.nodes).toMatchObject([
      {
        type: 'stepper',
        nodes: [
          { type: 'stepper-step', nodes: [{ type: 'heading-3' }, para('Do this.')] },
          { type: 'stepper-step', nodes: [para('Then that.')] },
        ],
      },
    ]);
  });

  it('reads expandables as title and body fragments', () => {
    const doc = convert(
      '<details open>\n<summary>More <strong>here</strong></summary>\n\nBody text.\n\n- item\n\n</details>\n\n<details>\n<summary>Closed</summary>\n\nx\n</details>\n',
    );
    expect(doc.nodes).toMatchObject([
      {
        type: 'expandable',
        isVoid: true,
        data: { defaultExpanded: true },
        fragments: [
          {
            object: 'fragment',
            fragment: 'expandable-title',
            type: 'expandable-title',
            nodes: [{ type: 'paragraph', nodes: [{ leaves: [{ text: 'More ' }, { text: 'here', marks: [{ type: 'bold' }] }] }] }],
          },
          { fragment: 'expandable-body', nodes: [para('Body text.'), { type: 'list-unordered' }] },
        ],
      },
      { type: 'expandable', data: {}, fragments: [{ nodes: [para('Closed')] }, { nodes: [para('x')] }] },
    ]);
  });

  it('reads code blocks with their title, wrapping and line numbers, mermaid included', () => {
    const doc = convert(
      '{% code title="index.js" overflow="wrap" lineNumbers="true" %}\n```javascript\nlet a;\nlet b;\n```\n{% endcode %}\n\n```mermaid\ngraph TD\n```\n',
    );
    expect(doc.nodes).toMatchObject([
      {
        type: 'code',
        data: { syntax: 'javascript', title: 'index.js', overflow: 'wrap', lineNumbers: true },
        nodes: [
          { type: 'code-line', nodes: [text('let a;')] },
          { type: 'code-line', nodes: [text('let b;')] },
        ],
      },
      { type: 'code', data: { syntax: 'mermaid' } },
    ]);
  });

  it('reads markdown tables as grid tables whose cells are fragments', () => {
    const doc = convert('| Name | Value |\n| - | -: |\n| **a** | 1 |\n| b | 2 |\n');
    const [table] = doc.nodes;
    expect(table).toMatchObject({
      type: 'table',
      isVoid: true,
      data: {
        view: { type: 'grid', columns: ['c0', 'c1'], hideHeader: false },
        definition: { c0: { id: 'c0', title: 'Name', type: 'text' }, c1: { title: 'Value', textAlignment: 'right' } },
        records: { r0: { values: { c0: 'r0-c0', c1: 'r0-c1' } }, r1: { values: { c0: 'r1-c0' } } },
      },
    });
    const records = table.data.records as Record<string, { orderIndex: string }>;
    expect(records.r0.orderIndex < records.r1.orderIndex).toBe(true);
    expect(table.fragments).toContainEqual(expect.objectContaining({ fragment: 'r1-c1', nodes: [expect.objectContaining(para('2'))] }));
  });

  it('reads HTML tables: cards with targets and covers, data-* columns', () => {
    const doc = convert(
      '<table data-view="cards"><thead><tr><th></th><th data-hidden data-card-target data-type="content-ref"></th><th data-hidden data-card-cover data-type="files"></th></tr></thead>' +
        '<tbody><tr><td><strong>Title</strong></td><td><a href="page.md">page</a></td><td><a href=".gitbook/assets/cover.png">cover.png</a></td></tr></tbody></table>\n\n' +
        '<table><thead><tr><th width="200">Key</th><th data-type="checkbox">On</th><th data-type="number">N</th></tr></thead><tbody><tr><td>k</td><td>true</td><td>3</td></tr></tbody></table>\n',
    );
    expect(doc.nodes).toMatchObject([
      {
        type: 'table',
        data: {
          view: { type: 'cards', columns: ['c0'], cardSize: 'medium', targetDefinition: 'c1', coverDefinition: 'c2' },
          definition: { c1: { type: 'content-ref' }, c2: { type: 'files' } },
          records: { r0: { values: { c0: 'r0-c0', c1: { kind: 'page', page: 'page1' }, c2: ['file-cover.png'] } } },
        },
        fragments: [
          { fragment: 'r0-c0', nodes: [{ type: 'paragraph', nodes: [{ leaves: [{ text: 'Title', marks: [{ type: 'bold' }] }] }] }] },
        ],
      },
      {
        type: 'table',
        data: {
          view: { type: 'grid', columns: ['c0', 'c1', 'c2'], columnWidths: { c0: 200 } },
          definition: { c1: { type: 'checkbox' }, c2: { type: 'number' } },
          records: { r0: { values: { c1: true, c2: 3 } } },
        },
      },
    ]);
  });

  it('reads figures, captions, dark-mode pictures and aligned galleries', () => {
    const doc = convert(
      '<figure><img src=".gitbook/assets/a.png" alt="A" width="300"><figcaption><p>The <em>caption</em></p></figcaption></figure>\n\n' +
        '<figure><picture><source srcset=".gitbook/assets/dark (1).png" media="(prefers-color-scheme: dark)"><img src=".gitbook/assets/light.png" alt=""></picture><figcaption></figcaption></figure>\n\n' +
        '<div align="center"><figure><img src="https://e.com/1.png" alt=""><figcaption></figcaption></figure><figure><img src="https://e.com/2.png" alt=""><figcaption></figcaption></figure></div>\n\n' +
        '![alone](https://e.com/3.png)\n',
    );
    expect(doc.nodes).toMatchObject([
      {
        type: 'images',
        nodes: [
          {
            type: 'image',
            isVoid: true,
            data: { ref: { kind: 'file', file: 'file-a.png' }, alt: 'A', width: 300 },
            fragments: [{ fragment: 'caption', nodes: [{ type: 'paragraph' }] }],
          },
        ],
      },
      {
        type: 'images',
        nodes: [
          { data: { ref: { kind: 'file', file: 'file-light.png' }, refDark: { kind: 'file', file: 'file-dark (1).png' } }, fragments: [] },
        ],
      },
      {
        type: 'images',
        data: { align: 'center' },
        nodes: [{ data: { ref: { kind: 'url', url: 'https://e.com/1.png' } } }, { type: 'image' }],
      },
      { type: 'images', nodes: [{ data: { ref: { kind: 'url', url: 'https://e.com/3.png' }, alt: 'alone' } }] },
    ]);
  });

  it('reads files, embeds, content references and includes', () => {
    const doc = convert(
      [
        '{% file src=".gitbook/assets/guide.pdf" %}\nA caption\n{% endfile %}',
        '{% file src="https://e.com/not-a-file.pdf" %}',
        '{% embed url="https://www.youtube.com/watch?v=1" %}',
        '{% content-ref url="page.md" %}\n[page.md](page.md)\n{% endcontent-ref %}',
        '{% content-ref url="elsewhere.md" %}\n[elsewhere.md](elsewhere.md)\n{% endcontent-ref %}',
        '{% include ".gitbook/includes/known.md" %}',
        '{% include ".gitbook/includes/missing.md" %}',
      ].join('\n\n'),
    );
    expect(doc.nodes).toMatchObject([
      { type: 'file', data: { ref: { kind: 'file', file: 'file-guide.pdf' } }, isVoid: true },
      para('A caption'),
      {
        type: 'paragraph',
        nodes: [text(''), { type: 'link', data: { ref: { kind: 'url', url: 'https://e.com/not-a-file.pdf' } } }, text('')],
      },
      { type: 'embed', data: { url: 'https://www.youtube.com/watch?v=1' }, isVoid: true },
      { type: 'content-ref', data: { ref: { kind: 'page', page: 'page1' } }, isVoid: true },
      { type: 'content-ref', data: { ref: { kind: 'url', url: 'elsewhere.md' } } },
      { type: 'reusable-content', data: { ref: { kind: 'reusable-content', reusableContent: 'rc1' } }, isVoid: true },
      {
        type: 'reusable-content',
        data: { ref: { kind: 'reusable-content', reusableContent: '.gitbook/includes/missing.md' }, dangling: true },
      },
    ]);
  });

  it('reads links as page, anchor and URL references', () => {
    const doc = convert('[a](page.md) [b](#part) [c](https://e.com) [d](other.md)\n');
    const refs = doc.nodes[0].nodes!.filter((n) => n.object === 'inline').map((n) => (n.object === 'inline' ? n.data.ref : null));
    expect(refs).toEqual([
      { kind: 'page', page: 'page1' },
      { kind: 'anchor', anchor: 'part' },
      { kind: 'url', url: 'https://e.com' },
      { kind: 'url', url: 'other.md' },
    ]);
  });

  it('reads block and inline math', () => {
    const doc = convert('$$\nf(x) = x^2\n$$\n\nInline $$a+b$$ but $5 and $6 stay text.\n');
    expect(doc.nodes).toMatchObject([
      { type: 'math', data: { formula: 'f(x) = x^2' }, isVoid: true },
      {
        type: 'paragraph',
        nodes: [text('Inline '), { type: 'inline-math', data: { formula: 'a+b' }, isVoid: true }, text(' but $5 and $6 stay text.')],
      },
    ]);
  });

  it("reads the HTML form GitBook's Git Sync gives a hint inside a list item", () => {
    const doc = convert(
      '*   Hand off to support\n\n    <div data-gb-custom-block data-tag="hint" data-style="success" class="hint hint-success"><p><strong>Support</strong> first.</p></div>\n* Next\n',
    );
    expect(doc.nodes[0]).toMatchObject({
      type: 'list-unordered',
      nodes: [
        {
          type: 'list-item',
          nodes: [
            para('Hand off to support'),
            {
              type: 'hint',
              data: { style: 'success' },
              nodes: [{ type: 'paragraph', nodes: [{ leaves: [{ text: 'Support', marks: [{ type: 'bold' }] }, { text: ' first.' }] }] }],
            },
          ],
        },
        { type: 'list-item', nodes: [para('Next')] },
      ],
    });
    // Any other `<div>` stays as written, as text.
    expect(convert('<div class="custom">x</div>\n').nodes[0]).toMatchObject(para('<div class="custom">x</div>'));
  });

  it('reads columns with their widths', () => {
    const doc = convert(
      '{% columns %}\n{% column width="50%" %}\nLeft\n{% endcolumn %}\n\n{% column %}\nRight\n{% endcolumn %}\n{% endcolumns %}\n',
    );
    expect(doc.nodes).toMatchObject([
      {
        type: 'columns',
        isVoid: false,
        nodes: [
          { type: 'column', data: { width: { unit: '%', value: 50 } }, nodes: [para('Left')] },
          { type: 'column', data: {}, nodes: [para('Right')] },
        ],
      },
    ]);
  });

  it('reads conditions, an else branch negating the condition', () => {
    const doc = convert('{% if visitor.claims.beta %}\nBeta\n{% else %}\nStable\n{% endif %}\n');
    expect(doc.nodes).toMatchObject([
      { type: 'if', data: { expression: 'visitor.claims.beta' }, nodes: [para('Beta')] },
      { type: 'if', data: { expression: '!(visitor.claims.beta)' }, nodes: [para('Stable')] },
    ]);
  });

  it('reads updates with their dates and tags, and prompts', () => {
    const doc = convert(
      '{% updates format="full" %}\n{% update date="2025-12-25" tags="beta,api" %}\n## New\n\nThings.\n{% endupdate %}\n{% endupdates %}\n\n' +
        '{% prompt description="Summarize" icon="sparkles" defaultExpanded="full" %}\n```markdown\nSummarize this.\n```\n{% endprompt %}\n',
    );
    expect(doc.nodes).toMatchObject([
      {
        type: 'updates',
        data: { format: 'full' },
        nodes: [
          {
            type: 'update',
            data: {
              date: '2025-12-25T00:00:00.000Z',
              tags: [
                { kind: 'tag', tag: 'beta' },
                { kind: 'tag', tag: 'api' },
              ],
            },
            nodes: [{ type: 'heading-2' }, para('Things.')],
          },
        ],
      },
      {
        type: 'prompt',
        data: { description: 'Summarize', icon: 'sparkles', defaultExpanded: 'full' },
        nodes: [{ type: 'code', data: { syntax: 'markdown' } }],
      },
    ]);
  });

  it('reads task lists and headings with anchors', () => {
    const doc = convert('## Setup <a href="#set-up" id="set-up"></a>\n\n### Other {#other}\n\n- [x] done\n- [ ] todo\n');
    expect(doc.nodes).toMatchObject([
      { type: 'heading-2', data: { id: 'set-up' }, nodes: [text('Setup')] },
      { type: 'heading-3', data: { id: 'other' }, nodes: [text('Other')] },
      {
        type: 'list-tasks',
        nodes: [
          { type: 'list-item', data: { checked: true } },
          { type: 'list-item', data: { checked: false } },
        ],
      },
    ]);
  });

  it('reads OpenAPI blocks', () => {
    const doc = convert(
      '{% openapi src="https://e.com/openapi.json" path="/pet" method="post" %}\n[https://e.com/openapi.json](https://e.com/openapi.json)\n{% endopenapi %}\n\n' +
        '{% swagger src=".gitbook/assets/spec.yaml" path="/a" method="get" %}\n[spec.yaml](.gitbook/assets/spec.yaml)\n{% endswagger %}\n\n' +
        '{% openapi-operation spec="petstore" path="/pet" method="put" %}\n{% endopenapi-operation %}\n\n' +
        '{% openapi-schemas spec="petstore" schemas="Pet,Tag" grouped="false" %}\n{% endopenapi-schemas %}\n',
    );
    expect(doc.nodes).toMatchObject([
      { type: 'swagger', isVoid: true, data: { ref: { kind: 'url', url: 'https://e.com/openapi.json' }, path: '/pet', method: 'post' } },
      { type: 'swagger', data: { ref: { kind: 'file', file: 'file-spec.yaml' }, path: '/a', method: 'get' } },
      { type: 'openapi-operation', data: { ref: { kind: 'openapi', spec: 'petstore' }, path: '/pet', method: 'put' } },
      { type: 'openapi-schemas', data: { ref: { kind: 'openapi', spec: 'petstore' }, schemas: ['Pet', 'Tag'], grouped: false } },
    ]);
  });

  it('reads inline marks, emoji, icons, buttons and inline images', () => {
    const doc = convert(
      '**b** *i* `c` ~~s~~ <mark style="color:red;background-color:yellow;">hi</mark> <kbd>K</kbd> x<sup>2</sup> 😀 <i class="fa-gear">:gear:</i> ' +
        '<a href="page.md" class="button primary" data-icon="rocket">Go</a> <button type="button" class="button secondary" data-action="search" data-query="q">Find</button> ' +
        '<img src=".gitbook/assets/i.svg" alt="icon" data-size="line">\n',
    );
    const nodes = doc.nodes[0].nodes!;
    const leaves = nodes.flatMap((n) => (n.object === 'text' ? n.leaves : []));
    const marked = (t: string) => leaves.find((l) => l.text === t)?.marks;
    expect(marked('b')).toEqual([{ object: 'mark', type: 'bold' }]);
    expect(marked('i')).toEqual([{ object: 'mark', type: 'italic' }]);
    expect(marked('c')).toEqual([{ object: 'mark', type: 'code' }]);
    expect(marked('s')).toEqual([{ object: 'mark', type: 'strikethrough' }]);
    expect(marked('hi')).toEqual([{ object: 'mark', type: 'color', data: { text: 'red', background: 'yellow' } }]);
    expect(marked('K')).toEqual([{ object: 'mark', type: 'keyboard' }]);
    expect(marked('2')).toEqual([{ object: 'mark', type: 'superscript' }]);
    expect(nodes.filter((n) => n.object === 'inline')).toMatchObject([
      { type: 'emoji', data: { code: '1f600' }, isVoid: true },
      { type: 'icon', data: { icon: 'gear' }, isVoid: true },
      { type: 'button', data: { label: 'Go', kind: 'primary', icon: 'rocket', ref: { kind: 'page', page: 'page1' } } },
      { type: 'button', data: { label: 'Find', kind: 'secondary', action: { action: 'search', query: 'q' } } },
      { type: 'inline-image', data: { ref: { kind: 'file', file: 'file-i.svg' }, alt: 'icon', size: 'line' }, isVoid: true },
    ]);
  });

  it('keeps constructs without a block visible, and fits blocks to where GitBook allows them', () => {
    const doc = convert(
      '{% unknown thing="x" %}\nInside\n{% endunknown %}\n\n{% endhint %}\n\n<div class="custom">raw</div>\n\n' +
        '{% hint style="info" %}\n```js\nlet a;\n```\n{% endhint %}\n\n> <figure><img src="https://e.com/q.png" alt=""><figcaption></figcaption></figure>\n',
    );
    expect(doc.nodes).toMatchObject([
      para('{% unknown thing="x" %}'),
      para('Inside'),
      para('{% endunknown %}'),
      para('{% endhint %}'),
      para('<div class="custom">raw</div>'),
      // Hints hold no code blocks: the code stays, as code-marked text.
      { type: 'hint', nodes: [{ type: 'paragraph', nodes: [{ leaves: [{ text: 'let a;', marks: [{ type: 'code' }] }] }] }] },
      { type: 'blockquote', nodes: [{ type: 'paragraph', nodes: [text(''), { type: 'inline-image' }, text('')] }] },
    ]);
  });

  it('reads integration blocks with their properties', () => {
    const doc = convert('{% @github-files/code-block url="https://github.com/a/b/blob/main/x.ts" lines="1-5" %}\n');
    expect(doc.nodes).toMatchObject([
      {
        type: 'integration',
        isVoid: true,
        data: { integration: 'github-files', block: 'code-block', props: { lines: '1-5' }, url: 'https://github.com/a/b/blob/main/x.ts' },
      },
    ]);
    expect(documentToMarkdown(doc)).toBe('{% @github-files/code-block lines="1-5" url="https://github.com/a/b/blob/main/x.ts" %}\n');
  });

  it('leaves out the page title when asked', () => {
    expect(markdownToDocument('# Title\n\nBody\n', { skipTitle: true }).nodes).toMatchObject([para('Body')]);
    expect(markdownToDocument('## Not a title\n', { skipTitle: true }).nodes).toMatchObject([{ type: 'heading-2' }]);
  });

  it('reads full-width and framed images', () => {
    const doc = convert(
      '<div data-full-width="true" data-with-frame="true"><figure><img src="https://e.com/a.png" alt=""><figcaption></figcaption></figure></div>\n',
    );
    expect(doc.nodes).toMatchObject([{ type: 'images', data: { fullWidth: true, withFrame: true }, nodes: [{ type: 'image' }] }]);
    expect(documentToMarkdown(doc)).toBe(
      '<div data-full-width="true" data-with-frame="true"><figure><img src="https://e.com/a.png" alt=""><figcaption></figcaption></figure></div>\n',
    );
  });

  it('reads aligned paragraphs', () => {
    const doc = convert('<p align="center">Centered <strong>text</strong></p>\n');
    expect(doc.nodes).toMatchObject([
      { type: 'paragraph', data: { align: 'center' }, nodes: [{ leaves: [{ text: 'Centered ' }, { text: 'text' }] }] },
    ]);
    expect(documentToMarkdown(doc)).toBe('<p align="center">Centered <strong>text</strong></p>\n');
  });

  it('leaves liquid syntax inside code alone', () => {
    const doc = convert('```\n{% hint style="info" %}\n```\n\n`{% embed url="x" %}`\n');
    expect(doc.nodes).toMatchObject([{ type: 'code', nodes: [{ nodes: [text('{% hint style="info" %}')] }] }, { type: 'paragraph' }]);
  });
});

describe('GitBook blocks to markdown', () => {
  it('writes references back through the inverse resolvers', () => {
    const doc = markdownToDocument(
      '[a](page.md) [b](#part)\n\n{% include ".gitbook/includes/known.md" %}\n\n{% file src=".gitbook/assets/g.pdf" %}\n',
      options,
    );
    const markdown = documentToMarkdown(doc, {
      linkHref: (ref) => (ref.kind === 'page' ? `${ref.page}.md` : null),
      fileSrc: (id) => `.gitbook/assets/${id.replace(/^file-/, '')}`,
      reusableContentPath: (id) => `.gitbook/includes/${id}.md`,
    });
    expect(markdown).toBe(
      '[a](page1.md) [b](#part)\n\n{% include ".gitbook/includes/rc1.md" %}\n\n{% file src=".gitbook/assets/g.pdf" %}\n',
    );
  });

  it('writes GitBook syntax for its blocks', () => {
    const markdown = [
      '{% hint style="success" %}\nDone.\n{% endhint %}',
      '{% tabs %}\n{% tab title="A" %}\nOne\n{% endtab %}\n\n{% tab title="B" %}\nTwo\n{% endtab %}\n{% endtabs %}',
      '<details open>\n<summary>Title</summary>\n\nBody\n\n</details>',
      '{% code title="a.js" lineNumbers="true" %}\n```js\nx\n```\n{% endcode %}',
      '| A | B |\n| - | :-: |\n| 1 | 2 |',
      '<figure><img src="https://e.com/a.png" alt="A"><figcaption><p>Cap</p></figcaption></figure>',
      '$$\nx^2\n$$',
      '{% embed url="https://e.com/v" %}',
      '## Anchored <a href="#here" id="here"></a>',
    ].join('\n\n');
    expect(documentToMarkdown(markdownToDocument(markdown))).toBe(`${markdown}\n`);
  });
});

describe('keys', () => {
  it('gives every block, inline, text and fragment a key, unique in the document and the same on every conversion', () => {
    const markdown =
      '# Title\n\n{% tabs %}\n{% tab title="A" %}\nOne [link](https://example.com).\n{% endtab %}\n\n{% tab title="B" %}\nTwo.\n{% endtab %}\n{% endtabs %}\n';
    const keys = (node: any): string[] =>
      node.object === 'leaf'
        ? []
        : [...(node.object === 'document' ? [] : [node.key]), ...(node.nodes ?? []).flatMap(keys), ...(node.fragments ?? []).flatMap(keys)];
    const first = keys(markdownToDocument(markdown));
    expect(first.every((key) => typeof key === 'string' && key.startsWith('k'))).toBe(true);
    expect(new Set(first).size).toBe(first.length);
    expect(keys(markdownToDocument(markdown))).toEqual(first);
    expect(keys(markdownToDocument(markdown, { keyPrefix: 'i0-' })).every((key) => key.startsWith('i0-'))).toBe(true);
  });
});

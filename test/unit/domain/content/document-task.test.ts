import { describe, expect, it } from '@jest/globals';
import { withoutConditionalBlocks } from '../../../../src/domain/content/conditional-blocks.ts';
import { convertRevisionText, convertText, plainTextDocument } from '../../../../src/domain/content/document-task.ts';
import { markdownAsText } from '../../../../src/domain/content/limits.ts';

const index = { pages: new Map([['guide', 'p1']]), files: new Map(), reusableContents: new Map([['.gitbook/includes/note.md', 'r1']]) };

describe('the conversion task', () => {
  it('resolves references in the revision and expands reusable contents when given their texts', () => {
    const markdown = '# Title\n\nSee [the guide](guide.md).\n\n{% include ".gitbook/includes/note.md" %}\n';
    const plain = JSON.parse(convertRevisionText({ markdown, fromPath: '', index, includes: null, maxJsonBytes: 1e6 }).json);
    expect(JSON.stringify(plain)).toContain('"page":"p1"');
    expect(JSON.stringify(plain)).toContain('"reusable-content"');
    const expanded = JSON.parse(
      convertRevisionText({ markdown, fromPath: '', index, includes: new Map([['r1', 'Included words.']]), maxJsonBytes: 1e6 }).json,
    );
    expect(JSON.stringify(expanded)).toContain('Included words.');
    expect(JSON.stringify(expanded)).not.toContain('"reusable-content"');
  });

  it('names the syntaxes of its code blocks, nested ones included', () => {
    const markdown =
      '```mermaid\ngraph TD\n```\n\n{% tabs %}\n{% tab title="A" %}\n```js\nx()\n```\n{% endtab %}\n{% endtabs %}\n\n```\nplain\n```\n';
    expect(convertRevisionText({ markdown, fromPath: '', index, includes: null, maxJsonBytes: 1e6 }).codeSyntaxes).toEqual([
      'js',
      'mermaid',
    ]);
  });

  it('refuses an answer past its size with DOCUMENT_TOO_LARGE', () => {
    const markdown = 'word '.repeat(10_000);
    expect(() => convertRevisionText({ markdown, fromPath: '', index, includes: null, maxJsonBytes: 1000 })).toThrow(
      expect.objectContaining({ code: 'DOCUMENT_TOO_LARGE' }),
    );
    expect(() => convertText(markdown, 1000)).toThrow(expect.objectContaining({ code: 'DOCUMENT_TOO_LARGE' }));
  });
});

describe('a text shown as text', () => {
  it('leaves conditional blocks out whole, nested or not, with their elif and else branches', () => {
    const text =
      'Before.\n{% if visitor.claims.a %}\nSecret A\n{% if x %}inner{% endif %}\n{% elif b %}\nSecret B\n{% else %}\nSecret C\n{% endif %}\nAfter.';
    expect(withoutConditionalBlocks(text)).toBe('Before.\n\nAfter.');
    const shown = JSON.stringify(plainTextDocument(text));
    expect(shown).not.toMatch(/Secret/);
    expect(shown).toContain('After.');
    // A page over the limits, converted or imported as text, leaves them out too.
    const overLimit = `${text}\n${'['.repeat(40)}x${']'.repeat(40)}\n`;
    expect(markdownAsText(overLimit)).not.toMatch(/Secret/);
    const converted = convertText(overLimit, 1e6);
    expect(converted).toContain('After.');
    expect(converted).not.toMatch(/Secret/);
  });

  it('hides the rest after an if that never closes, and keeps text with no tags as it is', () => {
    expect(withoutConditionalBlocks('Open {% if a %} secret')).toBe('Open ');
    expect(withoutConditionalBlocks('{% hint %}x{% endhint %} {% endif %} plain')).toBe('{% hint %}x{% endhint %} {% endif %} plain');
  });

  it('reads hostile tag runs in one pass', () => {
    // 200,000 openings with no closing mark, and 100,000 unclosed ifs: each would be quadratic with a backtracking scan.
    expect(withoutConditionalBlocks('{% if '.repeat(200_000))).toBe('{% if '.repeat(200_000));
    expect(withoutConditionalBlocks('{% if a %}'.repeat(100_000) + 'tail')).toBe('');
  });
});

import { describe, expect, it } from '@jest/globals';
import { documentToMarkdown, markdownToDocument } from '../../src/domain/content/document.ts';
import {
  documentLimitProblem,
  MARKDOWN_LIMITS,
  markdownAsText,
  markdownLimitProblem,
  measureMarkdown,
  MAX_DOCUMENT_DEPTH,
} from '../../src/domain/content/limits.ts';
import { parseGitbookMarkdown } from '../../src/domain/content/gitbook/parse.ts';

/**
 * Pages shaped like the deepest and largest real content measured (GitbookIO/public-docs and two
 * other public GitBook-layout repositories; docs/security.md "Limits and budgets") pass; the
 * inputs of the attacker's probe are refused, each naming its limit.
 */

const list = (depth: number) => Array.from({ length: depth }, (_, i) => `${'  '.repeat(i)}- item ${i}`).join('\n') + '\n';
const quotes = (depth: number) => `${'> '.repeat(depth)}deep\n`;
/** A table as compact as the probe's (`|x|x|…|`): 500 × 900 cells fit in 900 KB. */
const table = (rows: number, columns: number) => {
  const row = (cell: string) => `|${Array.from({ length: columns }, () => cell).join('|')}|`;
  return [row('h'), row('-'), ...Array.from({ length: rows }, () => row('x'))].join('\n') + '\n';
};
const liquid = (depth: number) => '{% hint style="info" %}\n'.repeat(depth) + 'x\n' + '{% endhint %}\n'.repeat(depth);
const elifs = (n: number) =>
  '{% if visitor.claims.unsigned.a0 %}\nA0\n' +
  Array.from({ length: n - 1 }, (_, i) => `{% elif visitor.claims.unsigned.a${i + 1} %}\nA${i + 1}\n`).join('') +
  '{% endif %}\n';

describe('measureMarkdown', () => {
  it('reads the nesting, tables and conditions of real-shaped content', () => {
    const page =
      '# Title\n\n' +
      list(5) +
      '\n> quoted\n\n' +
      '<div align="center"><figure><img src="a.png" alt=""><figcaption><p>x</p></figcaption></figure></div>\n\n' +
      '{% tabs %}\n{% tab title="A" %}\n{% hint style="info" %}\n{% code title="x" %}\n```js\nconst a = [[[1]]];\n{% if x %}\n```\n{% endcode %}\n{% endhint %}\n{% endtab %}\n{% endtabs %}\n\n' +
      '[![badge](b.svg)](https://example.com) `<space>` and `a[0][1][2]`\n\n' +
      table(74, 8) +
      '\n{% if visitor.claims.unsigned.bucket.IF_BLOCK === true %}\nyes\n{% else %}\nno\n{% endif %}\n';
    const f = measureMarkdown(page);
    expect(f).toMatchObject({
      nesting: 5,
      htmlNesting: 4,
      liquidNesting: 4,
      bracketNesting: 2,
      tableColumns: 8,
      tableCells: 600,
      conditionBranches: 2,
      conditionLength: 48,
    });
    expect(markdownLimitProblem(page)).toBeNull();
  });

  it('counts list items nested on one line, in quotes, and quotes in list items', () => {
    expect(measureMarkdown('- - - x\n      - y\n').nesting).toBe(4);
    expect(measureMarkdown('> - a\n>   - b\n>     - c\n').nesting).toBe(4);
    expect(measureMarkdown('- a\n\n  > b\n').nesting).toBe(2);
    expect(measureMarkdown('1. a\n   1. b\n\nnext\n- c\n').nesting).toBe(2);
  });

  it('counts emphasis open at once, not emphasis side by side, words with underscores or code spans', () => {
    expect(measureMarkdown('***all*** and **bold** and *it* and __u__\n').emphasisNesting).toBe(3);
    expect(measureMarkdown('*a* '.repeat(5_000) + '\n').emphasisNesting).toBe(1);
    expect(measureMarkdown('snake_case_name '.repeat(5_000) + '\n').emphasisNesting).toBe(0);
    expect(measureMarkdown('`**kwargs` '.repeat(5_000) + '\n').emphasisNesting).toBe(0);
    expect(measureMarkdown('|a|b|\n|-|-|\n' + '|**x**|*y*|\n'.repeat(5_000)).emphasisNesting).toBe(2);
    // A paragraph ends what it left open.
    expect(measureMarkdown('*open\n\n*open\n').emphasisNesting).toBe(1);
    expect(markdownLimitProblem('**'.repeat(MARKDOWN_LIMITS.MAX_EMPHASIS_NESTING / 2) + 'x' + '**'.repeat(100) + '\n')).toBeNull();
  });

  it('costs one pass: a megabyte of brackets is measured, not parsed', () => {
    const text = '['.repeat(500_000) + ']'.repeat(499_999);
    expect(measureMarkdown(text).bracketNesting).toBe(500_000);
  });
});

describe('markdownLimitProblem', () => {
  const refused = (text: string) => markdownLimitProblem(text)?.limit;

  it('passes the real maxima (and ten times a little of each)', () => {
    for (const text of [list(5), quotes(5), '<div>'.repeat(9) + '</div>'.repeat(9), liquid(5), '[[x]]', table(74, 9), elifs(2)])
      expect(markdownLimitProblem(text)).toBeNull();
    expect(markdownLimitProblem(list(MARKDOWN_LIMITS.MAX_NESTING))).toBeNull();
    expect(markdownLimitProblem(liquid(MARKDOWN_LIMITS.MAX_LIQUID_NESTING))).toBeNull();
    expect(markdownLimitProblem(elifs(MARKDOWN_LIMITS.MAX_CONDITION_BRANCHES))).toBeNull();
  });

  it('refuses each probe input, naming the limit', () => {
    expect(refused('['.repeat(30_000) + 'x' + ']'.repeat(30_000))).toBe('MAX_BRACKET_NESTING');
    expect(refused('**'.repeat(6_000) + 'x' + '**'.repeat(6_000))).toBe('MAX_EMPHASIS_NESTING');
    expect(refused('*_'.repeat(2_000) + 'x' + '_*'.repeat(2_000))).toBe('MAX_EMPHASIS_NESTING');
    expect(refused('**a '.repeat(2_000) + 'x' + ' a**'.repeat(2_000))).toBe('MAX_EMPHASIS_NESTING');
    expect(refused('['.repeat(20_000) + 'x' + ']'.repeat(20_000))).toBe('MAX_BRACKET_NESTING');
    expect(refused(elifs(12_000))).toBe('MAX_CONDITION_BRANCHES');
    expect(refused(table(500, 900))).toBe('MAX_TABLE_COLUMNS');
    expect(refused(table(500, 90))).toBe('MAX_TABLE_CELLS');
    expect(refused('- '.repeat(2_000) + 'x\n')).toBe('MAX_NESTING');
    expect(refused(list(600))).toBe('MAX_NESTING');
    expect(refused(quotes(10_000))).toBe('MAX_NESTING');
    expect(refused('> '.repeat(10_000).trimEnd().split(' ').join('\n'))).toBeUndefined(); // one `>` a line is one level
    expect(refused('<div>'.repeat(50_000))).toBe('MAX_HTML_NESTING');
    expect(refused(liquid(1_000))).toBe('MAX_LIQUID_NESTING');
    expect(refused('x'.repeat(MARKDOWN_LIMITS.MAX_PAGE_SIZE + 1))).toBe('MAX_PAGE_SIZE');
    expect(refused(`{% if ${'a || '.repeat(300)}a %}\nx\n{% endif %}\n`)).toBe('MAX_CONDITION_LENGTH');
    expect(refused(`{% if ${'('.repeat(20)}a${')'.repeat(20)} %}\nx\n{% endif %}\n`)).toBe('MAX_CONDITION_NESTING');
    expect(markdownLimitProblem(list(600))?.message).toMatch(/nested too deeply.*MAX_NESTING/);
  });

  it('is not fooled by a list item or quote that ends a fence early', () => {
    expect(refused('- ```\n' + elifs(100))).toBe('MAX_CONDITION_BRANCHES');
    expect(refused('> ```\n' + liquid(100))).toBe('MAX_LIQUID_NESTING');
    // A fence at the top level runs to the end: everything after it is code, so nothing to refuse.
    expect(refused('```\n' + liquid(100))).toBeUndefined();
  });

  it('reads the deep list, quote and HTML inputs as deeply as remark does', () => {
    const depthOf = (text: string) => {
      let depth = 0;
      let node = parseGitbookMarkdown(text).children[0] as { children?: unknown[] } | undefined;
      while (node && Array.isArray(node.children) && node.children.length > 0) {
        depth++;
        node = node.children[0] as { children?: unknown[] };
      }
      return depth;
    };
    // The scanner's count is never below the parser's nesting (lists: list + item per level).
    expect(measureMarkdown(quotes(60)).nesting).toBeGreaterThanOrEqual(depthOf(quotes(60)) - 2);
    expect(measureMarkdown(list(60)).nesting).toBeGreaterThanOrEqual(Math.floor(depthOf(list(60)) / 2) - 1);
  });
});

describe('markdownAsText', () => {
  it('keeps over-limit content as one code block the content cannot close', () => {
    const hostile = '````\n```\n{% hint style="info" %}\n' + '['.repeat(100) + '\n';
    const text = markdownAsText(hostile, 'Kept as text: too deep (MAX_BRACKET_NESTING)');
    const root = parseGitbookMarkdown(text);
    expect(root.children.map((n) => n.type)).toEqual(['paragraph', 'code']);
    expect((root.children[1] as { value: string }).value).toBe(hostile.slice(0, -1));
    expect(markdownLimitProblem(text)).toBeNull();
    // Conditional blocks are left out whole: as text, they would show every reader every branch.
    expect(markdownAsText('Shown\n{% if visitor.claims.a %}\nSecret\n{% else %}\nOther\n{% endif %}\n' + '['.repeat(100))).not.toMatch(
      /Secret|Other/,
    );
  });

  it('keeps each probe input as text that passes the limits', () => {
    for (const input of ['['.repeat(30_000) + ']'.repeat(30_000), elifs(12_000), table(500, 900), list(600), '<div>'.repeat(50_000)])
      expect(markdownLimitProblem(markdownAsText(input))).toBeNull();
  });
});

describe('linear conversion', () => {
  it('gives 4,000 elif branches an answer of size O(input)', () => {
    const input = elifs(4_000);
    const size = JSON.stringify(markdownToDocument(input)).length;
    expect(size).toBeLessThan(input.length * 100);
    // Twice the branches, about twice the answer (a quadratic answer would be four times).
    const double = JSON.stringify(markdownToDocument(elifs(8_000))).length;
    expect(double / size).toBeLessThan(2.5);
  });

  it('nests elif branches under the negation of the branch before, each condition written twice', () => {
    const doc = markdownToDocument('{% if a %}\nA\n{% elif b %}\nB\n{% elif c %}\nC\n{% else %}\nD\n{% endif %}\n');
    const expressions: string[] = [];
    const walk = (nodes: unknown[]) => {
      for (const n of nodes as { type?: string; data?: { expression?: string }; nodes?: unknown[] }[]) {
        if (n.type === 'if') expressions.push(n.data!.expression!);
        if (n.nodes) walk(n.nodes);
      }
    };
    walk(doc.nodes);
    expect(expressions).toEqual(['a', '!(a)', 'b', '!(b)', 'c', '!(c)']);
    const markdown = documentToMarkdown(doc);
    expect(markdown).toContain('{% if !(b) %}');
    expect(markdownLimitProblem(markdown)).toBeNull();
  });

  it('converts deep input without overflowing the stack', () => {
    for (const input of [
      quotes(10_000),
      '- '.repeat(2_000) + 'x',
      list(600),
      '<div>'.repeat(50_000),
      '['.repeat(3_000) + 'x' + ']'.repeat(3_000),
    ]) {
      expect(() => markdownToDocument(input)).not.toThrow();
    }
    let deep: unknown = { object: 'text', leaves: [{ object: 'leaf', text: 'x', marks: [] }] };
    for (let i = 0; i < 100_000; i++) deep = { object: 'block', type: 'blockquote', nodes: [deep] };
    expect(() => documentToMarkdown({ object: 'document', nodes: [deep] })).not.toThrow();
    expect(documentLimitProblem({ object: 'document', nodes: [deep] })?.limit).toBe('MAX_NESTING');
    expect(documentLimitProblem(markdownToDocument(list(MARKDOWN_LIMITS.MAX_NESTING)))).toBeNull();
    expect(MAX_DOCUMENT_DEPTH).toBeGreaterThan(4 * (MARKDOWN_LIMITS.MAX_NESTING + MARKDOWN_LIMITS.MAX_LIQUID_NESTING));
  });
});

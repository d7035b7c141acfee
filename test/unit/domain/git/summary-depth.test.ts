import { describe, expect, it } from '@jest/globals';
import { LayoutError, parseSummary, renderSummary, type SummaryEntry } from '../../../../src/domain/git/summary.ts';
import { readCommitLayout } from '../../../../src/activities/git-sync-layout.ts';

/** A summary's nesting: what the markdown limits refuse before parsing, and what its walks read without recursion. */

const refusal = (run: () => unknown): LayoutError => {
  try {
    run();
  } catch (error) {
    if (error instanceof LayoutError) return error;
    throw error;
  }
  throw new Error('not refused');
};

const depthOf = (entries: SummaryEntry[]): number => {
  let depth = 0;
  for (let level = entries; level.length > 0; level = level[0].children) depth++;
  return depth;
};

describe('parseSummary and nesting', () => {
  it('reads a summary nested as deep as a page may be (50 levels), children in document order', () => {
    const text = Array.from({ length: 50 }, (_, i) => `${'  '.repeat(i)}* [Level ${i}](l${i}.md)\n`).join('') + '  * [Second](second.md)\n';
    const [part] = parseSummary(text);
    expect(depthOf(part.entries)).toBe(50);
    expect(part.entries[0].children.map((e) => e.title)).toEqual(['Level 1', 'Second']);
    expect(parseSummary(renderSummary([part]))[0]).toEqual(part);
  });

  it.each([
    ['51 indented levels', Array.from({ length: 51 }, (_, i) => `${'  '.repeat(i)}* [a](a.md)\n`).join(''), 'MAX_NESTING'],
    ['200,000 list markers on one line', `${'* '.repeat(200_000)}[a](a.md)\n`, 'MAX_NESTING'],
    ['200,000 quotes', `${'> '.repeat(200_000)}* [a](a.md)\n`, 'MAX_NESTING'],
    ['10 MB of entries', '* [A title](a.md)\n'.repeat(600_000), 'MAX_PAGE_SIZE'],
    ['20,000 open brackets', `* ${'['.repeat(20_000)}a${']'.repeat(20_000)}(a.md)\n`, 'MAX_BRACKET_NESTING'],
  ])('refuses %s before parsing, naming the limit (MARKDOWN_LIMIT)', (_what, text, limit) => {
    const error = refusal(() => parseSummary(text, 'docs/SUMMARY.md'));
    expect(error.code).toBe('MARKDOWN_LIMIT');
    expect(error.message).toMatch(new RegExp(`^docs/SUMMARY\\.md cannot be read: .*\\(limit ${limit}\\)$`));
  });

  it('reads the first link and the title under 2,000 levels of emphasis without recursion', () => {
    const [part] = parseSummary(
      `* ${'*_'.repeat(1_000)}[Deep **title**](deep.md "T")${'_*'.repeat(1_000)}\n* ${'**'.repeat(2_000)}Plain${'**'.repeat(2_000)}\n`,
    );
    expect(part.entries).toEqual([
      { title: 'Deep title', href: 'deep.md', linkTitle: 'T', children: [] },
      { title: 'Plain', href: null, children: [] },
    ]);
  });

  it("refuses inline nesting that overflows the parser's stack with MARKDOWN_LIMIT, in the summary and in the layout thread", () => {
    const deep = `* ${'**'.repeat(6_000)}[a](a.md)${'**'.repeat(6_000)}\n`;
    const error = refusal(() => parseSummary(deep));
    expect(error.code).toBe('MARKDOWN_LIMIT');
    expect(error.message).toMatch(/^SUMMARY\.md nests too deeply to be read/);
    // A page (no limit bounds its emphasis either) read by the layout thread's task.
    const input = {
      markdown: { 'README.md': '# Home\n', 'deep.md': `# Deep\n\n${'**'.repeat(6_000)}[x](README.md)${'**'.repeat(6_000)}\n` },
      assets: [],
      gitbookYaml: null,
      projectDirectory: '',
      pageIds: [],
      fileIds: [],
      reusableContentIds: [],
    };
    const layoutError = refusal(() => readCommitLayout(input));
    expect(layoutError.code).toBe('MARKDOWN_LIMIT');
    expect(layoutError.message).toMatch(/nests too deeply to be read \(limit MAX_NESTING\)/);
  });
});

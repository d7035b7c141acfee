import { describe, expect, it } from '@jest/globals';
import { isStackOverflow, LayoutError, parseSummary, renderSummary, type SummaryEntry } from '../../../../src/domain/git/summary.ts';
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

  it('reads the first link and the title under nested emphasis', () => {
    const [part] = parseSummary(
      `* ${'*_'.repeat(20)}[Deep **title**](deep.md "T")${'_*'.repeat(20)}\n* ${'**'.repeat(20)}Plain${'**'.repeat(20)}\n`,
    );
    expect(part.entries).toEqual([
      { title: 'Deep title', href: 'deep.md', linkTitle: 'T', children: [] },
      { title: 'Plain', href: null, children: [] },
    ]);
  });

  it('refuses emphasis nested past MAX_EMPHASIS_NESTING before parsing it (micromark is quadratic on it)', () => {
    const error = refusal(() => parseSummary(`* ${'**'.repeat(6_000)}[a](a.md)${'**'.repeat(6_000)}\n`));
    expect(error.code).toBe('MARKDOWN_LIMIT');
    expect(error.message).toMatch(/^SUMMARY\.md cannot be read: .*\(limit MAX_EMPHASIS_NESTING\)$/);
  });

  it("tells the parser's stack overflow apart from other errors (read as MARKDOWN_LIMIT by the layout)", () => {
    const overflow = (): number => overflow() + 1;
    let caught: unknown;
    try {
      overflow();
    } catch (error) {
      caught = error;
    }
    expect(isStackOverflow(caught)).toBe(true);
    expect(isStackOverflow(new RangeError('Invalid array length'))).toBe(false);
    expect(isStackOverflow(new Error('Maximum call stack size exceeded'))).toBe(false);
  });

  it('reads a page past the emphasis limit as text in the layout thread, as an import stores it', () => {
    const layout = readCommitLayout({
      markdown: { 'README.md': '# Home\n', 'deep.md': `# Deep\n\n${'**'.repeat(6_000)}[x](README.md)${'**'.repeat(6_000)}\n` },
      assets: [],
      gitbookYaml: null,
      projectDirectory: '',
      pageIds: [],
      fileIds: [],
      reusableContentIds: [],
    });
    expect(JSON.stringify(layout)).toContain('MAX_EMPHASIS_NESTING');
  });
});

import { afterAll, describe, expect, it } from '@jest/globals';
import { markdownToSafeTree } from '../../src/domain/content/html.ts';
import { closeMarkdownThread, markdownThreadStats, markdownToSafeTrees } from '../../src/lib/markdown-thread.ts';

afterAll(() => closeMarkdownThread());

const page = (i: number) =>
  `# Page ${i}\n\nText with a [link](https://example.com/${i}), \`code\`, a footnote[^n] and <script>alert(${i})</script>.\n\n` +
  `| a | b |\n| - | - |\n| ${i} | www.example.com |\n\n![image](images/${i}.png)\n\n[^n]: The note of page ${i}.\n`;

describe('markdown to sanitized trees on two threads', () => {
  it('gives, in order, the trees markdownToSafeTree gives, for few pages and for many', async () => {
    for (const count of [3, 60]) {
      const before = markdownThreadStats();
      const markdowns = Array.from({ length: count }, (_, i) => page(i));
      expect(await markdownToSafeTrees(markdowns)).toEqual(markdowns.map((m) => markdownToSafeTree(m)));
      // Few pages are parsed here alone; of many, the helper parses about half.
      const after = markdownThreadStats();
      expect(after.fallbackPages).toBe(before.fallbackPages);
      const helped = after.helperPages - before.helperPages;
      if (count < 16) expect(helped).toBe(0);
      else expect(Math.abs(helped - count / 2)).toBeLessThanOrEqual(2);
    }
  });

  it('starts a new helper after the last one was stopped', async () => {
    const markdowns = Array.from({ length: 40 }, (_, i) => page(i));
    await markdownToSafeTrees(markdowns);
    await closeMarkdownThread();
    const before = markdownThreadStats().helperPages;
    expect(await markdownToSafeTrees(markdowns)).toEqual(markdowns.map((m) => markdownToSafeTree(m)));
    expect(markdownThreadStats().helperPages).toBeGreaterThan(before + 15);
  });
});

import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { gitbookProcessor } from '../../../../../src/domain/content/gitbook/parse.ts';
import { blankFrontMatter, gfmConstructsOf } from '../../../../../src/domain/content/markdown-parse.ts';

/** What `parseGitbookMarkdown` parses with (before nesting), and the same parser with every GFM construct. */
const parseAsExported = (markdown: string) => gitbookProcessor(gfmConstructsOf(markdown)).parse(markdown);
const parseWithEvery = (markdown: string) => gitbookProcessor().parse(markdown);

const FIXTURES = new URL('../../../../fixtures/gitbook-markdown/', import.meta.url);

const FRAGMENTS = [
  'word',
  'w',
  'www.',
  'example.com',
  'https://',
  'h',
  '@',
  '&#64;',
  ' ',
  '\n',
  '\n\n',
  '|',
  ':',
  '\n:-',
  '\n|-',
  '[',
  '](',
  ')',
  '*',
  '$$',
  '{% hint style="info" %}',
  '{% endhint %}',
  '{% embed url="',
  '" %}',
  '<details>',
  '</details>',
  '> ',
  '- ',
];

describe('parseGitbookMarkdown', () => {
  it('gives the same tree as with every GFM construct on the GitBook fixtures', () => {
    const names = readdirSync(FIXTURES).filter((n) => n.endsWith('.md'));
    expect(names.length).toBeGreaterThan(10);
    for (const name of names) {
      const markdown = blankFrontMatter(readFileSync(new URL(name, FIXTURES), 'utf8'));
      expect(parseAsExported(markdown)).toEqual(parseWithEvery(markdown));
    }
  });

  it('gives the same tree as with every GFM construct around liquid tags and math, markers or not', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...FRAGMENTS), { maxLength: 40 }), (parts) => {
        const markdown = parts.join('');
        expect(parseAsExported(markdown)).toEqual(parseWithEvery(markdown));
      }),
      { numRuns: 300 },
    );
  });
});

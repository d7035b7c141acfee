import { describe, expect, it } from '@jest/globals';
import { MAX_FRONT_MATTER, splitFrontMatter } from '../../../../src/domain/git/frontmatter.ts';
import { LayoutError, MAX_GITBOOK_YAML, parseGitbookYaml } from '../../../../src/domain/git/summary.ts';

/** YAML in a repository (page front matter, .gitbook.yaml) is the repository owner's: bounded like any input. */
const aliasBomb = (aliases: number, bytes: number) =>
  `big: &big "${'x'.repeat(bytes)}"\n${Array.from({ length: aliases }, (_, i) => `k${i}: *big`).join('\n')}\n`;

describe('front matter', () => {
  it('reads ordinary front matter', () => {
    expect(splitFrontMatter('---\ndescription: Hi\nhidden: true\n---\n# Page\n')).toEqual({
      data: { description: 'Hi', hidden: true },
      body: '# Page\n',
    });
  });

  it('does not expand an alias bomb: the block is left in the body, as YAML it cannot read is', () => {
    const text = `---\n${aliasBomb(400, 50_000)}---\n# Page\n`;
    const read = splitFrontMatter(text);
    expect(read.data).toEqual({});
    expect(read.body).toBe(text);
  });

  it(`does not read front matter longer than ${MAX_FRONT_MATTER} characters`, () => {
    const text = `---\ndescription: "${'y'.repeat(MAX_FRONT_MATTER)}"\n---\nBody\n`;
    expect(splitFrontMatter(text)).toEqual({ data: {}, body: text });
  });
});

describe('.gitbook.yaml', () => {
  it('refuses an alias bomb and an oversized file with INVALID_GITBOOK_YAML', () => {
    for (const text of [aliasBomb(400, 100), `redirects:\n${'  a: b\n'.repeat(MAX_GITBOOK_YAML / 6)}`]) {
      let error: unknown;
      try {
        parseGitbookYaml(text);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(LayoutError);
      expect((error as LayoutError).code).toBe('INVALID_GITBOOK_YAML');
    }
  });

  it('still reads a file that shares a value through a few aliases', () => {
    const config = parseGitbookYaml('root: &r ./docs/\nstructure:\n  readme: README.md\nredirects:\n  old: *r\n');
    expect(config.root).toBe('docs');
  });
});

import { describe, expect, it } from '@jest/globals';
import { dumpYaml, pageFieldsOf, renderFrontMatter, splitFrontMatter } from '../../../../src/domain/git/frontmatter.ts';
import { readLayout, renderLayout } from '../../../../src/domain/git/layout.ts';
import { parseSummary, renderSummary } from '../../../../src/domain/git/summary.ts';

describe('SUMMARY.md as GitBook writes it', () => {
  const summary = [
    '# Table of contents',
    '',
    '* [Home](README.md)',
    '',
    '## Get Started <a href="#getting-started" id="getting-started"></a>',
    '',
    '* [Quickstart](getting-started/quickstart.md)',
    '* [Agent skills](getting-started/skills.md "Agent skills")',
    '* [Buttons](getting-started/quickstart.md#buttons)',
    '',
    '## Reference',
    '',
    '* [Glossary](reference/glossary.md)',
    '',
    '***',
    '',
    '* [Skill](skill/README.md)',
    '  * [Write](skill/write.md)',
    '',
  ].join('\n');

  it('reads group anchors as slugs, titles without them, separators and link titles', () => {
    const parts = parseSummary(summary);
    expect(parts.map((p) => [p.title, p.slug])).toEqual([
      [null, undefined],
      ['Get Started', 'getting-started'],
      ['Reference', undefined],
      [null, undefined],
    ]);
    expect(parts[1].entries[1]).toEqual({
      title: 'Agent skills',
      href: 'getting-started/skills.md',
      linkTitle: 'Agent skills',
      children: [],
    });
    expect(renderSummary(parts)).toBe(summary);
  });

  it('reads a repository with them into groups, top-level pages and a link to a page anchor, and writes it back as it was', () => {
    const markdown: Record<string, string> = { 'SUMMARY.md': summary };
    for (const [path, title] of [
      ['README.md', 'Home'],
      ['getting-started/quickstart.md', 'Quickstart'],
      ['getting-started/skills.md', 'Skills and more'],
      ['reference/glossary.md', 'Glossary'],
      ['skill/README.md', 'Skill'],
      ['skill/write.md', 'Write'],
    ])
      markdown[path] = `# ${title}\n\nText.\n`;
    markdown['skill/write.md'] = '# Write\n\nBack [home](../) and to the [skill](./).\n';
    const layout = readLayout({ markdown, assets: [] });
    expect(layout.warnings).toEqual([]);
    const pages = Object.values(layout.pages);
    const group = pages.find((p) => p.title === 'Get Started')!;
    expect(group).toMatchObject({ type: 'group', slug: 'getting-started' });
    const quickstart = pages.find((p) => p.title === 'Quickstart')!;
    expect(pages.find((p) => p.title === 'Buttons')).toMatchObject({
      type: 'link',
      href: `gitbook://page/${quickstart.id}#buttons`,
      parentId: group.id,
    });
    expect(pages.find((p) => p.title === 'Skill')).toMatchObject({ parentId: null });
    // Links to a folder's README, the root's included, are written and read as the folder.
    const home = pages.find((p) => p.title === 'Home')!;
    const skill = pages.find((p) => p.title === 'Skill')!;
    expect(pages.find((p) => p.title === 'Write')!.markdown).toBe(
      `Back [home](gitbook://page/${home.id}) and to the [skill](gitbook://page/${skill.id}).\n`,
    );
    // Without the parent: the summary and the files come out as they were, in their places.
    const out = renderLayout(layout.pages, layout.files, { config: layout.config });
    expect(out.texts).toEqual(markdown);
  });
});

describe('front matter as GitBook writes it', () => {
  it('writes YAML as js-yaml does: plain, folded past 80 columns, no-break spaces escaped', () => {
    expect(dumpYaml({ description: 'Short, with a comma & more' })).toBe('description: Short, with a comma & more\n');
    expect(
      dumpYaml({
        description:
          'Create and publish AI-native documentation your users will love. GitBook gives you intelligent tools to build product guides.',
      }),
    ).toBe(
      'description: >-\n  Create and publish AI-native documentation your users will love. GitBook gives\n  you intelligent tools to build product guides.\n',
    );
    expect(dumpYaml({ description: 'Cards —\u00a0with images' })).toBe('description: "Cards —\\_with images"\n');
    expect(dumpYaml({ a: 'true', b: '1.0', c: "it's: here", d: [] })).toBe("a: 'true'\nb: '1.0'\nc: 'it''s: here'\nd: []\n");
    expect(dumpYaml({ tags: ['news', { tag: 'beta', primary: true }] })).toBe('tags:\n  - news\n  - tag: beta\n    primary: true\n');
  });

  it('reads a cover path with its position and height, and writes them back in GitBook’s order', () => {
    const text = [
      '---',
      'description: Hi',
      'cover: .gitbook/assets/hero (1).png',
      'coverY: 0',
      'coverHeight: 461',
      'layout:',
      '  width: wide',
      '  cover:',
      '    visible: false',
      '    size: background',
      '    mask: none',
      '  title:',
      '    visible: false',
      'hidden: true',
      'tags:',
      '  - beta',
      '---',
      '',
    ].join('\n');
    const fields = pageFieldsOf(splitFrontMatter(text).data);
    expect(fields).toEqual({
      description: 'Hi',
      hidden: true,
      cover: { path: '.gitbook/assets/hero (1).png', yPos: 0, height: 461 },
      layout: { width: 'wide', cover: false, coverSize: 'background', coverMask: 'none', title: false },
      extra: { tags: ['beta'] },
    });
    expect(renderFrontMatter(fields)).toBe(text);
  });
});

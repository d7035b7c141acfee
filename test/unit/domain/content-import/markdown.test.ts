import { describe, expect, it } from '@jest/globals';
import { absolutizeMarkdownUrls, convertWikiLinks } from '../../../../src/domain/content-import/markdown.ts';

describe('convertWikiLinks', () => {
  const pages: Record<string, string> = { home: 'Home.md', 'install-guide': 'Install-Guide.md' };
  const resolve = (name: string) => pages[name.replace(/ /g, '-').toLowerCase()] ?? null;

  it('turns [[Page]] and [[Text|Page]] into markdown links, leaving unknown names and code alone', () => {
    const input = 'See [[Install Guide]] and [[the home|Home]] or [[Nowhere]].\n\n```\n[[Home]]\n```\n\nInline `[[Home]]`.\n';
    expect(convertWikiLinks(input, resolve)).toBe(
      'See [Install Guide](Install-Guide.md) and [the home](Home.md) or [[Nowhere]].\n\n```\n[[Home]]\n```\n\nInline `[[Home]]`.\n',
    );
  });

  it('wraps targets with spaces in angle brackets', () => {
    expect(convertWikiLinks('[[A]]', () => 'a page.md')).toBe('[A](<a page.md>)');
  });

  it('returns text without wiki links unchanged', () => {
    const text = '# Title\n\n[normal](x.md)\n';
    expect(convertWikiLinks(text, resolve)).toBe(text);
  });
});

describe('absolutizeMarkdownUrls', () => {
  it('resolves relative links and images against the document URL, keeping absolute ones and anchors', () => {
    const input =
      '[a](b.md) ![i](../img/x.png) [abs](https://x.example/y) [top](#top) [m](mailto:a@b.c)\n\n[ref]: ./ref.md\n\n    [code](c.md)\n';
    expect(absolutizeMarkdownUrls(input, 'https://h.example/docs/intro.md')).toBe(
      '[a](https://h.example/docs/b.md) ![i](https://h.example/img/x.png) [abs](https://x.example/y) [top](#top) [m](mailto:a@b.c)\n\n[ref]: https://h.example/docs/ref.md\n\n    [code](c.md)\n',
    );
  });
});

import { describe, expect, it } from '@jest/globals';
import { extractLinks } from '../../../../src/domain/content/link-extraction.ts';
import {
  attribute,
  closesElement,
  elementsNamed,
  hasEndTag,
  htmlText,
  parseHtmlFragment,
} from '../../../../src/domain/content/raw-html.ts';
import { splitSections } from '../../../../src/domain/content/search-text.ts';

const md = (...lines: string[]) => lines.join('\n');

describe('raw HTML fragments', () => {
  it('decodes every named and numeric character reference in text and attributes', () => {
    const [a] = elementsNamed(
      parseHtmlFragment('<a href="x.md?a=1&amp;b=2" title="&eacute;">&copy; 2024 &#169; &#xA9; &hellip; &nbsp;&lt;&gt;</a>'),
      'a',
    );
    expect(attribute(a, 'href')).toBe('x.md?a=1&b=2');
    expect(htmlText(a)).toBe('© 2024 © © … \u00a0<>');
  });

  it('reads tag and attribute names without regard to case, and unquoted or valueless attributes', () => {
    const elements = elementsNamed(parseHtmlFragment('<A HREF=page.md>One</A><IMG SRC=logo.png ALT><a href>Two</a>'), 'a', 'img');
    expect(elements.map((e) => [e.tagName, attribute(e, 'href') ?? attribute(e, 'src'), attribute(e, 'alt')])).toEqual([
      ['a', 'page.md', undefined],
      ['img', 'logo.png', ''],
      ['a', '', undefined],
    ]);
  });

  it('leaves comments out of the content', () => {
    const fragment = parseHtmlFragment('<!-- <a href="hidden.md">x</a> --><a href="shown.md">y</a>');
    expect(elementsNamed(fragment, 'a').map((a) => attribute(a, 'href'))).toEqual(['shown.md']);
  });

  it('tells an element closed by its end tag from one left open', () => {
    const [closed] = elementsNamed(parseHtmlFragment('<a href="x">text</a>'), 'a');
    const [open] = elementsNamed(parseHtmlFragment('<a href="x">'), 'a');
    expect(hasEndTag(closed)).toBe(true);
    expect(hasEndTag(open)).toBe(false);
    expect(closesElement('</a>', 'a')).toBe(true);
    expect(closesElement('</A >', 'a')).toBe(true);
    expect(closesElement('<b>', 'a')).toBe(false);
    expect(closesElement('<!-- </a> -->', 'a')).toBe(false);
  });
});

describe('links of raw HTML in markdown', () => {
  it('decodes entities in link texts, alternative texts and targets (&copy; included)', () => {
    const links = extractLinks(
      md(
        '<p><a href="legal.md">&copy; Example &amp; Co &#8212; terms</a></p>',
        '',
        '<img src="a&amp;b.png" alt="&copy; &#xA9; caf&eacute;">',
      ),
    );
    expect(links).toEqual([
      { url: 'legal.md', kind: 'link', text: '© Example & Co — terms', line: 1 },
      { url: 'a&b.png', kind: 'image', text: '© © café', line: 3 },
    ]);
  });

  it('finds tags nested anywhere in an HTML block, each on its own line', () => {
    const links = extractLinks(
      md(
        'Intro',
        '',
        '<div class="cards">',
        '  <table><tr><td><a href="one.md">First <em>card</em></a></td></tr>',
        '  <tr><td><picture><img src="two.png" alt="Second"></picture></td></tr></table>',
        '  <details><summary>More</summary>',
        '    <a href="three.md"',
        '       class="x">Third',
        '    </a>',
        '  </details>',
        '</div>',
      ),
    );
    expect(links).toEqual([
      { url: 'one.md', kind: 'link', text: 'First card', line: 4 },
      { url: 'two.png', kind: 'image', text: 'Second', line: 5 },
      { url: 'three.md', kind: 'link', text: 'Third', line: 7 },
    ]);
  });

  it('does not mistake text for tags, nor read links out of comments', () => {
    const links = extractLinks(md('<div>', 'a < b and <3 <!-- <a href="no.md">no</a> -->', '<a href="yes.md">yes</a>', '</div>'));
    expect(links).toEqual([{ url: 'yes.md', kind: 'link', text: 'yes', line: 3 }]);
  });

  it('reads the text of an inline <a> up to its </a> across markdown siblings', () => {
    const links = extractLinks('Press <a href="keys.md">**Ctrl** &copy; <kbd>C</kbd></a> then go on.');
    expect(links).toEqual([{ url: 'keys.md', kind: 'link', text: 'Ctrl © C', line: 1 }]);
  });

  it('uses an entity-encoded GitBook anchor id for a section id', () => {
    const sections = splitSections(md('## Caf\u00e9 <a href="#caf&eacute;" id="caf&eacute;"></a>', 'Body'));
    expect(sections).toEqual([{ id: 'café', title: 'Café', depth: 2, body: 'Body' }]);
    expect(extractLinks('## Caf\u00e9 <a href="#caf&eacute;" id="caf&eacute;"></a>')).toEqual([]);
  });
});

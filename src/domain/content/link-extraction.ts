/**
 * The link targets a page holds: markdown links, autolinks, references, images, and the
 * `<a href>` / `<img src>` tags of its raw HTML (read with the HTML parser, see raw-html.ts).
 */
import type { Html, Parents } from 'mdast';
import { toString } from 'mdast-util-to-string';
import { visit } from 'unist-util-visit';
import { collapse, parseMarkdown, textOf } from './markdown-parse.ts';
import { attribute, closesElement, elementsNamed, hasEndTag, htmlText, parseHtmlFragment } from './raw-html.ts';

export type LinkKind = 'link' | 'image';

export interface ExtractedLink {
  /** The target as written (reference links: as written in their definition). */
  url: string;
  kind: LinkKind;
  /** Link text, or the alternative text of an image; whitespace-collapsed. */
  text: string;
  /** 1-based line of the link in the markdown. */
  line: number;
}

/**
 * Every link target of a document, in document order: inline links, autolinks (`<https://…>`
 * and bare `www.`/`https://`/e-mail literals), reference links resolved through their
 * definitions, images, and `<a href>`/`<img src>` tags of raw HTML. Links in code are not links.
 * Definitions that nothing refers to are not reported; references without a definition are
 * plain text to the parser and are not reported either.
 */
export function extractLinks(markdown: string): ExtractedLink[] {
  const tree = parseMarkdown(markdown);
  const definitions = new Map<string, string>();
  visit(tree, 'definition', (node) => {
    // The first definition of a label wins, as in CommonMark.
    if (!definitions.has(node.identifier)) definitions.set(node.identifier, node.url);
  });

  const links: ExtractedLink[] = [];
  visit(tree, (node, index, parent) => {
    const line = node.position?.start.line ?? 1;
    switch (node.type) {
      case 'link':
        links.push({ url: node.url, kind: 'link', text: collapse(toString(node)), line });
        break;
      case 'image':
        links.push({ url: node.url, kind: 'image', text: collapse(node.alt ?? ''), line });
        break;
      case 'linkReference': {
        const url = definitions.get(node.identifier);
        if (url !== undefined) links.push({ url, kind: 'link', text: collapse(toString(node)), line });
        break;
      }
      case 'imageReference': {
        const url = definitions.get(node.identifier);
        if (url !== undefined) links.push({ url, kind: 'image', text: collapse(node.alt ?? ''), line });
        break;
      }
      case 'html':
        links.push(...htmlLinks(node, index, parent));
        break;
    }
  });
  return links;
}

/**
 * `<a href>` and `<img src>` tags of one raw-HTML node, in document order. The text of an `<a>`
 * runs to its `</a>`, inside the same node or, for inline HTML, across the following siblings.
 * GitBook's heading anchors (`<a href="#x" id="x"></a>`) point at themselves and are not reported.
 */
function htmlLinks(node: Html, index: number | undefined, parent: Parents | undefined): ExtractedLink[] {
  const startLine = node.position?.start.line ?? 1;
  const links: ExtractedLink[] = [];
  for (const element of elementsNamed(parseHtmlFragment(node.value), 'a', 'img')) {
    const line = startLine + (element.position?.start.line ?? 1) - 1;
    if (element.tagName === 'img') {
      const src = attribute(element, 'src');
      if (src !== undefined) links.push({ url: src, kind: 'image', text: collapse(attribute(element, 'alt') ?? ''), line });
      continue;
    }
    const href = attribute(element, 'href');
    if (href === undefined) continue;
    const id = attribute(element, 'id');
    if (id !== undefined && href === `#${id}`) continue;
    const text = htmlText(element) + (hasEndTag(element) ? '' : followingText(index, parent));
    links.push({ url: href, kind: 'link', text: collapse(text), line });
  }
  return links;
}

/** Inline HTML: the parser gives the opening tag, the text and the closing tag as siblings. */
function followingText(index: number | undefined, parent: Parents | undefined): string {
  if (parent === undefined || index === undefined) return '';
  let text = '';
  for (const sibling of parent.children.slice(index + 1)) {
    if (sibling.type === 'html') {
      if (closesElement(sibling.value, 'a')) break;
      continue;
    }
    text += textOf(sibling);
  }
  return text;
}

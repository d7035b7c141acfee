/**
 * The raw-HTML fragments that markdown may contain (`<figure><img …></figure>` blocks, inline
 * `<a href>` tags), read with the HTML parser of rehype (parse5, as browsers parse): every
 * character reference decodes (`&copy;`, `&#169;`, `&#xA9;`), comments are not content, tag and
 * attribute names are case-insensitive.
 */
import type { Element, ElementContent, Root } from 'hast';
import rehypeParse from 'rehype-parse';
import { unified } from 'unified';

// `verbose` keeps where each element's end tag was, so an element closed by the end of the fragment
// (`<a href="x">` alone, as inline HTML comes) can be told from one closed by its own end tag.
const parser = unified().use(rehypeParse, { fragment: true, verbose: true }).freeze();

/** Parses an HTML fragment; positions (1-based lines and columns) are relative to `html`. */
export function parseHtmlFragment(html: string): Root {
  return parser.parse(html);
}

/** The elements named any of `tagNames` (lower case) in `root`, in document order. */
export function elementsNamed(root: Root | Element, ...tagNames: string[]): Element[] {
  const found: Element[] = [];
  const walk = (children: (Root | Element)['children']) => {
    for (const child of children) {
      if (child.type !== 'element') continue;
      if (tagNames.includes(child.tagName)) found.push(child);
      walk(child.tagName === 'template' && child.content ? child.content.children : child.children);
    }
  };
  walk(root.children);
  return found;
}

/** An attribute value as written (entities decoded); undefined when the attribute is absent. */
export function attribute(element: Element, name: 'href' | 'src' | 'alt' | 'id'): string | undefined {
  const value: unknown = element.properties[name];
  if (value === undefined || value === null || value === false) return undefined;
  if (value === true) return '';
  return Array.isArray(value) ? value.join(' ') : String(value);
}

/** The text inside an element (or fragment): its text nodes joined, without tags or comments. */
export function htmlText(node: Root | Element | ElementContent): string {
  if (node.type === 'text') return node.value;
  if (node.type !== 'element' && node.type !== 'root') return '';
  return node.children.map((child) => htmlText(child as ElementContent)).join('');
}

/** Whether the element was closed by its own end tag within the fragment. */
export function hasEndTag(element: Element): boolean {
  return element.data?.position?.closing !== undefined;
}

/** Whether `html` closes an open `<tagName>` element (`</a>` for `a`), outside comments. */
export function closesElement(html: string, tagName: string): boolean {
  const [opened] = elementsNamed(parseHtmlFragment(`<${tagName}>${html}`), tagName);
  return opened !== undefined && hasEndTag(opened);
}

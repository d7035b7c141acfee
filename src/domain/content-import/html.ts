/**
 * HTML to markdown for imports, through unified: rehype-parse reads the HTML, the tree is trimmed
 * to the page's content and its URLs are resolved, rehype-remark turns it into mdast and
 * remark-stringify (with GFM, for tables and strikethrough) writes the markdown. Pure: no I/O.
 *
 * Only http(s), mailto, relative and fragment URLs survive: a link to any other scheme
 * (`javascript:`, `vbscript:`, `data:`, `file:`, …) becomes its text, and such an image (or video
 * poster) is dropped. The check runs on the final markdown tree, so every element that turns into
 * a link or an image (`a`, `img`, `video`, `audio`, `source`, `input type=image`, …) goes through it.
 */
import type { Element, Root as HastRoot, RootContent } from 'hast';
import { toText } from 'hast-util-to-text';
import rehypeParse from 'rehype-parse';
import rehypeRemark from 'rehype-remark';
import remarkGfm from 'remark-gfm';
import remarkStringify from 'remark-stringify';
import { unified } from 'unified';
import { visit, SKIP } from 'unist-util-visit';
import type { Root as MdastRoot, Parent as MdastParent, RootContent as MdastContent } from 'mdast';

export type UrlKind = 'link' | 'image';

export interface HtmlToMarkdownOptions {
  /** The document's own URL: relative links and images are resolved against it (and `<base href>`). */
  baseUrl?: string;
  /**
   * A whole web page: keep only its main content (`<main>`, `<article>`, `[role=main]`, else
   * `<body>`) and drop navigation, headers, footers, sidebars and forms.
   */
  mainContent?: boolean;
  /** Maps every link and image URL (already resolved) to what the markdown says; null keeps it. */
  rewrite?: (url: string, kind: UrlKind) => string | null;
}

export interface ConvertedHtml {
  /** The first `<h1>`, else `<title>`; null when neither has text. */
  title: string | null;
  /** Markdown, starting with `# title` when there is a title (as a page file of the git layout). */
  markdown: string;
  /** The markdown without the title heading (a page's body). */
  body: string;
  /** Resolved link targets, in document order, without duplicates (before `rewrite`). */
  links: string[];
  /** Resolved image sources, in document order, without duplicates (before `rewrite`). */
  images: string[];
}

const parser = unified().use(rehypeParse);
const toMarkdown = unified().use(rehypeRemark).use(remarkGfm).use(remarkStringify, { bullet: '-', emphasis: '_', rule: '-', fences: true });

const ALWAYS_DROPPED = new Set(['script', 'style', 'noscript', 'template', 'link', 'meta', 'object', 'embed', 'iframe', 'canvas']);
const CHROME = new Set(['nav', 'header', 'footer', 'aside', 'form', 'button', 'select', 'input', 'textarea', 'svg', 'dialog']);
const CHROME_ROLES = new Set(['navigation', 'banner', 'contentinfo', 'complementary', 'search']);

const collapse = (text: string) => text.replace(/\s+/g, ' ').trim();

const SAFE_SCHEMES = new Set(['http', 'https', 'mailto']);

/**
 * Whether a link or image URL may stay: http, https, mailto, or no scheme at all (relative,
 * protocol-relative, fragment). The scheme is read as the URL parser reads it (leading
 * control characters and spaces ignored, tabs and newlines removed anywhere), and as a markdown
 * reader would after decoding character references (`javascript&#58;…`).
 */
export function isSafeUrl(url: string): boolean {
  const normalized = decodeReferences(url)
    .replace(/^[\u0000-\u0020]+/, '')
    .replace(/[\t\n\r]/g, '');
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(normalized);
  return scheme === null || SAFE_SCHEMES.has(scheme[1].toLowerCase());
}

/** Numeric character references and the named ones that matter in a scheme (`&colon;`, `&Tab;`, `&NewLine;`), decoded. */
function decodeReferences(text: string): string {
  if (!text.includes('&')) return text;
  const named: Record<string, string> = { colon: ':', tab: '\t', newline: '\n', amp: '&' };
  return text.replace(/&(?:#(\d+)|#x([0-9a-f]+)|([a-z]+));?/gi, (whole, dec?: string, hex?: string, name?: string) => {
    if (name !== undefined) return named[name.toLowerCase()] ?? whole;
    const code = dec !== undefined ? Number.parseInt(dec, 10) : Number.parseInt(hex!, 16);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}

/** Replaces links to unsafe URLs by their text and drops unsafe images and definitions, in place. */
function dropUnsafeUrls(tree: MdastRoot): void {
  visit(tree, (node, index, parent) => {
    if (parent === undefined || index === undefined) return undefined;
    if ((node.type === 'link' || node.type === 'image' || node.type === 'definition') && !isSafeUrl(node.url)) {
      const kept = node.type === 'link' ? node.children : [];
      (parent as MdastParent).children.splice(index, 1, ...(kept as MdastContent[]));
      // Visit what took its place (a link's text may hold an image).
      return index;
    }
    return undefined;
  });
}

function findElement(tree: HastRoot | Element, test: (node: Element) => boolean): Element | null {
  let found: Element | null = null;
  visit(tree, 'element', (node) => {
    if (found) return SKIP;
    if (test(node)) {
      found = node;
      return SKIP;
    }
    return undefined;
  });
  return found;
}

function resolveAgainst(value: string, base: string | undefined): string {
  const trimmed = value.trim();
  if (base === undefined || trimmed === '' || trimmed.startsWith('#')) return trimmed;
  try {
    return new URL(trimmed, base).href;
  } catch {
    return trimmed;
  }
}

/** Removes elements matching `drop` from the tree, in place. */
function prune(tree: HastRoot | Element, drop: (node: Element) => boolean): void {
  visit(tree, (node, index, parent) => {
    if (node.type === 'comment' && parent && index !== undefined) {
      parent.children.splice(index, 1);
      return [SKIP, index];
    }
    if (node.type !== 'element' || !parent || index === undefined) return undefined;
    if (drop(node)) {
      parent.children.splice(index, 1);
      return [SKIP, index];
    }
    return undefined;
  });
}

/** Converts an HTML document or fragment to markdown. */
export function htmlToMarkdown(html: string, options: HtmlToMarkdownOptions = {}): ConvertedHtml {
  const tree = parser.parse(html);
  const titleElement = findElement(tree, (n) => n.tagName === 'title');
  const documentTitle = titleElement ? collapse(toText(titleElement)) : '';
  const baseElement = findElement(tree, (n) => n.tagName === 'base' && typeof n.properties.href === 'string');
  const base =
    baseElement && options.baseUrl !== undefined ? resolveAgainst(String(baseElement.properties.href), options.baseUrl) : options.baseUrl;

  let content: HastRoot | Element = findElement(tree, (n) => n.tagName === 'body') ?? tree;
  if (options.mainContent) {
    content =
      findElement(content, (n) => n.tagName === 'main') ??
      findElement(content, (n) => n.properties.role === 'main') ??
      findElement(content, (n) => n.tagName === 'article') ??
      content;
  }
  prune(content, (n) => {
    if (ALWAYS_DROPPED.has(n.tagName) || n.tagName === 'head' || n.tagName === 'title') return true;
    if (n.properties.hidden !== undefined && n.properties.hidden !== false && n.properties.hidden !== null) return true;
    if (!options.mainContent) return false;
    return CHROME.has(n.tagName) || CHROME_ROLES.has(String(n.properties.role ?? ''));
  });

  // The first level-1 heading names the page; it is written back as the markdown's first line.
  const h1 = findElement(content, (n) => n.tagName === 'h1');
  const headingTitle = h1 ? collapse(toText(h1)) : '';
  if (h1 && headingTitle !== '') prune(content, (n) => n === h1);
  const title = headingTitle || documentTitle || null;

  const links: string[] = [];
  const images: string[] = [];
  visit(content, 'element', (node) => {
    const attribute = node.tagName === 'a' ? 'href' : node.tagName === 'img' ? 'src' : null;
    if (attribute === null) return;
    const raw = node.properties[attribute];
    if (typeof raw !== 'string' || raw.trim() === '') return;
    const resolved = resolveAgainst(raw, base);
    // Unsafe targets are neither reported nor rewritten; dropUnsafeUrls removes them from the markdown.
    if (!isSafeUrl(resolved)) return;
    const kind: UrlKind = node.tagName === 'a' ? 'link' : 'image';
    (kind === 'link' ? links : images).push(resolved);
    node.properties[attribute] = options.rewrite?.(resolved, kind) ?? resolved;
  });

  const root: HastRoot = content.type === 'root' ? content : { type: 'root', children: content.children as RootContent[] };
  const mdast = toMarkdown.runSync(root as HastRoot) as unknown as MdastRoot;
  dropUnsafeUrls(mdast);
  const text = toMarkdown.stringify(mdast).trim();
  const body = text === '' ? '' : `${text}\n`;
  const markdown = title === null ? body : `# ${escapeHeading(title)}\n${body === '' ? '' : `\n${body}`}`;
  return { title, markdown, body, links: [...new Set(links)], images: [...new Set(images)] };
}

function escapeHeading(title: string): string {
  return title.replace(/([\\`*_[\]<>])/g, '\\$1');
}

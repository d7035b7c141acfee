/**
 * Page markdown as sanitized HTML, and the printable document the PDF export renders.
 *
 * Markdown is parsed by the same parser as everywhere else (`parseMarkdown`: CommonMark, GitHub
 * extensions, front matter skipped), turned into an HTML tree by remark-rehype and cleaned by
 * rehype-sanitize with GitHub's rules: raw HTML inside the markdown is dropped (there is no HTML
 * parser in the pipeline, so it never reaches the tree), `script` and every element or attribute
 * outside the allow list (`on*` handlers, `style`, `iframe`, `form`, …) is removed, and link and
 * image URLs keep only safe protocols (`javascript:`, `data:`, `file:`, … go).
 *
 * Images are decided after sanitization by a resolver the caller trusts: it turns an image source
 * into a `data:image/…` URI (for files of the revision), or the image is replaced by a link to it,
 * because the printer fetches nothing.
 *
 * Everything here is pure; titles and descriptions are text nodes, so they are escaped by
 * construction when the tree is serialized.
 */
import type { Element, ElementContent, Root } from 'hast';
import rehypeSanitize, { defaultSchema } from 'rehype-sanitize';
import rehypeStringify from 'rehype-stringify';
import remarkRehype from 'remark-rehype';
import { unified } from 'unified';
import { visit } from 'unist-util-visit';
import { parseMarkdown } from './markdown-parse.ts';
import { buildTree, childrenIndex, getPage, type PageMap, type PageNode, type TreeEntry } from './tree.ts';

// ---------------------------------------------------------------------------------------------
// Markdown → sanitized HTML tree

/** GitHub's sanitization rules (rehype-sanitize's default), stated here so a change is deliberate. */
const SCHEMA = defaultSchema;

// Footnote ids are written bare here; the sanitizer prefixes every id (`user-content-`), and
// `scopeFragments` then points the in-page links at the prefixed ids.
const toSafeTree = unified().use(remarkRehype, { allowDangerousHtml: false, clobberPrefix: '' }).use(rehypeSanitize, SCHEMA).freeze();
const sanitizer = unified().use(rehypeSanitize, SCHEMA).freeze();
const serializer = unified().use(rehypeStringify).freeze();

/** An HTML tree cleaned by the same rules as page content (a copy; the input is left as it is). */
export function sanitizeTree(tree: Root): Root {
  return sanitizer.runSync(structuredClone(tree)) as Root;
}

/** The sanitized HTML tree of one page's markdown. */
export function markdownToSafeTree(markdown: string): Root {
  return toSafeTree.runSync(parseMarkdown(markdown)) as Root;
}

/**
 * Makes in-page links (`#fn-1`) reach the ids the sanitizer prefixed (`user-content-fn-1`), and
 * scopes both with `scope` so that pages printed into one document keep their anchors apart.
 */
function scopeFragments(tree: Root, scope: string): void {
  const prefix = SCHEMA.clobberPrefix ?? '';
  visit(tree, 'element', (node) => {
    if (scope !== '') {
      for (const key of ['id', 'ariaDescribedBy', 'ariaLabelledBy']) {
        const value = node.properties[key];
        if (typeof value === 'string') node.properties[key] = `${scope}${value}`;
        else if (Array.isArray(value)) node.properties[key] = value.map((v) => `${scope}${v}`);
      }
    }
    const href = node.tagName === 'a' ? node.properties.href : undefined;
    if (typeof href === 'string' && href.startsWith('#') && href.length > 1) {
      const fragment = href.slice(1);
      node.properties.href = `#${scope}${fragment.startsWith(prefix) ? '' : prefix}${fragment}`;
    }
  });
}

/**
 * Turns an image source (as it appears in the sanitized tree) of a page into a `data:image/…`
 * URI, or null.
 */
export type ImageResolver = (src: string, page: PageNode | null) => string | null;

/** The distinct image sources of a sanitized tree, in document order. */
export function imageSources(tree: Root): string[] {
  const sources = new Set<string>();
  visit(tree, 'element', (node) => {
    if (node.tagName === 'img' && typeof node.properties.src === 'string' && node.properties.src !== '') sources.add(node.properties.src);
  });
  return [...sources];
}

/**
 * Inlines the images the resolver knows; every other image becomes a link to its source (or its
 * alternative text alone when the source is not an absolute web URL), so printing fetches nothing.
 */
function placeImages(tree: Root, resolve: ImageResolver | undefined, page: PageNode | null): void {
  visit(tree, 'element', (node, index, parent) => {
    if (node.tagName !== 'img' || parent === undefined || index === undefined) return;
    const src = typeof node.properties.src === 'string' ? node.properties.src : '';
    const inlined = src === '' || !resolve ? null : resolve(src, page);
    if (inlined !== null && /^data:image\/[a-z0-9.+-]+;base64,[A-Za-z0-9+/=]*$/i.test(inlined)) {
      node.properties.src = inlined;
      return;
    }
    const alt = typeof node.properties.alt === 'string' ? node.properties.alt.trim() : '';
    const label: ElementContent = { type: 'text', value: `[image${alt ? `: ${alt}` : ''}]` };
    const replacement: Element = /^https?:\/\//i.test(src)
      ? { type: 'element', tagName: 'a', properties: { href: src, className: ['missing-image'] }, children: [label] }
      : { type: 'element', tagName: 'span', properties: { className: ['missing-image'] }, children: [label] };
    parent.children[index] = replacement;
  });
}

/** One page's markdown as a sanitized HTML fragment. */
export function markdownToHtml(markdown: string, options: { image?: ImageResolver } = {}): string {
  const tree = markdownToSafeTree(markdown);
  scopeFragments(tree, '');
  placeImages(tree, options.image, null);
  return serializer.stringify(tree);
}

// ---------------------------------------------------------------------------------------------
// Which pages a PDF holds

export interface PrintSelection {
  /** The page the export is about; absent: the whole content. */
  pageId?: string | null;
  /** With `pageId`: that page alone; otherwise the page and the pages under it. */
  only?: boolean;
}

export interface PrintPage {
  page: PageNode;
  /** 0 for the page the export starts from (or a top-level page), +1 per level below it. */
  depth: number;
}

/**
 * The pages to print, depth first in tree order (siblings by position). The whole content leaves
 * out hidden pages and everything under them; a page asked for by id is printed even when hidden.
 * Returns null when `pageId` names no page of the map.
 */
export function selectPrintPages(map: PageMap, selection: PrintSelection): PrintPage[] | null {
  const pageId = selection.pageId ?? null;
  if (pageId !== null) {
    const page = getPage(map, pageId);
    if (!page) return null;
    if (selection.only) return [{ page, depth: 0 }];
    const index = childrenIndex(map);
    const out: PrintPage[] = [];
    const stack: PrintPage[] = [{ page, depth: 0 }];
    const seen = new Set<string>();
    while (stack.length > 0) {
      const next = stack.pop()!;
      if (seen.has(next.page.id)) continue;
      seen.add(next.page.id);
      out.push(next);
      const children = (index.get(next.page.id) ?? []).filter((child) => !child.hidden);
      for (let i = children.length - 1; i >= 0; i--) stack.push({ page: children[i], depth: next.depth + 1 });
    }
    return out;
  }
  const out: PrintPage[] = [];
  const walk = (entries: TreeEntry[], depth: number) => {
    for (const entry of entries) {
      if (entry.node.hidden) continue;
      out.push({ page: entry.node, depth });
      walk(entry.children, depth + 1);
    }
  };
  walk(buildTree(map), 0);
  return out;
}

// ---------------------------------------------------------------------------------------------
// The printable document

export interface PrintDocument {
  /** The document title (`<title>`, PDF metadata). */
  title: string;
  /** A line printed above the first page, e.g. the space and the change request. */
  subtitle?: string;
  pages: PrintPage[];
}

/** Only inline styles and inlined images: even if something slipped through, the page may load nothing. */
const CONTENT_SECURITY_POLICY = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; font-src data:";

export const PRINT_STYLESHEET = `
html { font-family: "DejaVu Sans", "Liberation Sans", Arial, sans-serif; font-size: 10.5pt; line-height: 1.5; color: #1f2328; }
body { margin: 0; }
.document-header { color: #59636e; font-size: 9pt; border-bottom: 1px solid #d1d9e0; padding-bottom: 4pt; margin-bottom: 14pt; }
.page + .page { break-before: page; }
.page-title { font-size: 20pt; line-height: 1.25; margin: 0 0 4pt; }
.page-description { color: #59636e; font-size: 11.5pt; margin: 0 0 14pt; }
.page-link { margin: 0 0 10pt; }
h1, h2, h3, h4, h5, h6 { line-height: 1.25; margin: 16pt 0 6pt; break-after: avoid; }
.page-body h1 { font-size: 16pt; } .page-body h2 { font-size: 14pt; } .page-body h3 { font-size: 12pt; } .page-body h4, .page-body h5, .page-body h6 { font-size: 10.5pt; }
p, ul, ol, table, pre, blockquote { margin: 0 0 9pt; }
a { color: #0969da; text-decoration: none; }
code, kbd, samp, pre { font-family: "DejaVu Sans Mono", "Liberation Mono", monospace; font-size: 9pt; }
code { background: #eff1f3; border-radius: 3pt; padding: 0.1em 0.3em; }
pre { background: #f6f8fa; border: 1px solid #d1d9e0; border-radius: 4pt; padding: 8pt; white-space: pre-wrap; overflow-wrap: anywhere; }
pre code { background: none; padding: 0; }
blockquote { border-left: 3pt solid #d1d9e0; color: #59636e; margin-left: 0; padding-left: 10pt; }
table { border-collapse: collapse; max-width: 100%; }
thead { display: table-header-group; }
tr { break-inside: avoid; }
th, td { border: 1px solid #d1d9e0; padding: 3pt 7pt; text-align: left; vertical-align: top; }
th { background: #f6f8fa; }
img { max-width: 100%; break-inside: avoid; }
.missing-image { color: #59636e; font-style: italic; }
.sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
.footnotes { border-top: 1px solid #d1d9e0; font-size: 9pt; margin-top: 14pt; }
hr { border: 0; border-top: 1px solid #d1d9e0; }
li.task-list-item { list-style: none; }
`;

const text = (value: string): ElementContent => ({ type: 'text', value });
const el = (tagName: string, properties: Element['properties'], children: ElementContent[]): Element => ({
  type: 'element',
  tagName,
  properties,
  children,
});

/**
 * A complete HTML document for printing: each page starts on a new sheet with its title (and
 * description), link pages show their target, and the page bodies are the sanitized trees of their
 * markdown with images placed by `image`. `trees` may hold pages' trees parsed already
 * (`markdownToSafeTree`, by page id), so that a caller that read them first does not parse twice;
 * they are changed in place. A document page not in it is parsed here.
 */
export function printDocumentHtml(doc: PrintDocument, options: { image?: ImageResolver; trees?: ReadonlyMap<string, Root> } = {}): string {
  const sections: ElementContent[] = [];
  if (doc.subtitle) sections.push(el('div', { className: ['document-header'] }, [text(doc.subtitle)]));
  for (const [i, { page, depth }] of doc.pages.entries()) {
    const children: ElementContent[] = [el('h1', { className: ['page-title'] }, [text(page.title)])];
    if (page.description) children.push(el('p', { className: ['page-description'] }, [text(page.description)]));
    if (page.type === 'link' && page.href) {
      // The target goes through the same sanitizer as page content, so only safe protocols remain.
      const link = sanitizeTree({ type: 'root', children: [el('a', { href: page.href }, [text(page.href)])] });
      children.push(el('p', { className: ['page-link'] }, link.children as ElementContent[]));
    }
    if (page.type === 'document') {
      const body = options.trees?.get(page.id) ?? markdownToSafeTree(page.markdown);
      scopeFragments(body, `p${i}-`);
      placeImages(body, options.image, page);
      children.push(el('div', { className: ['page-body'] }, body.children as ElementContent[]));
    }
    sections.push(el('section', { className: ['page', `depth-${Math.min(depth, 6)}`] }, children));
  }
  const root: Root = {
    type: 'root',
    children: [
      { type: 'doctype' },
      el('html', {}, [
        el('head', {}, [
          el('meta', { charSet: 'utf-8' }, []),
          el('meta', { httpEquiv: ['Content-Security-Policy'], content: CONTENT_SECURITY_POLICY }, []),
          el('title', {}, [text(doc.title)]),
          el('style', {}, [text(PRINT_STYLESHEET)]),
        ]),
        el('body', {}, sections),
      ]),
    ],
  };
  return serializer.stringify(root);
}

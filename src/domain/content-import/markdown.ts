/**
 * Markdown of imported pages: its title, and its link and image targets rewritten in place (the
 * rest of the text is kept byte for byte). Read with a real parser (CommonMark, GFM, front
 * matter), so code is never touched. Pure: no I/O.
 */
import type { Heading, Nodes } from 'mdast';
import { toString } from 'mdast-util-to-string';
import remarkFrontmatter from 'remark-frontmatter';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import { unified } from 'unified';
import { visit } from 'unist-util-visit';
import { parse as parseYaml } from 'yaml';
import type { UrlKind } from './html.ts';

const processor = unified().use(remarkParse).use(remarkGfm).use(remarkFrontmatter, ['yaml']).freeze();

export interface MarkdownFacts {
  /** Front matter `title`, else a leading `# heading`; null when neither. */
  title: string | null;
  description: string | null;
}

/** What a markdown document says about itself. */
export function markdownFacts(markdown: string): MarkdownFacts {
  const tree = processor.parse(markdown);
  let title: string | null = null;
  let description: string | null = null;
  const first = tree.children[0];
  if (first?.type === 'yaml') {
    try {
      const data = parseYaml(first.value) as Record<string, unknown> | null;
      if (data && typeof data === 'object') {
        if (typeof data.title === 'string' && data.title.trim() !== '') title = data.title.trim();
        if (typeof data.description === 'string' && data.description.trim() !== '') description = data.description.trim();
      }
    } catch {
      // not YAML after all
    }
  }
  if (title === null) {
    const heading = tree.children.find((n) => n.type !== 'yaml' && n.type !== 'html');
    if (heading?.type === 'heading' && (heading as Heading).depth === 1) {
      const text = toString(heading).replace(/\s+/g, ' ').trim();
      if (text !== '') title = text;
    }
  }
  return { title, description };
}

interface Edit {
  start: number;
  end: number;
  text: string;
}

/** Where `url` is written inside `source[from, to)`: as is, in angle brackets, or escaped. */
function locate(source: string, from: number, to: number, url: string, after: number): [number, number] | null {
  const slice = source.slice(from, to);
  const candidates = [url, encodeURI(url), url.replace(/([()\\])/g, '\\$1'), url.replace(/ /g, '%20')];
  for (const candidate of candidates) {
    if (candidate === '') continue;
    const at = slice.indexOf(candidate, after);
    if (at !== -1) return [from + at, from + at + candidate.length];
  }
  return null;
}

function escapeDestination(url: string): string {
  return /[\s()<>]/.test(url) ? `<${url.replace(/[<>]/g, encodeURIComponent)}>` : url;
}

const HTML_URL = /(<(?:img|a)\b[^>]*?\b(src|href)\s*=\s*)(["'])(.*?)\3/gi;

/**
 * Rewrites the targets of links, images, link definitions and `<a href>`/`<img src>` tags of raw
 * HTML: `rewrite` returns the new target, or null to keep one. Only the targets change.
 */
export function rewriteMarkdownUrls(markdown: string, rewrite: (url: string, kind: UrlKind) => string | null): string {
  const tree = processor.parse(markdown);
  const edits: Edit[] = [];
  visit(tree, (node: Nodes) => {
    const start = node.position?.start.offset;
    const end = node.position?.end.offset;
    if (start === undefined || end === undefined) return;
    if (node.type === 'link' || node.type === 'image' || node.type === 'definition') {
      if (node.type === 'link' && node.url === toString(node) && !markdown.slice(start, end).includes('](')) return; // autolink
      const next = rewrite(node.url, node.type === 'image' ? 'image' : 'link');
      if (next === null || next === node.url) return;
      // The target follows the text: search after the last child (links) or the label (definitions).
      const children = 'children' in node ? node.children : [];
      const textEnd = children.length > 0 ? (children[children.length - 1].position?.end.offset ?? start) - start : 0;
      const at = locate(markdown, start, end, node.url, textEnd);
      if (at) edits.push({ start: at[0], end: at[1], text: escapeDestination(next) });
    } else if (node.type === 'html') {
      const value = markdown.slice(start, end);
      const replaced = value.replace(HTML_URL, (all, head: string, attribute: string, quote: string, url: string) => {
        const next = rewrite(url, attribute.toLowerCase() === 'src' ? 'image' : 'link');
        return next === null ? all : `${head}${quote}${next.replace(new RegExp(quote, 'g'), encodeURIComponent(quote))}${quote}`;
      });
      if (replaced !== value) edits.push({ start, end, text: replaced });
    }
  });
  edits.sort((a, b) => b.start - a.start);
  let out = markdown;
  let limit = Infinity;
  for (const edit of edits) {
    if (edit.end > limit) continue; // overlapping (a link inside raw HTML): the outer edit won
    out = out.slice(0, edit.start) + edit.text + out.slice(edit.end);
    limit = edit.start;
  }
  return out;
}

/**
 * GitHub wiki links: `[[Page Name]]` and `[[Text|Page Name]]` become markdown links to the page the
 * name resolves to (`resolve` returns its path, or null to keep the text). Code is not touched.
 */
export function convertWikiLinks(markdown: string, resolve: (name: string) => string | null): string {
  const tree = processor.parse(markdown);
  const edits: Edit[] = [];
  visit(tree, 'text', (node) => {
    const start = node.position?.start.offset;
    const end = node.position?.end.offset;
    if (start === undefined || end === undefined) return;
    const raw = markdown.slice(start, end);
    const replaced = raw.replace(/\[\[([^\]|\n]+?)(?:\|([^\]\n]+?))?\]\]/g, (all, a: string, b: string | undefined) => {
      const text = a.trim();
      const target = resolve((b ?? a).trim());
      return target === null ? all : `[${text}](${escapeDestination(target)})`;
    });
    if (replaced !== raw) edits.push({ start, end, text: replaced });
  });
  edits.sort((a, b) => b.start - a.start);
  let out = markdown;
  for (const edit of edits) out = out.slice(0, edit.start) + edit.text + out.slice(edit.end);
  return out;
}

/** Relative link and image targets resolved against the document's URL (a markdown file fetched from the web). */
export function absolutizeMarkdownUrls(markdown: string, baseUrl: string): string {
  return rewriteMarkdownUrls(markdown, (url) => {
    const trimmed = url.trim();
    if (trimmed === '' || trimmed.startsWith('#') || /^[a-z][a-z0-9+.-]*:/i.test(trimmed)) return null;
    try {
      return new URL(trimmed, baseUrl).href;
    } catch {
      return null;
    }
  });
}

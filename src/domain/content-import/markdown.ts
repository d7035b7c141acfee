/**
 * Markdown of imported pages: GitHub wiki links made markdown links, and relative targets of a
 * fetched document resolved against its URL. Only those characters change; code is never
 * touched (the text is read with a real parser: CommonMark, GFM, front matter). Pure.
 */
import { markdownAsText, markdownLimitProblem, type LimitProblem } from '../content/limits.ts';
import remarkFrontmatter from 'remark-frontmatter';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import { unified } from 'unified';
import { visit } from 'unist-util-visit';
import { rewriteLinks } from '../git/links.ts';

const processor = unified().use(remarkParse).use(remarkGfm).use(remarkFrontmatter, ['yaml']).freeze();

const WIKI_LINK = /\[\[([^\]|\n]+?)(?:\|([^\]\n]+?))?\]\]/g;

function destination(url: string): string {
  return /[\s()<>]/.test(url) ? `<${url.replace(/[<>]/g, encodeURIComponent)}>` : url;
}

/**
 * GitHub wiki links: `[[Page Name]]` and `[[Text|Page Name]]` become markdown links to what
 * `resolve` returns for the page name; null keeps the text as written.
 */
export function convertWikiLinks(markdown: string, resolve: (name: string) => string | null): string {
  // A page past the limits is never parsed: the layout reader keeps it as text.
  if (!markdown.includes('[[') || markdownLimitProblem(markdown) !== null) return markdown;
  const tree = processor.parse(markdown);
  const edits: { start: number; end: number; text: string }[] = [];
  visit(tree, 'text', (node) => {
    const start = node.position?.start.offset;
    const end = node.position?.end.offset;
    if (start === undefined || end === undefined) return;
    const raw = markdown.slice(start, end);
    const replaced = raw.replace(WIKI_LINK, (all, a: string, b: string | undefined) => {
      const target = resolve((b ?? a).trim());
      return target === null ? all : `[${a.trim()}](${destination(target)})`;
    });
    if (replaced !== raw) edits.push({ start, end, text: replaced });
  });
  edits.sort((x, y) => y.start - x.start);
  let out = markdown;
  for (const edit of edits) out = out.slice(0, edit.start) + edit.text + out.slice(edit.end);
  return out;
}

/** Relative link and image targets resolved against the document's URL (a markdown file fetched from the web). */
export function absolutizeMarkdownUrls(markdown: string, baseUrl: string): string {
  return rewriteLinks(markdown, (url) => {
    const trimmed = url.trim();
    if (trimmed === '' || trimmed.startsWith('#') || /^[a-z][a-z0-9+.-]*:/i.test(trimmed)) return null;
    try {
      return new URL(trimmed, baseUrl).href;
    } catch {
      return null;
    }
  });
}

/**
 * An imported page's markdown as it is stored: as it is, or past the limits of every page
 * (../content/limits.ts) its text in a code block that says why, never parsed. An over-limit page
 * is kept, not a failure: the rest of the import goes on. `problem` is the warning to log.
 */
export function boundedImportMarkdown(markdown: string): { markdown: string; problem: LimitProblem | null } {
  const problem = markdownLimitProblem(markdown);
  if (problem === null) return { markdown, problem };
  return { markdown: markdownAsText(markdown, `This page is kept as text: ${problem.message}`), problem };
}

import type { Heading, List, ListItem, Nodes } from 'mdast';
import { parse as parseYaml } from 'yaml';
import { markdownLimitProblem } from '../content/limits.ts';
import { parseMarkdown } from '../content/markdown.ts';
import { slugify } from '../content/tree.ts';

/**
 * `SUMMARY.md` (the page tree of GitBook's git layout) and `.gitbook.yaml`, read and written. Pure.
 *
 * A summary is a markdown document: an optional `# Title`, then lists of links, each nested list
 * holding the children of the item above; `## Heading` starts a group of pages. Items without a
 * link are pages without a file; items linking outside the repository are link pages.
 */

export interface SummaryEntry {
  title: string;
  /** The link target as written (percent-escapes kept), or null for an item without a link. */
  href: string | null;
  /** The link's title (`[Text](page.md "Title")`), when it has one. */
  linkTitle?: string;
  children: SummaryEntry[];
}

export interface SummaryPart {
  /**
   * The `## Heading` of a group, without its anchor; null for the entries before the first
   * heading, and for those after a `***` separator (top-level pages after a group).
   */
  title: string | null;
  /** The group's slug: the id of the heading's anchor (`## Title <a href="#slug" id="slug"></a>`), when it has one. */
  slug?: string;
  entries: SummaryEntry[];
}

/**
 * The text of a node as mdast-util-to-string gives it (values, image alts, children's texts in
 * order), read without recursion: inline nesting (emphasis in emphasis…) is not bounded by the
 * markdown limits, so no walk of an item may take one stack frame per level.
 */
function textOf(node: Nodes): string {
  let out = '';
  const stack: Nodes[] = [node];
  while (stack.length > 0) {
    const next = stack.pop()!;
    if ('value' in next && typeof next.value === 'string') out += next.value;
    else if ('alt' in next && next.alt) out += next.alt;
    else if ('children' in next) for (let i = next.children.length - 1; i >= 0; i--) stack.push(next.children[i] as Nodes);
  }
  return out;
}

/** The first link under a node, in document order (read without recursion, as `textOf`). */
function firstLink(node: Nodes): { title: string; href: string; linkTitle?: string } | null {
  const stack: Nodes[] = [node];
  while (stack.length > 0) {
    const next = stack.pop()!;
    if (next.type === 'link') return { title: textOf(next).trim(), href: next.url, ...(next.title ? { linkTitle: next.title } : {}) };
    if ('children' in next) for (let i = next.children.length - 1; i >= 0; i--) stack.push(next.children[i] as Nodes);
  }
  return null;
}

/**
 * The entries of a list, each with the entries of the lists nested in its item, read without
 * recursion: lists waiting to be read are taken in the order they were found, so the lists of one
 * item fill its children in document order.
 */
function readList(top: List): SummaryEntry[] {
  const entries: SummaryEntry[] = [];
  const pending: { list: List; into: SummaryEntry[] }[] = [{ list: top, into: entries }];
  for (let next = 0; next < pending.length; next++) {
    const { list, into } = pending[next];
    for (const item of list.children as ListItem[]) {
      let title = '';
      let href: string | null = null;
      let linkTitle: string | undefined;
      const children: SummaryEntry[] = [];
      for (const child of item.children) {
        if (child.type === 'list') pending.push({ list: child, into: children });
        else if (title === '' && href === null) {
          const link = firstLink(child);
          if (link) {
            title = link.title;
            href = link.href;
            linkTitle = link.linkTitle;
          } else title = textOf(child).trim();
        }
      }
      into.push({ title, href, ...(linkTitle !== undefined ? { linkTitle } : {}), children });
    }
  }
  return entries;
}

const ANCHOR_ID = /\bid=(?:"([^"]*)"|'([^']*)')/i;

/** A group heading's title (its text without inline HTML) and the id of its anchor, if any. */
function headingOf(node: Heading): { title: string; slug?: string } {
  let slug: string | undefined;
  const text: string[] = [];
  for (const child of node.children) {
    if (child.type === 'html') {
      const id = ANCHOR_ID.exec(child.value);
      if (id && slug === undefined && (id[1] ?? id[2]) !== '') slug = id[1] ?? id[2];
    } else text.push(textOf(child));
  }
  return { title: text.join('').trim(), ...(slug !== undefined ? { slug } : {}) };
}

/**
 * The parts of a summary, in order: the entries before the first `## Heading`, one part per
 * heading, and one (without title) after each `***` separator. Text outside lists, headings and
 * separators is ignored.
 *
 * A summary is read as a page is (../content/limits.ts): past one of the limits of every page
 * (`MAX_NESTING`, `MAX_PAGE_SIZE`…) it is refused before it is parsed, with a LayoutError
 * (`MARKDOWN_LIMIT`) naming the limit, rather than read as text (which lists no page). Nesting the
 * limits do not bound (emphasis in emphasis…) that still overflows the parser's stack is refused the
 * same way. `name` is the summary's path, for the messages.
 */
export function parseSummary(markdown: string, name = 'SUMMARY.md'): SummaryPart[] {
  const problem = markdownLimitProblem(markdown);
  if (problem !== null) throw new LayoutError('MARKDOWN_LIMIT', `${name} cannot be read: ${problem.message}`);
  let root;
  try {
    root = parseMarkdown(markdown);
  } catch (error) {
    if (isStackOverflow(error)) throw new LayoutError('MARKDOWN_LIMIT', `${name} nests too deeply to be read (limit MAX_NESTING)`);
    throw error;
  }
  const parts: SummaryPart[] = [{ title: null, entries: [] }];
  for (const node of root.children) {
    if (node.type === 'heading' && node.depth >= 2) parts.push({ ...headingOf(node), entries: [] });
    else if (node.type === 'thematicBreak') parts.push({ title: null, entries: [] });
    else if (node.type === 'list') parts[parts.length - 1].entries.push(...readList(node));
  }
  return parts.filter((p, i) => i === 0 || p.title !== null || p.entries.length > 0);
}

/** Whether an error is V8's stack overflow (a RangeError, not one of the project's own). */
export function isStackOverflow(error: unknown): boolean {
  return error instanceof RangeError && /maximum call stack size exceeded/i.test(error.message);
}

const escapeTitle = (title: string) => title.replace(/([\\[\]])/g, '\\$1').replace(/\n/g, ' ');

/** Percent-encodes what would break a markdown link destination (spaces, parentheses, `%`, `<>`). */
export function encodePath(path: string): string {
  return path
    .split('/')
    .map((segment) =>
      encodeURIComponent(segment)
        .replace(/%2C/g, ',')
        .replace(/%40/g, '@')
        .replace(/%2B/g, '+')
        .replace(/%3D/g, '=')
        .replace(/[()]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`),
    )
    .join('/');
}

function writeEntries(entries: SummaryEntry[], depth: number, out: string[]): void {
  for (const entry of entries) {
    const indent = '  '.repeat(depth);
    const linkTitle = entry.linkTitle === undefined ? '' : ` "${entry.linkTitle.replace(/(["\\])/g, '\\$1').replace(/\n/g, ' ')}"`;
    out.push(
      entry.href === null
        ? `${indent}* ${escapeTitle(entry.title)}`
        : `${indent}* [${escapeTitle(entry.title)}](${entry.href}${linkTitle})`,
    );
    writeEntries(entry.children, depth + 1, out);
  }
}

/**
 * Writes a summary as GitBook does; hrefs are written as given (encode them with `encodePath`). A
 * group whose slug is not the one its title gives carries it as an anchor; entries without a
 * group after a group follow a `***` separator.
 */
export function renderSummary(parts: SummaryPart[]): string {
  const out: string[] = ['# Table of contents', ''];
  parts.forEach((part, i) => {
    if (part.title !== null) {
      const title = part.title.replace(/\n/g, ' ');
      const anchor = part.slug !== undefined && part.slug !== slugify(part.title) ? ` <a href="#${part.slug}" id="${part.slug}"></a>` : '';
      out.push('', `## ${title}${anchor}`, '');
    } else if (i > 0) out.push('', '***', '');
    writeEntries(part.entries, 0, out);
  });
  return `${out.join('\n')}\n`;
}

/** What `.gitbook.yaml` says, with GitBook's defaults. Paths are relative to the repository (project) root, no leading `./`. */
export interface GitbookConfig {
  /** Directory holding the documentation ('' = the root). */
  root: string;
  readme: string;
  summary: string;
  /** Old path → new path (relative to root). */
  redirects: Record<string, string>;
}

export class LayoutError extends Error {
  readonly code: 'NOT_GITBOOK_LAYOUT' | 'INVALID_GITBOOK_YAML' | 'FILE_TOO_LARGE' | 'MARKDOWN_LIMIT';
  constructor(code: LayoutError['code'], message: string) {
    super(message);
    this.name = 'LayoutError';
    this.code = code;
  }
}

/** Cleans a relative directory or file path: no `./`, no leading or trailing `/`, no `..` above the start. */
export function cleanPath(path: string): string {
  const out: string[] = [];
  for (const part of path.replace(/\\/g, '/').split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') out.pop();
    else out.push(part);
  }
  return out.join('/');
}

/** The largest `.gitbook.yaml` read (redirects included): 256 KiB. */
export const MAX_GITBOOK_YAML = 256 * 1024;

/** Reads `.gitbook.yaml`; null or empty text gives the defaults. Throws LayoutError when it is not valid YAML. */
export function parseGitbookYaml(text: string | null | undefined): GitbookConfig {
  const config: GitbookConfig = { root: '', readme: 'README.md', summary: 'SUMMARY.md', redirects: {} };
  if (!text || text.trim() === '') return config;
  // A handful of settings: a larger file is refused before parsing, and YAML's alias limit (100
  // uses) keeps what its aliases expand to within about 100 times its size.
  if (text.length > MAX_GITBOOK_YAML) {
    throw new LayoutError('INVALID_GITBOOK_YAML', `.gitbook.yaml is larger than ${MAX_GITBOOK_YAML / 1024} KiB`);
  }
  let data: unknown;
  try {
    data = parseYaml(text, { maxAliasCount: 100 });
  } catch (error) {
    throw new LayoutError('INVALID_GITBOOK_YAML', `.gitbook.yaml is not valid YAML: ${(error as Error).message.split('\n')[0]}`);
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return config;
  const d = data as Record<string, unknown>;
  if (typeof d.root === 'string') config.root = cleanPath(d.root);
  const structure = d.structure as Record<string, unknown> | undefined;
  if (structure && typeof structure === 'object') {
    if (typeof structure.readme === 'string' && cleanPath(structure.readme) !== '') config.readme = cleanPath(structure.readme);
    if (typeof structure.summary === 'string' && cleanPath(structure.summary) !== '') config.summary = cleanPath(structure.summary);
  }
  if (d.redirects && typeof d.redirects === 'object' && !Array.isArray(d.redirects)) {
    for (const [from, to] of Object.entries(d.redirects as Record<string, unknown>)) {
      if (typeof to === 'string') config.redirects[cleanPath(from)] = cleanPath(to);
    }
  }
  return config;
}

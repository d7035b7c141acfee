import type { List, ListItem, Nodes } from 'mdast';
import { toString } from 'mdast-util-to-string';
import { parse as parseYaml } from 'yaml';
import { parseMarkdown } from '../content/markdown.ts';

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
  children: SummaryEntry[];
}

export interface SummaryPart {
  /** The `## Heading` of a group; null for the entries before the first heading. */
  title: string | null;
  entries: SummaryEntry[];
}

function firstLink(node: Nodes): { title: string; href: string } | null {
  if (node.type === 'link') return { title: toString(node).trim(), href: node.url };
  if ('children' in node) {
    for (const child of node.children as Nodes[]) {
      const found = firstLink(child);
      if (found) return found;
    }
  }
  return null;
}

function readList(list: List): SummaryEntry[] {
  return list.children.map((item: ListItem) => {
    let title = '';
    let href: string | null = null;
    const children: SummaryEntry[] = [];
    for (const child of item.children) {
      if (child.type === 'list') children.push(...readList(child));
      else if (title === '' && href === null) {
        const link = firstLink(child);
        if (link) {
          title = link.title;
          href = link.href;
        } else title = toString(child).trim();
      }
    }
    return { title, href, children };
  });
}

/** The parts of a summary, in order. Text outside lists and headings is ignored. */
export function parseSummary(markdown: string): SummaryPart[] {
  const parts: SummaryPart[] = [{ title: null, entries: [] }];
  for (const node of parseMarkdown(markdown).children) {
    if (node.type === 'heading' && node.depth >= 2) parts.push({ title: toString(node).trim(), entries: [] });
    else if (node.type === 'list') parts[parts.length - 1].entries.push(...readList(node));
  }
  return parts.filter((p, i) => i === 0 || p.title !== null);
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
    out.push(entry.href === null ? `${indent}* ${escapeTitle(entry.title)}` : `${indent}* [${escapeTitle(entry.title)}](${entry.href})`);
    writeEntries(entry.children, depth + 1, out);
  }
}

/** Writes a summary; hrefs are written as given (encode them with `encodePath`). */
export function renderSummary(parts: SummaryPart[]): string {
  const out: string[] = ['# Table of contents', ''];
  for (const part of parts) {
    if (part.title !== null) out.push('', `## ${part.title.replace(/\n/g, ' ')}`, '');
    writeEntries(part.entries, 0, out);
  }
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
  readonly code: 'NOT_GITBOOK_LAYOUT' | 'INVALID_GITBOOK_YAML' | 'FILE_TOO_LARGE';
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

/**
 * The links of a revision: what each link of a page points at (a page, a file or a URL) and its
 * status. Status always comes from `classifyLink`; this module builds the context it needs from a
 * revision's pages and files, and resolves targets with the same rules so that a link reported
 * `ok` names the page or file it reaches.
 *
 * Besides what `classifyLink` documents, a revision's context accepts the forms GitBook's API
 * writes into page markdown: `/pages/<pageId>`, `/pages/<page path>` (with or without `.md`),
 * `/files/<fileId>`, and `README.md` at the root of the space for its first page.
 */
import { extractLinks, type ExtractedLink } from './link-extraction.ts';
import {
  classifyLink,
  layoutFiles,
  percentDecode,
  resolveRelativePath,
  stripQueryAndFragment,
  type LinkContext,
  type LinkStatus,
} from './link-status.ts';
import { allPaths, pagesInOrder, type PageMap } from './tree.ts';

export type TargetReference =
  { kind: 'url'; url: string } | { kind: 'page'; page: string; space: string } | { kind: 'file'; file: string; space: string };

export interface ResolvedLink extends ExtractedLink {
  status: LinkStatus;
  target: TargetReference;
}

export interface LinkIndex {
  publicUrl: string;
  spaceId: string;
  /** Page ids in tree order (depth first, siblings in order): the order listings follow. */
  order: string[];
  /** Page id → path (`guides/install`). */
  paths: Map<string, string>;
  /** Path, or accepted alias of a path, → page id. */
  pageByPath: Map<string, string>;
  /** File name, or `files/<fileId>`, → file id (the first file of that name in name, id order). */
  fileByName: Map<string, string>;
  pageIds: Set<string>;
  fileIds: Set<string>;
  /** The context `classifyLink` is given, without `fromPath`. */
  context: Omit<LinkContext, 'fromPath'>;
}

export interface LinkIndexInput {
  publicUrl: string;
  spaceId: string;
  pages: PageMap;
  /** The revision's files, in the order names should win (name, then id). */
  files: { id: string; name: string }[];
}

export function linkIndex(input: LinkIndexInput): LinkIndex {
  const paths = allPaths(input.pages);
  // Depth first in tree order, without recursion (a tree written before MAX_PAGE_DEPTH may be thousands deep).
  const order = pagesInOrder(input.pages).map((page) => page.id);

  const pageByPath = new Map<string, string>();
  for (const id of order) {
    const path = paths.get(id);
    if (path !== undefined && !pageByPath.has(path)) pageByPath.set(path, id);
  }
  // Aliases never shadow a real page path.
  const alias = (path: string, id: string) => {
    if (!pageByPath.has(path)) pageByPath.set(path, id);
  };
  if (order.length > 0) {
    alias('', order[0]);
    alias('pages', order[0]);
  }
  for (const id of order) {
    alias(`pages/${id}`, id);
    const path = paths.get(id);
    if (path !== undefined) alias(`pages/${path}`, id);
  }

  const fileByName = new Map<string, string>();
  for (const file of input.files) if (!fileByName.has(file.name)) fileByName.set(file.name, file.id);
  for (const file of input.files) if (!fileByName.has(`files/${file.id}`)) fileByName.set(`files/${file.id}`, file.id);

  const pageIds = new Set(Object.keys(input.pages));
  const fileIds = new Set(input.files.map((f) => f.id));
  return {
    publicUrl: input.publicUrl,
    spaceId: input.spaceId,
    order,
    paths,
    pageByPath,
    fileByName,
    pageIds,
    fileIds,
    context: { publicUrl: input.publicUrl, pagePaths: new Set(pageByPath.keys()), fileNames: new Set(fileByName.keys()), pageIds, fileIds },
  };
}

/** Status and target of every link of one page, in document order. */
export function resolveLinks(index: LinkIndex, pageId: string, links: ExtractedLink[]): ResolvedLink[] {
  return links.map((link) => ({ ...link, ...resolveLink(index, pageId, link.url) }));
}

/** The links of a page's markdown (see `extractLinks`), resolved. */
export function pageLinks(index: LinkIndex, pageId: string, markdown: string): ResolvedLink[] {
  return resolveLinks(index, pageId, extractLinks(markdown));
}

/** Status (from `classifyLink`) and target of one link written on the page `pageId`. */
export function resolveLink(index: LinkIndex, pageId: string, url: string): { status: LinkStatus; target: TargetReference } {
  const fromPath = index.paths.get(pageId) ?? '';
  const status = classifyLink(url, { ...index.context, fromPath });
  return { status, target: status === 'broken' ? { kind: 'url', url } : (targetOf(index, pageId, fromPath, url) ?? { kind: 'url', url }) };
}

function targetOf(index: LinkIndex, pageId: string, fromPath: string, url: string): TargetReference | null {
  const space = index.spaceId;
  const target = url.trim();
  if (target === '' || target.startsWith('#') || target.startsWith('?')) return { kind: 'page', page: pageId, space };
  if (target.toLowerCase().startsWith('gitbook://')) {
    const rest = stripQueryAndFragment(target.slice('gitbook://'.length));
    const slash = rest.indexOf('/');
    const kind = rest.slice(0, slash).toLowerCase();
    const id = percentDecode(rest.slice(slash + 1).replace(/\/+$/, ''));
    if (kind === 'page' && index.pageIds.has(id)) return { kind: 'page', page: id, space };
    if (kind === 'file' && index.fileIds.has(id)) return { kind: 'file', file: id, space };
    return null;
  }
  const absolute = absoluteUrl(target, index.publicUrl);
  if (absolute !== null) {
    // The app URL of a page (`{publicUrl}/app/spaces/{spaceId}/pages/{pageId}`) names that page.
    const app = /^\/app\/spaces\/([^/]+)\/pages\/([^/]+)\/?$/.exec(absolute.pathname);
    if (app && URL.canParse(index.publicUrl) && absolute.origin === new URL(index.publicUrl).origin) {
      return { kind: 'page', page: percentDecode(app[2]), space: percentDecode(app[1]) };
    }
    return null;
  }
  const path = stripQueryAndFragment(target);
  if (path === '') return { kind: 'page', page: pageId, space };
  const variants = new Set([path, percentDecode(path)]);
  for (const from of layoutFiles(fromPath)) {
    for (const variant of variants) {
      const resolved = resolveRelativePath(from, variant);
      const found = resolved === null ? null : lookup(index, resolved);
      if (found) return found;
    }
  }
  return null;
}

/** The page or file a resolved path names, checked in the order `classifyLink` checks existence. */
function lookup(index: LinkIndex, path: string): TargetReference | null {
  const space = index.spaceId;
  const slash = path.lastIndexOf('/');
  const name = path.slice(slash + 1);
  const file = index.fileByName.get(path) ?? (name !== '' ? index.fileByName.get(name) : undefined);
  if (file !== undefined) return { kind: 'file', file, space };
  let page = index.pageByPath.get(path);
  const lower = name.toLowerCase();
  if (page === undefined && lower === 'readme.md') page = index.pageByPath.get(slash === -1 ? '' : path.slice(0, slash));
  if (page === undefined && lower.endsWith('.md')) page = index.pageByPath.get(path.slice(0, -3));
  return page === undefined ? null : { kind: 'page', page, space };
}

function absoluteUrl(target: string, publicUrl: string): URL | null {
  try {
    if (target.startsWith('//')) return new URL(target, URL.canParse(publicUrl) ? publicUrl : 'https://invalid');
    return URL.canParse(target) ? new URL(target) : null;
  } catch {
    return null;
  }
}

/** A link reference groups the links of one status to one target; the key that identifies it. */
export function referenceKey(status: LinkStatus, target: TargetReference): string {
  const id =
    target.kind === 'url' ? target.url : target.kind === 'page' ? `${target.space}/${target.page}` : `${target.space}/${target.file}`;
  return `${status}\u0000${target.kind}\u0000${id}`;
}

export interface LinkReference {
  status: LinkStatus;
  target: TargetReference;
  /** Pages holding a link to the target, in page order, each once. */
  pages: string[];
}

/**
 * Groups links by status and target, in order of first appearance (page order, then link order
 * within a page); each reference lists the pages it appears on.
 */
export function groupLinks(pages: { pageId: string; links: ResolvedLink[] }[]): LinkReference[] {
  const byKey = new Map<string, LinkReference>();
  for (const { pageId, links } of pages) {
    for (const link of links) {
      const key = referenceKey(link.status, link.target);
      const found = byKey.get(key);
      if (!found) byKey.set(key, { status: link.status, target: link.target, pages: [pageId] });
      else if (found.pages[found.pages.length - 1] !== pageId) found.pages.push(pageId);
    }
  }
  return [...byKey.values()];
}

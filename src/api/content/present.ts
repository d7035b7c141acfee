import type { FileRow, RevisionRow } from '../../db/content.ts';
import { presentCover, presentLayout } from '../../domain/content/page-layout.ts';
import { allPaths, buildTree, MAX_PAGE_DEPTH, type PageMap, type PageNode, type TreeEntry } from '../../domain/content/tree.ts';

/** GitBook's shapes for revisions, pages and files. */

export interface PresentOptions {
  publicUrl: string;
  spaceId: string;
  /** `metadata=false` leaves out mutable git metadata. */
  metadata: boolean;
  /** Where the content lives in the API, e.g. `/v1/spaces/{id}` or `.../change-requests/{id}`. */
  base: string;
  /** A file's `downloadURL` when not the API's own route: signed links for readers without a header. */
  downloadURL?: (fileId: string) => string;
  /** What tells `downloadURL`'s links apart from another's (their expiry): part of a cached answer's key. */
  downloadKey?: string;
  /** A page's markdown as the caller may read it (a site visitor: the branches their claims exclude removed). */
  markdown?: (markdown: string) => string;
  /** What tells `markdown`'s answers apart from another's (the visitor's claims): part of a cached answer's key. */
  markdownKey?: string;
}

/** The cover GitBook's API answers (`RevisionPageDocumentCover`), when the page has one naming an image. */
function coverOf(stored: unknown) {
  const cover = presentCover(stored);
  return cover ? { cover } : {};
}

export function presentPage(page: PageNode, path: string, children: unknown[], options: PresentOptions) {
  const app = `${options.publicUrl}/app/spaces/${options.spaceId}/pages/${page.id}`;
  const common = {
    id: page.id,
    title: page.title,
    ...(page.emoji ? { emoji: page.emoji } : {}),
    ...(page.icon ? { icon: page.icon } : {}),
    slug: page.slug,
    path,
    hidden: !!page.hidden,
    noIndex: !!page.noIndex,
    noRobotsIndex: !!page.noRobotsIndex,
  };
  if (page.type === 'group') {
    return { ...common, kind: 'group', type: 'group', pages: children };
  }
  if (page.type === 'link') {
    return { ...common, kind: 'link', type: 'link', target: { kind: 'url', url: page.href ?? '' }, href: page.href ?? '', pages: children };
  }
  return {
    ...common,
    kind: 'sheet',
    type: 'document',
    ...(page.description ? { description: page.description } : {}),
    markdown: options.markdown ? options.markdown(page.markdown) : page.markdown,
    urls: { app },
    layout: presentLayout(page.layout),
    ...coverOf(page.cover),
    tags: [],
    pages: children,
  };
}

/**
 * The nested page tree with paths. Built without recursion, and never nested deeper than
 * MAX_PAGE_DEPTH + 1 levels (see `buildTree`): a deeper tree, written before that limit, is
 * presented whole with its pages below the limit listed under their ancestor at the limit, so
 * that neither this walk nor the JSON serializer can run out of stack.
 */
export function presentTree(map: PageMap, options: PresentOptions) {
  const paths = allPaths(map);
  const roots: unknown[] = [];
  const pending: { entries: TreeEntry[]; into: unknown[] }[] = [{ entries: buildTree(map, MAX_PAGE_DEPTH), into: roots }];
  while (pending.length > 0) {
    const { entries, into } = pending.pop()!;
    for (const entry of entries) {
      const children: unknown[] = [];
      into.push(presentPage(entry.node, paths.get(entry.node.id) ?? entry.node.slug, children, options));
      if (entry.children.length > 0) pending.push({ entries: entry.children, into: children });
    }
  }
  return roots;
}

export function presentFile(file: FileRow, options: PresentOptions) {
  return {
    id: file.id,
    name: file.name,
    contentType: file.contentType,
    downloadURL: options.downloadURL
      ? options.downloadURL(file.id)
      : `${options.publicUrl}${options.base}/content/files/${file.id}/download`,
    size: Number(file.size),
    ...(file.width != null && file.height != null ? { dimensions: { width: file.width, height: file.height } } : {}),
  };
}

/**
 * GitBook's GitSyncCommit from a revision's git metadata: whether this service's export wrote the
 * commit is stored as `createdByService` (the contract's name) and answered under GitBook's name
 * for it too, which GitBook's schema requires.
 */
function presentRevisionGit(git: Record<string, unknown>) {
  const created = git.createdByService === true || git.createdByGitBook === true;
  return { ...git, createdByService: created, createdByGitBook: created };
}

/** The fields of GitBook's Revision besides its pages, files and reusable contents. */
function revisionHead(revision: RevisionRow, options: PresentOptions, mergedFrom?: unknown) {
  return {
    object: 'revision' as const,
    id: revision.id,
    parents: revision.parents ?? [],
    tags: [],
    createdAt: new Date(revision.created_at).toISOString(),
    type: revision.type,
    ...(mergedFrom ? { mergedFrom } : {}),
    ...(options.metadata && revision.git ? { git: presentRevisionGit(revision.git) } : {}),
    urls: { app: `${options.publicUrl}/app/spaces/${options.spaceId}/revisions/${revision.id}` },
  };
}

/**
 * GitBook's Revision is written in two parts, so that what never changes in a revision is
 * serialized once: its head (this JSON object without its pages, files and reusable contents: git
 * metadata an export sets later, the change request it was merged from) and its tail, which
 * completes the object. The answer is the head without its closing brace, then the tail.
 */
export function revisionHeadJson(revision: RevisionRow, options: PresentOptions, mergedFrom?: unknown): string {
  return JSON.stringify(revisionHead(revision, options, mergedFrom));
}

export function revisionTailJson(pages: PageMap, files: FileRow[], options: PresentOptions, reusableContents: unknown[]): string {
  const tree = JSON.stringify(presentTree(pages, options));
  return `,"pages":${tree},"files":${JSON.stringify(files.map((f) => presentFile(f, options)))},"reusableContents":${JSON.stringify(reusableContents)}}`;
}

/** `content-disposition` of a downloaded file: shown inline, under its name with quotes, backslashes and line breaks replaced. */
export function fileContentDisposition(name: string): string {
  return `inline; filename="${name.replace(/["\\\r\n]/g, '_')}"`;
}

/** A presented page with its document in GitBook's model in place of its markdown (`format=document`). */
export function withDocument(presented: object, document: unknown): Record<string, unknown> {
  const rest = Object.fromEntries(Object.entries(presented).filter(([key]) => key !== 'markdown'));
  return { ...rest, document };
}

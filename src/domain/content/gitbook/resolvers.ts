/**
 * Resolvers for the conversions of one page of a revision, from what the revision holds: links
 * and sources written as paths in GitBook's git layout (`../guides/install.md#setup`,
 * `.gitbook/assets/logo.png`, `.gitbook/includes/note.md`) become references to pages, anchors,
 * files and reusable contents, and back. Paths resolve as ./link-status.ts resolves them.
 */
import { layoutFiles, percentDecode, resolveRelativePath, stripQueryAndFragment } from '../link-status.ts';
import type { DocumentRef, DocumentToMarkdownOptions, MarkdownToDocumentOptions } from './types.ts';

export interface RevisionIndex {
  /** Path of the page being converted (`guides/install`; the root page is ``). */
  fromPath: string;
  /** Page ids by page path. */
  pages: Map<string, string>;
  /** Where each page is stored, by page id (`guides/README.md`); `<path>.md` when absent. */
  pageFiles?: Map<string, string>;
  /** File ids by path in the revision (`.gitbook/assets/logo.png`), or by bare name. */
  files: Map<string, string>;
  /** Reusable content ids by path (`.gitbook/includes/note.md`). */
  reusableContents?: Map<string, string>;
}

/** How stored markdown names a page (with an anchor) or a file of its revision: `gitbook://page/<id>#anchor`, `gitbook://file/<id>`. */
const STORED = /^gitbook:\/\/(page|file)\/([^?#/]+)(?:[?][^#]*)?(?:#(.*))?$/i;

const isAbsolute = (target: string) => /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//');

function pageAt(path: string, index: RevisionIndex): string | undefined {
  const trimmed = path.replace(/\/+$/, '');
  const candidates = [trimmed, trimmed.replace(/\.md$/i, ''), trimmed.replace(/(?:^|\/)README\.md$/i, '')];
  for (const candidate of candidates) {
    const id = index.pages.get(candidate);
    if (id !== undefined) return id;
  }
  return undefined;
}

function fileAt(path: string, index: RevisionIndex): string | undefined {
  return index.files.get(path) ?? index.files.get(path.slice(path.lastIndexOf('/') + 1));
}

/** Each place `target` may name, relative to the page's possible files, percent-decoded or not. */
function candidatesOf(target: string, index: RevisionIndex): string[] {
  const path = stripQueryAndFragment(target);
  const out: string[] = [];
  for (const from of layoutFiles(index.fromPath)) {
    for (const variant of new Set([path, percentDecode(path)])) {
      const resolved = resolveRelativePath(from, variant);
      if (resolved !== null) out.push(resolved);
    }
  }
  return out;
}

/** The path from the file `from` to `to`, both relative to the root of the space. */
function relative(from: string, to: string): string {
  const fromDirs = from.split('/').slice(0, -1);
  const toParts = to.split('/');
  let common = 0;
  while (common < fromDirs.length && common < toParts.length - 1 && fromDirs[common] === toParts[common]) common++;
  return [...fromDirs.slice(common).map(() => '..'), ...toParts.slice(common)].join('/');
}

/** Resolvers reading and writing the page at `index.fromPath`. */
export function revisionResolvers(index: RevisionIndex): { read: MarkdownToDocumentOptions; write: DocumentToMarkdownOptions } {
  const pageIds = new Map([...index.pages].map(([path, id]) => [id, path]));
  const fileIds = new Map([...index.files].map(([path, id]) => [id, path]));
  const includeIds = new Map([...(index.reusableContents ?? [])].map(([path, id]) => [id, path]));
  const fromFile =
    index.pageFiles?.get(index.pages.get(index.fromPath) ?? '') ?? (index.fromPath === '' ? 'README.md' : `${index.fromPath}.md`);
  const pageFile = (id: string) => {
    const path = pageIds.get(id);
    if (path === undefined) return null;
    return index.pageFiles?.get(id) ?? (path === '' ? 'README.md' : `${path}.md`);
  };

  const read: MarkdownToDocumentOptions = {
    resolveLink(href) {
      const target = href.trim();
      const gitbook = STORED.exec(target);
      if (gitbook) {
        const id = percentDecode(gitbook[2]);
        if (gitbook[1].toLowerCase() === 'file') return { kind: 'file', file: id };
        const anchor = gitbook[3] ? percentDecode(gitbook[3]) : '';
        return anchor ? { kind: 'anchor', anchor, page: id } : { kind: 'page', page: id };
      }
      if (isAbsolute(target)) return null;
      const hash = target.indexOf('#');
      const anchor = hash >= 0 ? percentDecode(target.slice(hash + 1)) : '';
      if (stripQueryAndFragment(target) === '') return anchor ? { kind: 'anchor', anchor } : null;
      for (const path of candidatesOf(target, index)) {
        const page = pageAt(path, index);
        if (page !== undefined) return anchor ? { kind: 'anchor', anchor, page } : { kind: 'page', page };
        const file = fileAt(path, index);
        if (file !== undefined) return { kind: 'file', file };
      }
      return null;
    },
    resolveFile(src) {
      const stored = STORED.exec(src.trim());
      if (stored && stored[1].toLowerCase() === 'file') return { kind: 'file', file: percentDecode(stored[2]) };
      if (isAbsolute(src.trim())) return null;
      for (const path of candidatesOf(src.trim(), index)) {
        const file = fileAt(path, index);
        if (file !== undefined) return { kind: 'file', file };
      }
      return null;
    },
    reusableContent(path) {
      const direct = index.reusableContents?.get(path.replace(/^\/+/, ''));
      if (direct !== undefined) return direct;
      for (const candidate of candidatesOf(path, index)) {
        const id = index.reusableContents?.get(candidate);
        if (id !== undefined) return id;
      }
      return null;
    },
  };

  const write: DocumentToMarkdownOptions = {
    linkHref(ref: DocumentRef) {
      if (ref.kind === 'page') {
        const file = pageFile(ref.page);
        return file === null ? null : relative(fromFile, file);
      }
      if (ref.kind === 'anchor') {
        if (ref.page === undefined || pageIds.get(ref.page) === index.fromPath) return `#${ref.anchor}`;
        const file = pageFile(ref.page);
        return file === null ? null : `${relative(fromFile, file)}#${ref.anchor}`;
      }
      if (ref.kind === 'file') {
        const path = fileIds.get(ref.file);
        return path === undefined ? null : relative(fromFile, path);
      }
      return null;
    },
    fileSrc(id) {
      const path = fileIds.get(id);
      return path === undefined ? null : relative(fromFile, path);
    },
    reusableContentPath(id) {
      const path = includeIds.get(id);
      return path === undefined ? null : relative(fromFile, path);
    },
  };
  return { read, write };
}

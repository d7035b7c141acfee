import { allPaths, deepEqual, pagesInOrder, type PageMap, type PageNode, type PageType } from './tree.ts';

/**
 * The semantic changes between two states of a space's content (a revision and its first parent,
 * a change request and its base), in GitBook's terms: pages created, edited, moved and deleted,
 * files created, edited and deleted. Pure: the caller loads both page maps and file lists.
 *
 * Order: the pages of the newer state in tree order (each page's move before its edit), then the
 * deleted pages in the older state's tree order, then files by name. A page whose only change is
 * its place among the same siblings is not reported: GitBook reports moves between parents.
 */

/** A page as a change names it. */
export interface ChangedPage {
  id: string;
  type: PageType;
  title: string;
  path: string;
}

/** An attribute's value before and after (either absent when the attribute was not set). */
export interface AttributeChange {
  before?: unknown;
  after?: unknown;
}

/** What a change needs to know of a file. */
export interface FileFacts {
  id: string;
  name: string;
  contentType: string;
  size: number;
  width: number | null;
  height: number | null;
  sha256: string;
}

export type SemanticChange =
  | { type: 'page_created'; page: ChangedPage }
  | { type: 'page_edited'; page: ChangedPage; attributes: Record<string, AttributeChange> }
  | { type: 'page_deleted'; page: ChangedPage }
  | { type: 'page_moved'; page: ChangedPage; parent: { before?: ChangedPage; after?: ChangedPage } }
  | { type: 'file_created'; file: FileFacts }
  | { type: 'file_edited'; file: FileFacts; attributes: Record<string, AttributeChange> }
  | { type: 'file_deleted'; file: FileFacts };

export interface ContentState {
  pages: PageMap;
  files: FileFacts[];
}

/** The attributes GitBook compares for each page type. */
const PAGE_ATTRIBUTES: Record<PageType, readonly string[]> = {
  document: ['title', 'description', 'slug', 'document', 'cover', 'emoji', 'layout'],
  group: ['title', 'emoji', 'slug'],
  link: ['title', 'emoji', 'target'],
};

/** The value of a page attribute as a change shows it; undefined when unset. */
function pageAttribute(page: PageNode, name: string): unknown {
  switch (name) {
    case 'title':
      return page.title;
    case 'slug':
      return page.slug;
    case 'description':
      return page.description ?? undefined;
    case 'emoji':
      return page.emoji ?? undefined;
    case 'cover':
      return page.cover ?? undefined;
    case 'layout':
      return page.layout ?? undefined;
    case 'target':
      return page.href ? { kind: 'url', url: page.href } : undefined;
    default:
      return undefined;
  }
}

function withValues(before: unknown, after: unknown): AttributeChange {
  return { ...(before !== undefined ? { before } : {}), ...(after !== undefined ? { after } : {}) };
}

/** The attributes of a page that differ between two states; empty when none. */
export function pageAttributeChanges(before: PageNode, after: PageNode): Record<string, AttributeChange> {
  const changes: Record<string, AttributeChange> = {};
  for (const name of PAGE_ATTRIBUTES[after.type]) {
    if (name === 'document') {
      // The document's text is read through the page's document; the change says it changed.
      if (before.markdown !== after.markdown) changes.document = {};
      continue;
    }
    const was = pageAttribute(before, name);
    const is = pageAttribute(after, name);
    if (!deepEqual(was ?? null, is ?? null)) changes[name] = withValues(was, is);
  }
  return changes;
}

/** The attributes of a file that differ between two states; empty when none. */
export function fileAttributeChanges(before: FileFacts, after: FileFacts): Record<string, AttributeChange> {
  const changes: Record<string, AttributeChange> = {};
  if (before.name !== after.name) changes.name = { before: before.name, after: after.name };
  if (before.contentType !== after.contentType) changes.contentType = { before: before.contentType, after: after.contentType };
  if (Number(before.size) !== Number(after.size)) changes.size = { before: Number(before.size), after: Number(after.size) };
  const dims = (f: FileFacts) => (f.width != null && f.height != null ? { width: f.width, height: f.height } : undefined);
  if (!deepEqual(dims(before) ?? null, dims(after) ?? null)) changes.dimensions = withValues(dims(before), dims(after));
  // Other bytes: what the file downloads changed (its URL names the file, not the bytes, so no values).
  if (before.sha256 !== after.sha256) changes.downloadURL = {};
  return changes;
}

function namer(map: PageMap) {
  const paths = allPaths(map);
  return (page: PageNode): ChangedPage => ({ id: page.id, type: page.type, title: page.title, path: paths.get(page.id) ?? page.slug });
}

/** Every semantic change from `before` to `after`. */
export function semanticChanges(before: ContentState, after: ContentState): SemanticChange[] {
  const out: SemanticChange[] = [];
  const nameBefore = namer(before.pages);
  const nameAfter = namer(after.pages);
  const parentOf = (map: PageMap, name: (p: PageNode) => ChangedPage, page: PageNode) => {
    const parent = page.parentId === null || !Object.hasOwn(map, page.parentId) ? undefined : map[page.parentId];
    return parent ? name(parent) : undefined;
  };

  for (const page of pagesInOrder(after.pages)) {
    const old = Object.hasOwn(before.pages, page.id) ? before.pages[page.id] : undefined;
    const named = nameAfter(page);
    if (!old) {
      out.push({ type: 'page_created', page: named });
      continue;
    }
    if (old.parentId !== page.parentId) {
      const was = parentOf(before.pages, nameBefore, old);
      const is = parentOf(after.pages, nameAfter, page);
      out.push({ type: 'page_moved', page: named, parent: { ...(was ? { before: was } : {}), ...(is ? { after: is } : {}) } });
    }
    const attributes = pageAttributeChanges(old, page);
    if (Object.keys(attributes).length > 0) out.push({ type: 'page_edited', page: named, attributes });
  }
  for (const page of pagesInOrder(before.pages)) {
    if (!Object.hasOwn(after.pages, page.id)) out.push({ type: 'page_deleted', page: nameBefore(page) });
  }

  const byName = (a: FileFacts, b: FileFacts) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  const oldFiles = new Map(before.files.map((f) => [f.id, f]));
  const newIds = new Set(after.files.map((f) => f.id));
  for (const file of [...after.files].sort(byName)) {
    const old = oldFiles.get(file.id);
    if (!old) {
      out.push({ type: 'file_created', file });
      continue;
    }
    const attributes = fileAttributeChanges(old, file);
    if (Object.keys(attributes).length > 0) out.push({ type: 'file_edited', file, attributes });
  }
  for (const file of [...before.files].sort(byName)) if (!newIds.has(file.id)) out.push({ type: 'file_deleted', file });
  return out;
}

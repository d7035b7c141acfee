import { allPaths, childrenIndex, type PageMap } from '../content/tree.ts';
import { estimateBytes, mapBytes } from '../sizeof.ts';
import { conditionHolds } from './conditions.ts';
import { effectiveDefault, sortOrdered } from './order.ts';

/**
 * Resolution of the path after a site's base to a section, a site-space and a page path, and the
 * structure a visitor sees. Pure: the structure comes from one query, the claims from the request.
 */

export interface SectionNode {
  id: string;
  path: string;
  condition: string | null;
  isDefault: boolean;
  position: string;
}

export interface SiteSpaceNode {
  id: string;
  sectionId: string | null;
  path: string;
  condition: string | null;
  isDefault: boolean;
  position: string;
}

/** What a visitor sees: sections (in order) and their site-spaces, each condition holding. */
export function visibleStructure<S extends SectionNode, P extends SiteSpaceNode>(sections: S[], siteSpaces: P[], context: object) {
  const shownSections = sortOrdered(sections).filter((s) => conditionHolds(s.condition, context));
  const shownSpaces = sortOrdered(siteSpaces).filter((p) => conditionHolds(p.condition, context));
  return { sections: shownSections, siteSpaces: shownSpaces };
}

export interface Resolved<S, P> {
  section: S | null;
  siteSpace: P;
  /** Path parts consumed by the section and site-space (empty when they were defaults); the site-space's may be `v/<path>`. */
  sectionPart: string | null;
  siteSpacePart: string | null;
  /** Whether section and site-space are the defaults (so the canonical URL leaves them out). */
  sectionIsDefault: boolean;
  siteSpaceIsDefault: boolean;
  pageSegments: string[];
  /**
   * Whether no further path segment could still pick another section or site-space: every level
   * with a choice was named in the path. A lookup of a shorter URL than the visitor's is only
   * right when complete (GitBook's renderer then appends the rest to `pathname`).
   */
  complete: boolean;
}

/**
 * Picks the section (first segment matching a visible section's path, else the default one), then
 * the site-space in it (next segment, else the default one); the rest is the page path. Null when
 * nothing is visible.
 */
export function resolveSitePath<S extends SectionNode, P extends SiteSpaceNode>(
  sections: S[],
  siteSpaces: P[],
  segments: string[],
): Resolved<S, P> | null {
  let rest = segments;
  let section: S | null = null;
  let sectionPart: string | null = null;
  let sectionIsDefault = true;
  if (sections.length > 0) {
    const named = rest.length > 0 ? sections.find((s) => s.path === rest[0]) : undefined;
    const fallback = effectiveDefault(sections)!;
    section = named ?? fallback;
    sectionIsDefault = section.id === fallback.id;
    if (named) {
      sectionPart = named.path;
      rest = rest.slice(1);
    }
  }
  const candidates = siteSpaces.filter((p) => p.sectionId === (section ? section.id : null));
  if (candidates.length === 0) return null;
  // A site-space by its path, or in GitBook's variant form `v/<path>` (the URL keeps the form it came in).
  let named = rest.length > 0 ? candidates.find((p) => p.path === rest[0]) : undefined;
  let consumed = 1;
  if (!named && rest[0] === 'v' && rest.length > 1) {
    named = candidates.find((p) => p.path === rest[1]);
    consumed = 2;
  }
  const fallback = effectiveDefault(candidates)!;
  const siteSpace = named ?? fallback;
  let siteSpacePart: string | null = null;
  if (named) {
    siteSpacePart = rest.slice(0, consumed).join('/');
    rest = rest.slice(consumed);
  }
  return {
    section,
    siteSpace,
    sectionPart,
    siteSpacePart,
    sectionIsDefault,
    siteSpaceIsDefault: siteSpace.id === fallback.id,
    pageSegments: rest,
    complete: (sections.length <= 1 || sectionPart !== null) && (candidates.length <= 1 || siteSpacePart !== null),
  };
}

export interface PageEntry {
  id: string;
  title: string;
  type: string;
  path: string;
}

/** A revision's pages by path, and where a visitor lands: computed once per revision (revisions never change). */
export interface PageIndex {
  byPath: Map<string, PageEntry>;
  byId: Map<string, PageEntry>;
  /** The first document page in tree order. */
  first: PageEntry | null;
  /** For a group page: its first document page below it. */
  firstDocumentUnder: Map<string, PageEntry>;
}

export function pageIndex(map: PageMap): PageIndex {
  const paths = allPaths(map);
  const byPath = new Map<string, PageEntry>();
  const entry = (id: string): PageEntry => ({ id, title: map[id].title, type: map[id].type, path: paths.get(id)! });
  const byId = new Map<string, PageEntry>();
  for (const [id, path] of paths) {
    const e = entry(id);
    byPath.set(path, e);
    byId.set(id, e);
  }
  const children = childrenIndex(map);
  const firstDocumentUnder = new Map<string, PageEntry>();
  const firstDocument = (parent: string | null): PageEntry | null => {
    // Iterative depth-first walk in tree order.
    const stack = [...(children.get(parent) ?? [])].reverse();
    while (stack.length > 0) {
      const node = stack.pop()!;
      if (!paths.has(node.id)) continue;
      if (node.type === 'document') return byId.get(node.id) ?? entry(node.id);
      stack.push(...[...(children.get(node.id) ?? [])].reverse());
    }
    return null;
  };
  for (const id of paths.keys()) {
    if (map[id].type === 'group') {
      const found = firstDocument(id);
      if (found) firstDocumentUnder.set(id, found);
    }
  }
  return { byPath, byId, first: firstDocument(null), firstDocumentUnder };
}

/**
 * The bytes a page index takes on the heap (for the cache of page indexes, db/sites.ts): its
 * entries once each, and the three maps, whose keys are the entries' own id and path strings.
 */
export function pageIndexBytes(index: PageIndex): number {
  const entries = [...index.byId.values()];
  return (
    64 +
    estimateBytes(entries) -
    estimateBytes([]) -
    8 * entries.length +
    mapBytes(index.byPath.size) +
    mapBytes(index.byId.size) +
    mapBytes(index.firstDocumentUnder.size)
  );
}

export type PageLookup = { kind: 'page'; page: PageEntry } | { kind: 'redirect'; page: PageEntry } | { kind: 'missing' };

/** The page at a path: the first page for an empty path; a group redirects to its first document. */
export function lookupPage(index: PageIndex, segments: string[]): PageLookup {
  if (segments.length === 0) return index.first ? { kind: 'page', page: index.first } : { kind: 'missing' };
  const found = index.byPath.get(segments.join('/'));
  if (!found) return { kind: 'missing' };
  if (found.type === 'group') {
    const target = index.firstDocumentUnder.get(found.id);
    return target ? { kind: 'redirect', page: target } : { kind: 'missing' };
  }
  return { kind: 'page', page: found };
}

/**
 * The page tree an import produces: nested pages with titles and markdown become a flat PageMap
 * (the content model of a revision) with ids, sibling positions and slugs unique among siblings,
 * and how imported pages join the pages already there. Pure: ids come from the caller.
 */
import { generateKeyBetween } from 'fractional-indexing';
import { slugify, type PageMap } from '../content/tree.ts';

export interface ImportedPage {
  title: string;
  markdown: string;
  description?: string | null;
  /** Where the page came from (a URL), for link rewriting. */
  source?: string;
  children: ImportedPage[];
}

export interface PlannedPage {
  page: ImportedPage;
  id: string;
  parentId: string | null;
  position: string;
  slug: string;
  /** Slugs from the top, joined with `/`: the page's path in the space. */
  path: string;
}

/** Where imported top-level pages go among the pages already there. */
export interface Placement {
  /** Position of the last existing top-level page (imported pages go after it). */
  after: string | null;
  /** Slugs of existing top-level pages. */
  taken: string[];
  /** Pages the import replaces: the empty page a new space starts with. */
  replace: string[];
}

/**
 * Imported pages are added after the existing top-level pages; nothing existing is lost. The one
 * exception is the single empty page a new space starts with, which the import replaces.
 */
export function placement(existing: PageMap): Placement {
  const ids = Object.keys(existing);
  if (ids.length === 1) {
    const only = existing[ids[0]];
    if (only.parentId === null && only.type === 'document' && only.markdown === '' && /^untitled$/i.test(only.title)) {
      return { after: null, taken: [], replace: [only.id] };
    }
  }
  let after: string | null = null;
  const taken: string[] = [];
  for (const id of ids) {
    const page = existing[id];
    if (page.parentId !== null) continue;
    taken.push(page.slug);
    if (after === null || page.position > after) after = page.position;
  }
  return { after, taken, replace: [] };
}

/**
 * The content after an import: the existing pages (but a replaced placeholder) and the imported
 * ones, whose top-level pages go after the existing top-level pages with slugs unique among them.
 * Links between imported pages name ids, so new slugs break none.
 */
export function mergeImported(existing: PageMap, imported: PageMap): { pages: PageMap; replaced: string[] } {
  const place = placement(existing);
  const pages: PageMap = { ...existing };
  for (const id of place.replace) delete pages[id];
  const used = new Set(place.taken);
  let previous = place.after;
  const top = Object.values(imported)
    .filter((p) => p.parentId === null)
    .sort((a, b) => (a.position < b.position ? -1 : a.position > b.position ? 1 : a.id < b.id ? -1 : 1));
  for (const page of Object.values(imported)) pages[page.id] = page;
  for (const page of top) {
    let slug = page.slug;
    for (let n = 2; used.has(slug); n++) slug = `${page.slug}-${n}`;
    used.add(slug);
    previous = generateKeyBetween(previous, null);
    pages[page.id] = { ...page, slug, position: previous };
  }
  return { pages, replaced: place.replace };
}

/** Ids, positions, slugs and paths for every page, depth first in order. */
export function planPages(pages: ImportedPage[], newId: () => string): PlannedPage[] {
  const out: PlannedPage[] = [];
  const walk = (siblings: ImportedPage[], parentId: string | null, parentPath: string) => {
    const used = new Set<string>();
    let previous: string | null = null;
    for (const page of siblings) {
      const base = slugify(page.title);
      let slug = base;
      for (let n = 2; used.has(slug); n++) slug = `${base}-${n}`;
      used.add(slug);
      const position = generateKeyBetween(previous, null);
      previous = position;
      const planned: PlannedPage = {
        page,
        id: newId(),
        parentId,
        position,
        slug,
        path: parentPath === '' ? slug : `${parentPath}/${slug}`,
      };
      out.push(planned);
      walk(page.children, planned.id, planned.path);
    }
  };
  walk(pages, null, '');
  return out;
}

/** The PageMap of planned pages; `markdownOf` may rewrite each page's markdown (links to other pages). */
export function toPageMap(planned: PlannedPage[], markdownOf: (p: PlannedPage) => string = (p) => p.page.markdown): PageMap {
  const map: PageMap = {};
  for (const p of planned) {
    map[p.id] = {
      id: p.id,
      parentId: p.parentId,
      position: p.position,
      type: 'document',
      title: p.page.title.slice(0, 200) || 'Untitled',
      slug: p.slug,
      ...(p.page.description ? { description: p.page.description.slice(0, 500) } : {}),
      markdown: markdownOf(p),
    };
  }
  return map;
}

/** A page title from a file name: `getting-started.md` → `Getting started`. */
export function titleFromFileName(name: string): string {
  const base = name.replace(/^.*\//, '').replace(/\.[^.]+$/, '');
  const words = base.replace(/[-_]+/g, ' ').replace(/\s+/g, ' ').trim();
  if (words === '') return 'Untitled';
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/**
 * The content model of a revision. Pages are kept flat, keyed by id; each page names its parent
 * (null for a top-level page) and carries a fractional `position` key that orders it among its
 * siblings. The nested tree the API returns is derived from this map, never stored.
 *
 * Every helper here is pure and linear in the number of pages (plus the sort of each sibling
 * list): parent → children indexes are computed once per call, never looked up by scanning.
 */

export type PageType = 'document' | 'group' | 'link';

export interface PageNode {
  id: string;
  parentId: string | null;
  /** Fractional-index key ordering the page among its siblings; compared with `<` on strings. */
  position: string;
  type: PageType;
  title: string;
  slug: string;
  emoji?: string | null;
  icon?: string | null;
  description?: string | null;
  markdown: string;
  hidden?: boolean;
  noIndex?: boolean;
  noRobotsIndex?: boolean;
  layout?: Record<string, unknown> | null;
  cover?: Record<string, unknown> | null;
  href?: string | null;
}

/** The pages of one revision, keyed by page id. */
export type PageMap = Record<string, PageNode>;

export interface TreeEntry {
  node: PageNode;
  children: TreeEntry[];
}

/**
 * How deep a page may sit: a top-level page is at depth 1, its children at depth 2, and so on.
 * Writes (content operations, imports, Git Sync) refuse to put a page deeper; GitBook's editor and
 * real documentation stay within a handful of levels. Readers never nest the tree they present
 * deeper than this either (see `buildTree`'s `maxDepth`), so a deeper tree written before the
 * limit existed still reads.
 */
export const MAX_PAGE_DEPTH = 100;

/** The page with this id, or undefined; never an inherited property of the map object. */
export function getPage(map: PageMap, id: string): PageNode | undefined {
  return Object.hasOwn(map, id) ? map[id] : undefined;
}

/** Sibling order: by position, then by id so that equal positions still give one stable order. */
export function compareSiblings(a: PageNode, b: PageNode): number {
  if (a.position !== b.position) return a.position < b.position ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/**
 * Parent id → ordered children, for every parent that has children (null for the top level).
 * Pages whose parent is missing are listed under that missing id, so nothing is dropped here.
 */
export function childrenIndex(map: PageMap): Map<string | null, PageNode[]> {
  const index = new Map<string | null, PageNode[]>();
  for (const id of Object.keys(map)) {
    const node = map[id];
    const siblings = index.get(node.parentId);
    if (siblings) siblings.push(node);
    else index.set(node.parentId, [node]);
  }
  for (const siblings of index.values()) siblings.sort(compareSiblings);
  return index;
}

/** The children of one page (null: the top-level pages), in order. Use `childrenIndex` for many lookups. */
export function childrenOf(map: PageMap, parentId: string | null): PageNode[] {
  const children: PageNode[] = [];
  for (const id of Object.keys(map)) if (map[id].parentId === parentId) children.push(map[id]);
  return children.sort(compareSiblings);
}

/**
 * The nested tree, in order, starting from the top-level pages. Pages that cannot be reached from
 * the top level (missing parent, cycle) are left out; `validateTree` reports them.
 *
 * With `maxDepth`, a page deeper than that is not nested any further: every page below an entry
 * at depth `maxDepth` becomes a child of that entry, in depth-first order. A tree within
 * `maxDepth` is unchanged; a deeper one (written before MAX_PAGE_DEPTH existed) is still
 * presented whole, at most `maxDepth + 1` levels deep, which every reader and serializer can walk.
 */
export function buildTree(map: PageMap, maxDepth = Infinity): TreeEntry[] {
  const index = childrenIndex(map);
  const roots: TreeEntry[] = [];
  // Iterative, so a very deep tree cannot overflow the stack.
  const stack: { parent: PageNode | null; into: TreeEntry[]; depth: number }[] = [{ parent: null, into: roots, depth: 0 }];
  while (stack.length > 0) {
    const { parent, into, depth } = stack.pop()!;
    if (depth >= maxDepth && parent !== null) {
      // Everything below `parent`, depth first, as its direct children.
      for (const node of preorder(index, parent.id)) into.push({ node, children: [] });
      continue;
    }
    for (const child of index.get(parent === null ? null : parent.id) ?? []) {
      const entry: TreeEntry = { node: child, children: [] };
      into.push(entry);
      stack.push({ parent: child, into: entry.children, depth: depth + 1 });
    }
  }
  return roots;
}

/** The pages under `parentId` (null: all reachable pages), depth first in order; iterative. */
function preorder(index: Map<string | null, PageNode[]>, parentId: string | null): PageNode[] {
  const out: PageNode[] = [];
  const seen = new Set<string>();
  const stack = [...(index.get(parentId) ?? [])].reverse();
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (seen.has(node.id)) continue;
    seen.add(node.id);
    out.push(node);
    const children = index.get(node.id) ?? [];
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
  }
  return out;
}

/** Every page reachable from the top level, depth first in tree order (what a recursive walk of `buildTree` visits); iterative. */
export function pagesInOrder(map: PageMap): PageNode[] {
  return preorder(childrenIndex(map), null);
}

/**
 * The depth of a page: 1 at the top level, one more per ancestor that exists (a page whose parent
 * is missing counts from its highest existing ancestor). Walks up at most `cap` steps and then
 * answers `cap`, so the answer is bounded even on a cycle.
 */
export function pageDepth(map: PageMap, id: string, cap = Object.keys(map).length): number {
  let depth = 0;
  let node = getPage(map, id);
  while (node && depth < cap) {
    depth++;
    node = node.parentId === null ? undefined : getPage(map, node.parentId);
  }
  return depth;
}

/**
 * The levels of the subtree rooted at a page: 1 for a page without children, 2 with children but
 * no grandchildren, … Iterative; `index` is `childrenIndex(map)`.
 */
export function subtreeHeight(index: Map<string | null, PageNode[]>, id: string): number {
  let height = 0;
  let level = [id];
  const seen = new Set<string>(level);
  while (level.length > 0) {
    height++;
    const next: string[] = [];
    for (const current of level)
      for (const child of index.get(current) ?? [])
        if (!seen.has(child.id)) {
          seen.add(child.id);
          next.push(child.id);
        }
    level = next;
  }
  return height;
}

/**
 * Page id → depth (see `pageDepth`) for every page, in linear time. Pages on or under a cycle are
 * left out (they have no depth; `validateTree` reports the cycle).
 */
export function pageDepths(map: PageMap): Map<string, number> {
  const depths = new Map<string, number>();
  const broken = new Set<string>();
  for (const start of Object.keys(map)) {
    if (depths.has(start) || broken.has(start)) continue;
    // Walk up until a page whose depth is known, the top, a missing parent or a repeat.
    const chain: string[] = [];
    const onChain = new Set<string>();
    let base = 0;
    let cyclic = false;
    let node: PageNode | undefined = map[start];
    while (node) {
      const known = depths.get(node.id);
      if (known !== undefined) {
        base = known;
        break;
      }
      if (broken.has(node.id) || onChain.has(node.id)) {
        cyclic = true;
        break;
      }
      chain.push(node.id);
      onChain.add(node.id);
      node = node.parentId === null ? undefined : getPage(map, node.parentId);
    }
    for (let i = chain.length - 1; i >= 0; i--) {
      if (cyclic) broken.add(chain[i]);
      else depths.set(chain[i], ++base);
    }
  }
  return depths;
}

/** The depth of the deepest page (0 for no pages); pages on or under a cycle are not counted. */
export function treeDepth(map: PageMap): number {
  let deepest = 0;
  for (const depth of pageDepths(map).values()) if (depth > deepest) deepest = depth;
  return deepest;
}

/**
 * Why a page map is too deep to be written, or undefined: its deepest page below `maxDepth`
 * (MAX_PAGE_DEPTH), named with its title. For the writers that build whole trees (imports, Git Sync).
 */
export function pageDepthProblem(map: PageMap, maxDepth = MAX_PAGE_DEPTH): string | undefined {
  const depths = pageDepths(map);
  let deepest: PageNode | undefined;
  for (const id of Object.keys(map))
    if ((depths.get(id) ?? 0) > maxDepth && (!deepest || depths.get(id)! > depths.get(deepest.id)!)) deepest = map[id];
  if (!deepest) return undefined;
  return `page "${deepest.title}" would be ${depths.get(deepest.id)} levels deep; pages may be nested at most ${maxDepth} levels deep`;
}

/**
 * Slugs from the top level down to the page, joined with `/` (e.g. `guides/install`). When an
 * ancestor is missing, the path starts at the highest ancestor that exists. Throws a RangeError for
 * an unknown id or when the page's ancestors form a cycle.
 */
export function pagePath(map: PageMap, id: string): string {
  let node = getPage(map, id);
  if (!node) throw new RangeError(`no page ${id}`);
  const slugs: string[] = [];
  const seen = new Set<string>();
  while (node) {
    if (seen.has(node.id)) throw new RangeError(`the ancestors of page ${id} form a cycle`);
    seen.add(node.id);
    slugs.push(node.slug);
    node = node.parentId === null ? undefined : getPage(map, node.parentId);
  }
  return slugs.reverse().join('/');
}

/** Page id → path (see `pagePath`) for every page, in linear time. Pages in or under a cycle are left out. */
export function allPaths(map: PageMap): Map<string, string> {
  const paths = new Map<string, string>();
  const broken = new Set<string>();
  for (const start of Object.keys(map)) {
    if (paths.has(start) || broken.has(start)) continue;
    // Walk up until a page whose path is known, the top, a missing parent or a repeat.
    const chain: PageNode[] = [];
    const onChain = new Set<string>();
    let prefix = '';
    let cyclic = false;
    let node: PageNode | undefined = map[start];
    while (node) {
      const known = paths.get(node.id);
      if (known !== undefined) {
        prefix = known;
        break;
      }
      if (broken.has(node.id) || onChain.has(node.id)) {
        cyclic = true;
        break;
      }
      chain.push(node);
      onChain.add(node.id);
      node = node.parentId === null ? undefined : getPage(map, node.parentId);
    }
    for (let i = chain.length - 1; i >= 0; i--) {
      if (cyclic) {
        broken.add(chain[i].id);
        continue;
      }
      prefix = prefix === '' ? chain[i].slug : `${prefix}/${chain[i].slug}`;
      paths.set(chain[i].id, prefix);
    }
  }
  return paths;
}

/**
 * A URL slug for a title: lowercase ASCII letters and digits separated by single dashes, accents
 * dropped (`Café` → `cafe`), at most 100 characters, never empty (`page` when nothing is left).
 */
export function slugify(title: string): string {
  const slug = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 100)
    .replace(/-+$/, '');
  return slug === '' ? 'page' : slug;
}

export type TreeProblemKind = 'id-mismatch' | 'missing-parent' | 'cycle' | 'duplicate-slug' | 'too-deep';

export interface TreeProblem {
  kind: TreeProblemKind;
  /** The page the problem is about; a cycle or a slug clash gives one problem per page involved. */
  pageId: string;
  /** The parent concerned: the missing one, or the one whose children share a slug. */
  parentId?: string | null;
  /** The slug shared by siblings. */
  slug?: string;
  message: string;
}

/**
 * Everything structurally wrong with a page map: a key that differs from its page's id, a parent
 * that does not exist, ancestors forming a cycle (reported for each page on the cycle, not for the
 * pages below it), siblings sharing a slug, and pages deeper than MAX_PAGE_DEPTH (reported for the
 * first page too deep on each branch, not for the pages below it). An empty list means the map is
 * a valid tree.
 */
export function validateTree(map: PageMap): TreeProblem[] {
  const problems: TreeProblem[] = [];
  const ids = Object.keys(map);
  const count = ids.length;
  // Pages are numbered once, so the walks below use arrays rather than lookups by id.
  const indexOf = new Map<string, number>();
  for (let i = 0; i < count; i++) indexOf.set(ids[i], i);
  const TOP = -1;
  const MISSING = -2;
  const parentOf = new Int32Array(count);

  for (let i = 0; i < count; i++) {
    const id = ids[i];
    const node = map[id];
    if (node.id !== id) {
      problems.push({ kind: 'id-mismatch', pageId: id, message: `page stored under ${id} has id ${node.id}` });
    }
    if (node.parentId === null) {
      parentOf[i] = TOP;
    } else {
      parentOf[i] = indexOf.get(node.parentId) ?? MISSING;
      if (parentOf[i] === MISSING) {
        problems.push({
          kind: 'missing-parent',
          pageId: id,
          parentId: node.parentId,
          message: `page ${id} is under ${node.parentId}, which does not exist`,
        });
      }
    }
  }

  // Cycles: follow parent links, marking pages on the current walk; meeting one again closes a cycle.
  const ON_WALK = 1;
  const DONE = 2;
  const state = new Uint8Array(count);
  const walk: number[] = [];
  for (let start = 0; start < count; start++) {
    if (state[start] !== 0) continue;
    walk.length = 0;
    let current = start;
    while (current >= 0 && state[current] === 0) {
      state[current] = ON_WALK;
      walk.push(current);
      current = parentOf[current];
    }
    if (current >= 0 && state[current] === ON_WALK) {
      const cycle = walk.slice(walk.indexOf(current)).map((i) => ids[i]);
      for (const id of cycle) {
        problems.push({ kind: 'cycle', pageId: id, message: `page ${id} is its own ancestor (${cycle.join(' → ')})` });
      }
    }
    for (const i of walk) state[i] = DONE;
  }

  // Shared slugs: one key per (parent, slug); the few keys used twice are the clashes.
  const firstWithKey = new Map<string, number>();
  const clashes = new Map<string, number[]>();
  for (let i = 0; i < count; i++) {
    const node = map[ids[i]];
    const parentKey = parentOf[i] === TOP ? '' : parentOf[i] === MISSING ? `?${node.parentId}` : `#${parentOf[i]}`;
    const key = `${parentKey}\u0000${node.slug}`;
    const first = firstWithKey.get(key);
    if (first === undefined) firstWithKey.set(key, i);
    else {
      const same = clashes.get(key);
      if (same) same.push(i);
      else clashes.set(key, [first, i]);
    }
  }
  for (const same of clashes.values()) {
    same.sort((x, y) => compareSiblings(map[ids[x]], map[ids[y]]));
    for (const i of same) {
      const node = map[ids[i]];
      const others = same.filter((other) => other !== i).map((other) => ids[other]);
      problems.push({
        kind: 'duplicate-slug',
        pageId: ids[i],
        parentId: node.parentId,
        slug: node.slug,
        message: `page ${ids[i]} has the slug "${node.slug}", as do its siblings ${others.join(', ')}`,
      });
    }
  }
  // Too deep: the first page past the limit on each branch (the pages under it are not repeated).
  for (const [id, depth] of pageDepths(map)) {
    if (depth === MAX_PAGE_DEPTH + 1)
      problems.push({ kind: 'too-deep', pageId: id, message: `page ${id} is ${depth} levels deep; the limit is ${MAX_PAGE_DEPTH}` });
  }
  return problems;
}

/**
 * Structural equality of JSON-like values (what pages hold): a property set to undefined equals a
 * missing one, `null` does not.
 */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  for (const key of Object.keys(x)) if (!deepEqual(x[key], Object.hasOwn(y, key) ? y[key] : undefined)) return false;
  for (const key of Object.keys(y)) if (!Object.hasOwn(x, key) && y[key] !== undefined) return false;
  return true;
}

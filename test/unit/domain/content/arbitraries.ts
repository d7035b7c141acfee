/**
 * Page-map builders and fast-check generators shared by the tree and merge tests. Generated trees
 * are small and always valid (acyclic, parents present, sibling slugs unique); edits are described
 * as plain data and applied deterministically, so the same edits can be replayed on another map.
 */
import fc from 'fast-check';
import type { PageMap, PageNode } from '../../../../src/domain/content/tree.ts';

export function page(id: string, parentId: string | null, position: string, extra: Partial<PageNode> = {}): PageNode {
  const defaults = { type: 'document' as const, title: `Page ${id}`, slug: id.toLowerCase(), markdown: `# ${id}\n` };
  return { id, parentId, position, ...defaults, ...extra };
}

export function pages(...nodes: PageNode[]): PageMap {
  const map: PageMap = {};
  for (const node of nodes) map[node.id] = node;
  return map;
}

/** A copy of the map with one page changed (the other pages are shared, as a store would hand them out). */
export function edit(map: PageMap, id: string, changes: Partial<PageNode>): PageMap {
  return { ...map, [id]: { ...map[id], ...changes } };
}

export function without(map: PageMap, ...ids: string[]): PageMap {
  const copy = { ...map };
  for (const id of ids) delete copy[id];
  return copy;
}

const LINES = ['alpha', 'beta', 'gamma', 'delta', ''];
const POSITIONS = ['a0', 'a1', 'a2', 'a3', 'Zz'];

const arbMarkdown = fc
  .tuple(fc.array(fc.constantFrom(...LINES), { maxLength: 6 }), fc.boolean())
  .map(([lines, newline]) => lines.join('\n') + (newline ? '\n' : ''));

const arbPageSpec = fc.record({
  parent: fc.nat(),
  position: fc.constantFrom(...POSITIONS),
  title: fc.constantFrom('Intro', 'Guide', 'API', 'FAQ'),
  markdown: arbMarkdown,
  emoji: fc.option(fc.constantFrom('📘', '🚀'), { nil: undefined }),
  hidden: fc.option(fc.boolean(), { nil: undefined }),
  layout: fc.option(fc.constant({ cover: true, title: false }), { nil: undefined }),
});

/** A valid tree of 1 to `max` pages `p0`, `p1`…; each page's parent is an earlier page or the top level. */
export function arbTree(max = 10): fc.Arbitrary<PageMap> {
  return fc.array(arbPageSpec, { minLength: 1, maxLength: max }).map((specs) => {
    const map: PageMap = {};
    specs.forEach((spec, i) => {
      const pick = spec.parent % (i + 1);
      const node: PageNode = {
        id: `p${i}`,
        parentId: pick === i ? null : `p${pick}`,
        position: spec.position,
        type: 'document',
        title: spec.title,
        slug: `s${i}`,
        markdown: spec.markdown,
      };
      if (spec.emoji !== undefined) node.emoji = spec.emoji;
      if (spec.hidden !== undefined) node.hidden = spec.hidden;
      if (spec.layout !== undefined) node.layout = spec.layout;
      map[node.id] = node;
    });
    return map;
  });
}

export type Op =
  | { kind: 'field'; target: number; field: 'title' | 'emoji' | 'hidden' | 'layout' | 'description'; value: number }
  | { kind: 'slug'; target: number; value: number }
  | { kind: 'text'; target: number; edit: 'replace' | 'insert' | 'delete' | 'newline'; line: number; value: string }
  | { kind: 'move'; target: number; parent: number; position: string }
  | { kind: 'delete'; target: number }
  | { kind: 'add'; parent: number; position: string; slug: number; markdown: string };

const arbFieldOp = fc.record({
  kind: fc.constant('field' as const),
  target: fc.nat(),
  field: fc.constantFrom(...(['title', 'emoji', 'hidden', 'layout', 'description'] as const)),
  value: fc.nat(3),
});
const arbTextOp = fc.record({
  kind: fc.constant('text' as const),
  target: fc.nat(),
  edit: fc.constantFrom('replace' as const, 'insert' as const, 'delete' as const, 'newline' as const),
  line: fc.nat(),
  value: fc.constantFrom('alpha', 'omega', 'sigma', ''),
});
const arbMoveOp = fc.record({
  kind: fc.constant('move' as const),
  target: fc.nat(),
  parent: fc.nat(),
  position: fc.constantFrom(...POSITIONS),
});
const arbSlugOp = fc.record({ kind: fc.constant('slug' as const), target: fc.nat(), value: fc.nat(2) });
const arbDeleteOp = fc.record({ kind: fc.constant('delete' as const), target: fc.nat() });
const arbAddOp = fc.record({
  kind: fc.constant('add' as const),
  parent: fc.nat(),
  position: fc.constantFrom(...POSITIONS),
  slug: fc.nat(2),
  markdown: arbMarkdown,
});

export const arbOps = fc.array(fc.oneof(arbFieldOp, arbTextOp, arbMoveOp, arbSlugOp, arbDeleteOp, arbAddOp), {
  maxLength: 8,
});
export const arbFieldOps = fc.array(arbFieldOp, { maxLength: 6 });
export const arbTextAndMoveOps = fc.array(fc.oneof(arbTextOp, arbMoveOp), { maxLength: 6 });

export interface ApplyOptions {
  /** Names the side: prefixes the ids of added pages (and their slugs when `uniqueSlugs`). */
  side: string;
  /** Only pages in this set (plus the pages the ops add) are edited or used as parents. Default: all. */
  region?: Set<string>;
  /** Give new and renamed slugs unique values, so no two siblings can ever share one. */
  uniqueSlugs?: boolean;
}

function descendants(map: PageMap, id: string): Set<string> {
  const found = new Set([id]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const node of Object.values(map)) {
      if (node.parentId !== null && found.has(node.parentId) && !found.has(node.id)) {
        found.add(node.id);
        grew = true;
      }
    }
  }
  return found;
}

/**
 * Apply edits to a copy of the map, keeping it a valid tree: moves never go under the page itself
 * or its descendants, deletions remove the whole subtree. Targets are picked by index among the
 * (sorted) pages of the region, so applying to a map that differs only outside the region picks
 * the same pages.
 */
export function applyOps(input: PageMap, ops: Op[], options: ApplyOptions): PageMap {
  const map: PageMap = { ...input };
  const region = options.region ? new Set(options.region) : undefined;
  let counter = 0;
  const candidates = () =>
    Object.keys(map)
      .filter((id) => !region || region.has(id))
      .sort();
  const slugFor = (value: number) => (options.uniqueSlugs ? `${options.side}-slug-${counter++}` : `clash-${value}`);

  for (const op of ops) {
    const ids = candidates();
    if (op.kind === 'add') {
      const choice = op.parent % (ids.length + 1);
      const id = `${options.side}${counter++}`;
      map[id] = {
        id,
        parentId: choice === ids.length ? null : ids[choice],
        position: op.position,
        type: 'document',
        title: `Added ${id}`,
        slug: slugFor(op.slug),
        markdown: op.markdown,
      };
      region?.add(id);
      continue;
    }
    if (ids.length === 0) continue;
    const target = ids[op.target % ids.length];
    const node = map[target];
    switch (op.kind) {
      case 'field': {
        const values: Record<typeof op.field, unknown[]> = {
          title: ['Renamed', 'Other title', 'Intro', 'Third'],
          emoji: ['🎉', null, '📘', '🧪'],
          hidden: [true, false, true, false],
          layout: [{ cover: false }, null, { cover: true, title: false }, { outline: true }],
          description: ['About', null, 'Details', 'More'],
        };
        map[target] = { ...node, [op.field]: values[op.field][op.value % 4] };
        break;
      }
      case 'slug':
        map[target] = { ...node, slug: slugFor(op.value) };
        break;
      case 'text': {
        const lines = node.markdown.split('\n');
        const at = op.line % (lines.length + 1);
        if (op.edit === 'insert') lines.splice(at, 0, op.value);
        else if (op.edit === 'replace' && at < lines.length) lines[at] = op.value;
        else if (op.edit === 'delete' && at < lines.length) lines.splice(at, 1);
        let markdown = lines.join('\n');
        if (op.edit === 'newline') markdown = markdown.endsWith('\n') ? markdown.slice(0, -1) : `${markdown}\n`;
        map[target] = { ...node, markdown };
        break;
      }
      case 'move': {
        const inside = descendants(map, target);
        const parents = [null, ...ids.filter((id) => !inside.has(id))];
        map[target] = { ...node, parentId: parents[op.parent % parents.length], position: op.position };
        break;
      }
      case 'delete':
        for (const id of descendants(map, target)) delete map[id];
        break;
    }
  }
  return map;
}

import { parse as parseYaml } from 'yaml';
import { positionBetween } from '../positions.ts';
import { childrenIndex, getPage, slugify, type PageMap, type PageNode } from './tree.ts';
import { parseMarkdown } from './markdown-parse.ts';
import { toString } from 'mdast-util-to-string';

/**
 * Applying a batch of change-request content operations (GitBook's `insert_page`, `update_page`,
 * `delete_page`, `revert_page`; files are stored by the caller and passed in) to a page map.
 * Pure: the whole batch applies or none of it does — the first invalid operation is reported
 * with its index.
 */

export interface PageFields {
  title?: string;
  slug?: string;
  emoji?: string;
  icon?: string;
  description?: string;
  hidden?: boolean;
  noIndex?: boolean;
  noRobotsIndex?: boolean;
}

export type ContentOperation =
  | (PageFields & { operation: 'insert_page'; into?: string; at?: number; ref?: string; document?: { markdown?: string } })
  | (PageFields & { operation: 'update_page'; page: string; into?: string | null; at?: number; document?: { markdown?: string } })
  | { operation: 'delete_page'; page: string }
  | { operation: 'revert_page'; page: string; revision?: string; block?: string[] }
  | { operation: 'insert_files'; files: unknown[] };

export interface ChangeOutcome {
  object: 'created_page' | 'updated_page' | 'deleted_page';
  page: string;
  ref?: string;
}

export class OperationError extends Error {
  readonly index: number;
  constructor(index: number, message: string) {
    super(`changes[${index}]: ${message}`);
    this.index = index;
  }
}

export interface ApplyContext {
  newId: () => string;
  /** Page maps a `revert_page` may restore from, by revision id; `base` is the change request's base. */
  revertSources: { base: PageMap; byRevision?: Record<string, PageMap> };
}

/** Metadata a markdown document carries: front matter fields and, failing a title there, a leading `# heading`. */
export function documentMetadata(markdown: string): { title?: string; description?: string; emoji?: string } {
  const out: { title?: string; description?: string; emoji?: string } = {};
  const fm = /^---\r?\n([\s\S]*?)\r?\n---(\r?\n|$)/.exec(markdown);
  if (fm) {
    try {
      const data = parseYaml(fm[1]);
      if (data && typeof data === 'object') {
        const d = data as Record<string, unknown>;
        if (typeof d.title === 'string' && d.title.trim()) out.title = d.title.trim();
        if (typeof d.description === 'string') out.description = d.description;
        if (typeof d.icon === 'string') out.emoji = d.icon;
      }
    } catch {
      // not front matter after all
    }
  }
  if (!out.title) {
    // Only a leading level-1 heading names the page (as Git Sync reads it), never one further down.
    const first = parseMarkdown(markdown).children.find((n) => n.type !== 'yaml' && n.type !== 'html');
    const text = first?.type === 'heading' && first.depth === 1 ? toString(first).trim() : '';
    if (text) out.title = text;
  }
  return out;
}

function siblingsOf(map: PageMap, parentId: string | null, excluding?: string): PageNode[] {
  return (childrenIndex(map).get(parentId) ?? []).filter((p) => p.id !== excluding);
}

function positionAt(siblings: PageNode[], at: number | undefined): string {
  const index = at === undefined || at > siblings.length ? siblings.length : at;
  return positionBetween(siblings[index - 1]?.position ?? null, siblings[index]?.position ?? null);
}

function isDescendant(map: PageMap, candidate: string, ancestor: string): boolean {
  let current: string | null = candidate;
  for (let guard = 0; current !== null && guard < 10_000; guard++) {
    if (current === ancestor) return true;
    current = getPage(map, current)?.parentId ?? null;
  }
  return false;
}

function removeWithDescendants(map: PageMap, id: string): void {
  const index = childrenIndex(map);
  const stack = [id];
  while (stack.length) {
    const current = stack.pop()!;
    for (const child of index.get(current) ?? []) stack.push(child.id);
    delete map[current];
  }
}

function checkSlug(map: PageMap, node: PageNode, index: number): void {
  if (node.slug.length > 100) throw new OperationError(index, 'slug must be at most 100 characters');
  const clash = siblingsOf(map, node.parentId, node.id).find((p) => p.slug === node.slug);
  if (clash) throw new OperationError(index, `slug "${node.slug}" is already used by page ${clash.id} under the same parent`);
}

function applyFields(node: PageNode, op: PageFields, markdown: string | undefined) {
  const meta = markdown !== undefined ? documentMetadata(markdown) : {};
  if (op.title !== undefined) node.title = op.title;
  if (meta.title !== undefined) node.title = meta.title;
  if (op.emoji !== undefined) node.emoji = op.emoji || null;
  if (meta.emoji !== undefined) node.emoji = meta.emoji || null;
  if (op.icon !== undefined) node.icon = op.icon || null;
  if (op.description !== undefined) node.description = op.description;
  if (meta.description !== undefined) node.description = meta.description;
  if (op.hidden !== undefined) node.hidden = op.hidden;
  if (op.noIndex !== undefined) node.noIndex = op.noIndex;
  if (op.noRobotsIndex !== undefined) node.noRobotsIndex = op.noRobotsIndex;
  if (markdown !== undefined) node.markdown = markdown;
}

/** Applies `operations` in order to a copy of `pages`. Throws OperationError for the first bad one. */
export function applyOperations(
  pages: PageMap,
  operations: ContentOperation[],
  ctx: ApplyContext,
): { pages: PageMap; changes: ChangeOutcome[] } {
  const map: PageMap = { ...pages };
  const outcomes = new Map<string, ChangeOutcome>();
  const refs = new Map<string, string>();
  const touch = (outcome: ChangeOutcome) => {
    const existing = outcomes.get(outcome.page);
    if (!existing) outcomes.set(outcome.page, outcome);
    else if (outcome.object === 'deleted_page') {
      if (existing.object === 'created_page') outcomes.delete(outcome.page);
      else outcomes.set(outcome.page, outcome);
    }
  };
  const resolve = (id: string) => refs.get(id) ?? id;

  operations.forEach((op, index) => {
    switch (op.operation) {
      case 'insert_page': {
        const parentId = op.into === undefined ? null : resolve(op.into);
        if (parentId !== null && !getPage(map, parentId)) throw new OperationError(index, `into: page ${op.into} does not exist`);
        if (op.ref !== undefined && (refs.has(op.ref) || getPage(map, op.ref)))
          throw new OperationError(index, `ref "${op.ref}" is used twice`);
        const id = ctx.newId();
        const node: PageNode = {
          id,
          parentId,
          position: positionAt(siblingsOf(map, parentId), op.at),
          type: 'document',
          title: 'Untitled',
          slug: '',
          markdown: '',
        };
        applyFields(node, op, op.document?.markdown);
        if (!node.title.trim()) throw new OperationError(index, 'title must not be empty');
        node.slug = op.slug ?? slugify(node.title);
        checkSlug(map, node, index);
        map[id] = node;
        if (op.ref !== undefined) refs.set(op.ref, id);
        touch({ object: 'created_page', page: id, ...(op.ref !== undefined ? { ref: op.ref } : {}) });
        break;
      }
      case 'update_page': {
        const id = resolve(op.page);
        const current = getPage(map, id);
        if (!current) throw new OperationError(index, `page ${op.page} does not exist`);
        const node: PageNode = { ...current };
        applyFields(node, op, op.document?.markdown);
        if (!node.title.trim()) throw new OperationError(index, 'title must not be empty');
        if (op.slug !== undefined) node.slug = op.slug;
        if (op.into !== undefined || op.at !== undefined) {
          const parentId = op.into === undefined ? current.parentId : op.into === null ? null : resolve(op.into);
          if (parentId !== null) {
            if (!getPage(map, parentId)) throw new OperationError(index, `into: page ${op.into} does not exist`);
            if (isDescendant(map, parentId, id))
              throw new OperationError(index, 'into: a page cannot move into itself or one of its own pages');
          }
          node.parentId = parentId;
          node.position = positionAt(siblingsOf(map, parentId, id), op.at);
        }
        checkSlug(map, node, index);
        map[id] = node;
        touch({ object: 'updated_page', page: id });
        break;
      }
      case 'delete_page': {
        const id = resolve(op.page);
        if (!getPage(map, id)) throw new OperationError(index, `page ${op.page} does not exist`);
        const index0 = childrenIndex(map);
        const stack = [id];
        while (stack.length) {
          const current = stack.pop()!;
          for (const child of index0.get(current) ?? []) stack.push(child.id);
          touch({ object: 'deleted_page', page: current });
        }
        removeWithDescendants(map, id);
        break;
      }
      case 'revert_page': {
        if (op.block !== undefined)
          throw new OperationError(index, 'block: reverting single blocks is not supported; revert the whole page');
        const source = op.revision === undefined ? ctx.revertSources.base : ctx.revertSources.byRevision?.[op.revision];
        if (!source) throw new OperationError(index, `revision ${op.revision} is not a revision of this space`);
        const id = resolve(op.page);
        const before = getPage(source, id);
        if (!before) {
          if (!getPage(map, id)) throw new OperationError(index, `page ${op.page} exists neither here nor in the revision`);
          removeWithDescendants(map, id);
          touch({ object: 'deleted_page', page: id });
          break;
        }
        const restored: PageNode = { ...before };
        if (restored.parentId !== null && !getPage(map, restored.parentId)) {
          restored.parentId = null;
          restored.position = positionAt(siblingsOf(map, null, id), undefined);
        }
        const existed = !!getPage(map, id);
        checkSlug(map, restored, index);
        map[id] = restored;
        touch({ object: existed ? 'updated_page' : 'created_page', page: id });
        break;
      }
      case 'insert_files':
        break;
      default:
        throw new OperationError(index, `operation "${(op as { operation: string }).operation}" is not known`);
    }
  });
  return { pages: map, changes: [...outcomes.values()] };
}

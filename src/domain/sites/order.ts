import { positionBetween } from '../positions.ts';

/**
 * Order of the items of a site (sections and section groups at one level, site-spaces in one
 * section): fractional keys, so a move writes one row. Pure: the caller passes the siblings.
 */

export interface Ordered {
  id: string;
  position: string;
}

export class OrderError extends Error {}

const byPosition = (a: Ordered, b: Ordered) => (a.position < b.position ? -1 : a.position > b.position ? 1 : a.id < b.id ? -1 : 1);

/** The items in their order. */
export function sortOrdered<T extends Ordered>(items: T[]): T[] {
  return [...items].sort(byPosition);
}

/** The key that puts an item at the end of `siblings`. */
export function lastKey(siblings: Ordered[]): string {
  const sorted = sortOrdered(siblings);
  return positionBetween(sorted.length ? sorted[sorted.length - 1].position : null, null);
}

/**
 * The key of `movingId` placed `before` one sibling and/or `after` another (ids among `siblings`);
 * with neither, at the end. Throws an OrderError naming the field that is wrong.
 */
export function moveKey(siblings: Ordered[], movingId: string, position: { before?: string; after?: string } = {}): string {
  const others = sortOrdered(siblings.filter((s) => s.id !== movingId));
  const index = (id: string, field: string) => {
    if (id === movingId) throw new OrderError(`position.${field} cannot be the item being moved`);
    const i = others.findIndex((s) => s.id === id);
    if (i < 0) throw new OrderError(`position.${field} refers to an item that is not among the siblings`);
    return i;
  };
  const before = position.before === undefined ? undefined : index(position.before, 'before');
  const after = position.after === undefined ? undefined : index(position.after, 'after');
  if (before === undefined && after === undefined) return positionBetween(others.length ? others[others.length - 1].position : null, null);
  if (before !== undefined && after !== undefined && after + 1 !== before) {
    throw new OrderError('position.after and position.before must be adjacent siblings, after first');
  }
  const lowerIndex = after ?? before! - 1;
  const upperIndex = before ?? after! + 1;
  const lower = lowerIndex >= 0 ? others[lowerIndex].position : null;
  const upper = upperIndex < others.length ? others[upperIndex].position : null;
  if (lower !== null && upper !== null && lower === upper) {
    // Equal keys (never written by this code, but tolerated): place just after the lower one.
    return positionBetween(lower, null);
  }
  return positionBetween(lower, upper);
}

/**
 * The default among `items` (ordered): the one flagged default when it is there, else the first.
 * Used after deletions (promotion) and when the flagged one is filtered out (deleted space,
 * condition false for a visitor).
 */
export function effectiveDefault<T extends Ordered & { isDefault: boolean }>(items: T[]): T | undefined {
  const sorted = sortOrdered(items);
  return sorted.find((i) => i.isDefault) ?? sorted[0];
}

/** A path not yet used among `taken`: `base`, then `base-2`, `base-3`, … (at most 100 characters). */
export function uniquePath(base: string, taken: Iterable<string>): string {
  const used = new Set(taken);
  const root = (base || 'section').slice(0, 100);
  if (!used.has(root)) return root;
  for (let n = 2; ; n++) {
    const suffix = `-${n}`;
    const candidate = root.slice(0, 100 - suffix.length) + suffix;
    if (!used.has(candidate)) return candidate;
  }
}

import type { EntityName, FilterQuery } from '@mikro-orm/core';
import type { Em } from '../db/orm.ts';
import { decodeCursor, encodeCursor } from '../domain/cursor.ts';
import { badRequest } from './errors.ts';

export const DEFAULT_LIMIT = 100;

export interface ListPage<T> {
  items: T[];
  count: number;
  next?: { page: string };
}

export interface SortKey {
  field: string;
  kind: 'string' | 'date';
}

/**
 * Keyset pagination over an entity: stable order by `keys` (the last one must be unique),
 * no duplicates or gaps when rows are inserted between pages, cost independent of the page number.
 */
export async function paginate<E extends object, T>(
  em: Em,
  entity: EntityName<E>,
  where: FilterQuery<E>,
  keys: SortKey[],
  query: { page?: string; limit?: number },
  present: (row: E) => T | Promise<T>,
): Promise<ListPage<T>> {
  const limit = query.limit ?? DEFAULT_LIMIT;
  const conditions: object[] = [where as object];
  if (query.page !== undefined) {
    const values = decodeCursor(query.page, keys.map((k) => k.kind));
    if (!values) throw badRequest('page is not a valid page cursor: pass `next.page` of the previous answer');
    const after = values.map((v, i) => (keys[i].kind === 'date' ? new Date(v as string) : v));
    // (k1, k2, …) > (v1, v2, …) expanded into OR of prefixes
    const or = keys.map((key, i) => {
      const clause: Record<string, unknown> = {};
      for (let j = 0; j < i; j++) clause[keys[j].field] = after[j];
      clause[key.field] = { $gt: after[i] };
      return clause;
    });
    conditions.push({ $or: or });
  }
  const orderBy = Object.fromEntries(keys.map((k) => [k.field, 'asc']));
  const [rows, count] = await Promise.all([
    em.find(entity, { $and: conditions } as never, { orderBy: orderBy as never, limit: limit + 1 }),
    em.count(entity, where as never),
  ]);
  const page = rows.slice(0, limit);
  const items = await Promise.all(page.map(present));
  const result: ListPage<T> = { items, count };
  if (rows.length > limit) {
    const last = page[page.length - 1] as Record<string, unknown>;
    result.next = {
      page: encodeCursor(keys.map((k) => (k.kind === 'date' ? (last[k.field] as Date).toISOString() : (last[k.field] as string)))),
    };
  }
  return result;
}

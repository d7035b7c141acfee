import type { EntityName, FilterQuery } from '@mikro-orm/core';
import type { Em } from '../db/orm.ts';
import { selectListingPage } from '../db/listing.ts';
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

export type SortOrder = 'asc' | 'desc';

function decodePage(page: string, kinds: SortKey['kind'][]) {
  const values = decodeCursor(page, kinds);
  if (!values) throw badRequest('page is not a valid page cursor: pass `next.page` of the previous answer');
  return values;
}

function cursorOf(row: Record<string, unknown>, keys: SortKey[]): string {
  return encodeCursor(
    keys.map((k) => {
      const value = row[k.field];
      return k.kind === 'date' ? new Date(value as Date | string).toISOString() : String(value);
    }),
  );
}

/**
 * Keyset pagination over an entity: stable order by `keys` (the last one must be unique),
 * no duplicates or gaps when rows are inserted between pages, cost independent of the page number.
 * Every key runs in `order` (ascending unless told otherwise).
 */
export async function paginate<E extends object, T>(
  em: Em,
  entity: EntityName<E>,
  where: FilterQuery<E>,
  keys: SortKey[],
  query: { page?: string; limit?: number },
  present: (row: E) => T | Promise<T>,
  options: { order?: SortOrder } = {},
): Promise<ListPage<T>> {
  const limit = query.limit ?? DEFAULT_LIMIT;
  const order = options.order ?? 'asc';
  const conditions: object[] = [where as object];
  if (query.page !== undefined) {
    const values = decodePage(
      query.page,
      keys.map((k) => k.kind),
    );
    const after = values.map((v, i) => (keys[i].kind === 'date' ? new Date(v as string) : v));
    // (k1, k2, …) > (v1, v2, …) (or < when descending) expanded into OR of prefixes
    const beyond = order === 'asc' ? '$gt' : '$lt';
    const or = keys.map((key, i) => {
      const clause: Record<string, unknown> = {};
      for (let j = 0; j < i; j++) clause[keys[j].field] = after[j];
      clause[key.field] = { [beyond]: after[i] };
      return clause;
    });
    conditions.push({ $or: or });
  }
  const orderBy = Object.fromEntries(keys.map((k) => [k.field, order]));
  const [rows, count] = await Promise.all([
    em.find(entity, { $and: conditions } as never, { orderBy: orderBy as never, limit: limit + 1 }),
    em.count(entity, where as never),
  ]);
  const page = rows.slice(0, limit);
  const items = await Promise.all(page.map(present));
  const result: ListPage<T> = { items, count };
  if (rows.length > limit) result.next = { page: cursorOf(page[page.length - 1] as Record<string, unknown>, keys) };
  return result;
}

export interface SqlListing<R> {
  /** A select whose output columns include every key; its `?` placeholders take `params`. */
  sql: string;
  params: unknown[];
  /** Output columns to order by (the last one unique among the rows). */
  keys: SortKey[];
  order?: SortOrder;
  /** Cast applied to row values before they leave the database (default: none). */
  row?: (raw: Record<string, unknown>) => R;
}

/**
 * The same keyset pagination over a raw select, for listings that join or filter beyond one
 * entity (search across tables, computed sort keys). Two statements: the page and the count
 * (one after the other, so they also run inside the caller's transaction).
 */
export async function paginateSql<R extends Record<string, unknown>, T>(
  em: Em,
  listing: SqlListing<R>,
  query: { page?: string; limit?: number },
  present: (rows: R[]) => T[] | Promise<T[]>,
): Promise<ListPage<T>> {
  const limit = query.limit ?? DEFAULT_LIMIT;
  const order = listing.order ?? 'asc';
  const { keys } = listing;
  const columns = keys.map((k) => `q."${k.field}"`).join(', ');
  let where = '';
  const params = [...listing.params];
  if (query.page !== undefined) {
    const values = decodePage(
      query.page,
      keys.map((k) => k.kind),
    );
    const placeholders = keys.map((k) => (k.kind === 'date' ? '?::timestamptz' : '?::text')).join(', ');
    where = `where (${columns}) ${order === 'asc' ? '>' : '<'} (${placeholders})`;
    params.push(...values);
  }
  const { raw, count } = await selectListingPage(em, listing.sql, listing.params, where, params, keys, order, limit);
  const rows = raw.map((r) => (listing.row ? listing.row(r) : (r as R)));
  const page = rows.slice(0, limit);
  const result: ListPage<T> = { items: await present(page), count };
  if (rows.length > limit) result.next = { page: cursorOf(page[page.length - 1], keys) };
  return result;
}

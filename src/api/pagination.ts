import type { EntityName, FilterQuery } from '@mikro-orm/core';
import type { Em } from '../db/orm.ts';
import {
  countEntitiesUpTo,
  countListing,
  countRawListing,
  listingIdentity,
  readListingPage,
  selectListingPage,
  type Listing,
} from '../db/listing.ts';
import { Lru } from '../domain/lru.ts';
import { decodeCursor, encodeCursor } from '../domain/cursor.ts';
import { badRequest } from './errors.ts';

export const DEFAULT_LIMIT = 100;

/**
 * `count` is exact up to this many items, read with a bounded query on every page. A larger
 * listing's count costs a scan of all its rows, so each process keeps it for COUNT_TTL_MS (in a
 * bounded cache keyed by the listing): the count of a list of more than 10,000 items may lag by
 * up to that long, and its pages cost what small lists cost.
 */
export const COUNT_EXACT_UP_TO = 10_000;
const COUNT_TTL_MS = 30_000;
const largeCounts = new Lru<string, { count: number; expires: number }>(1_000);

async function countOf(key: string, capped: () => Promise<number>, all: () => Promise<number>): Promise<number> {
  const upTo = await capped();
  if (upTo <= COUNT_EXACT_UP_TO) return upTo;
  const known = largeCounts.get(key);
  if (known && known.expires > Date.now()) return known.count;
  const count = await all();
  largeCounts.set(key, { count, expires: Date.now() + COUNT_TTL_MS });
  return count;
}

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

function cursorOf(row: Record<string, unknown>, keys: { field: string; kind: SortKey['kind'] }[]): string {
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
/** @deprecated being replaced by `paginate` over a typed listing. */
export async function paginateEntity<E extends object, T>(
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
    // The leading key's bound alone, redundant with the OR above, lets the planner walk the index
    // from the cursor on (an OR of prefixes by itself reads every row past it, then sorts).
    conditions.push({ [keys[0].field]: { [order === 'asc' ? '$gte' : '$lte']: after[0] } }, { $or: or });
  }
  const orderBy = Object.fromEntries(keys.map((k) => [k.field, order]));
  const meta = em.getMetadata().get(entity);
  const [rows, count] = await Promise.all([
    em.find(entity, { $and: conditions } as never, { orderBy: orderBy as never, limit: limit + 1 }),
    countOf(
      `${meta.className} ${JSON.stringify(where)}`,
      () => countEntitiesUpTo(em, entity, where, COUNT_EXACT_UP_TO),
      () => em.count(entity, where as never),
    ),
  ]);
  const page = rows.slice(0, limit);
  const items = await Promise.all(page.map(present));
  const result: ListPage<T> = { items, count };
  if (rows.length > limit) result.next = { page: cursorOf(page[page.length - 1] as Record<string, unknown>, keys) };
  return result;
}

/**
 * Keyset pagination over a listing of src/db: stable order by its keys (the last one unique), no
 * duplicates or gaps when rows are inserted between pages, cost independent of the page number.
 * Two statements, the page and the count, one after the other (so also inside the caller's
 * transaction); see COUNT_EXACT_UP_TO. `present` turns the page's plain rows into API objects.
 */
export async function paginate<R, T>(
  em: Em,
  listing: Listing<R>,
  query: { page?: string; limit?: number },
  present: (rows: R[]) => T[] | Promise<T[]>,
): Promise<ListPage<T>> {
  const limit = query.limit ?? DEFAULT_LIMIT;
  const after =
    query.page === undefined
      ? undefined
      : decodePage(
          query.page,
          listing.keys.map((k) => k.kind),
        ).map(String);
  const rows = await readListingPage(em, listing, after, limit);
  const count = await countOf(
    listingIdentity(listing),
    () => countListing(em, listing, COUNT_EXACT_UP_TO),
    () => countListing(em, listing),
  );
  const page = rows.slice(0, limit);
  const result: ListPage<T> = { items: await present(page), count };
  if (rows.length > limit) result.next = { page: cursorOf(page[page.length - 1] as Record<string, unknown>, listing.keys) };
  return result;
}

/** @deprecated being replaced by `paginate` over a typed listing. */
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
 * (one after the other, so they also run inside the caller's transaction); see COUNT_EXACT_UP_TO.
 */
/** @deprecated being replaced by `paginate` over a typed listing. */
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
  const raw = await selectListingPage(em, listing.sql, where, params, keys, order, limit);
  const count = await countOf(
    `${listing.sql} ${JSON.stringify(listing.params)}`,
    () => countRawListing(em, listing.sql, listing.params, COUNT_EXACT_UP_TO),
    () => countRawListing(em, listing.sql, listing.params),
  );
  const rows = raw.map((r) => (listing.row ? listing.row(r) : (r as R)));
  const page = rows.slice(0, limit);
  const result: ListPage<T> = { items: await present(page), count };
  if (rows.length > limit) result.next = { page: cursorOf(page[page.length - 1], keys) };
  return result;
}

import type { Em } from '../db/orm.ts';
import { countListing, listingIdentity, readListingPage, type Listing, type SortKey } from '../db/listing.ts';
import { sharedCache } from '../domain/lru.ts';
import { entryBytes } from '../domain/sizeof.ts';
import { decodeCursor, encodeCursor } from '../domain/cursor.ts';
import { badRequest } from './errors.ts';

export const DEFAULT_LIMIT = 100;

/**
 * `count` is exact up to this many items, read with a bounded query on every page. A larger
 * listing's count costs a scan of all its rows, so each process keeps it for COUNT_TTL_MS (in a
 * cache keyed by the listing, within the `largeCounts` share of CACHE_MEMORY: about 250 bytes a
 * listing): the count of a list of more than 10,000 items may lag by
 * up to that long, and its pages cost what small lists cost.
 */
export const COUNT_EXACT_UP_TO = 10_000;
const COUNT_TTL_MS = 30_000;
const largeCounts = sharedCache<string, { count: number; expires: number }>('largeCounts', (value, key) => entryBytes(key, value));

async function countOf(key: string, capped: () => Promise<number>, all: () => Promise<number>): Promise<number> {
  const upTo = await capped();
  if (upTo <= COUNT_EXACT_UP_TO) return upTo;
  const known = largeCounts().get(key);
  if (known && known.expires > Date.now()) return known.count;
  const count = await all();
  largeCounts().set(key, { count, expires: Date.now() + COUNT_TTL_MS });
  return count;
}

export interface ListPage<T> {
  items: T[];
  count: number;
  next?: { page: string };
}

function decodePage(page: string, kinds: SortKey<unknown>['kind'][]) {
  const values = decodeCursor(page, kinds);
  if (!values) throw badRequest('page is not a valid page cursor: pass `next.page` of the previous answer');
  return values;
}

function cursorOf(row: Record<string, unknown>, keys: { field: string; kind: SortKey<unknown>['kind'] }[]): string {
  return encodeCursor(
    keys.map((k) => {
      const value = row[k.field];
      return k.kind === 'date' ? new Date(value as Date | string).toISOString() : String(value);
    }),
  );
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

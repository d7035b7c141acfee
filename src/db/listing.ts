import { sql, type SelectQueryBuilder } from 'kysely';
import { db, type Db } from './kysely.ts';
import type { Em } from './orm.ts';

/** A sort key of a listing: an output column of its select, compared as text or as a time. */
export interface SortKey<R> {
  field: keyof R & string;
  kind: 'string' | 'date';
}

/**
 * A keyset listing, as the modules of src/db build it for the API's paginator
 * (src/api/pagination.ts): a typed select whose output columns include every key, and the keys to
 * order by (the last one unique among the rows). Rows are plain objects, never hydrated entities.
 */
export interface Listing<R> {
  // The tables a listing reads are its own business: only its output row type is shared.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  query: SelectQueryBuilder<Db, any, R>;
  keys: SortKey<R>[];
  order?: 'asc' | 'desc';
}

/**
 * One page of `listing`: the rows after the cursor values `after` (none: from the start), at most
 * `limit + 1` of them so the caller can tell whether a next page exists. The cursor is compared as
 * one row value, `(k1, k2, …) > (v1, v2, …)`, which PostgreSQL answers from an index on the keys.
 */
export async function readListingPage<R>(em: Em, listing: Listing<R>, after: string[] | undefined, limit: number): Promise<R[]> {
  const direction = sql.raw(listing.order === 'desc' ? 'desc' : 'asc');
  const keys = listing.keys.map((k) => sql.ref(`q.${k.field}`));
  const beyond = after
    ? sql`where (${sql.join(keys)}) ${sql.raw(listing.order === 'desc' ? '<' : '>')} (${sql.join(
        after.map((value, i) => (listing.keys[i].kind === 'date' ? sql`${value}::timestamptz` : sql`${value}::text`)),
      )})`
    : sql``;
  const order = sql.join(keys.map((key) => sql`${key} ${direction}`));
  // A keyset page over any select: Kysely cannot order an aliased subquery by a generic key list.
  const { rows } = await sql<R>`select q.* from (${listing.query}) as q ${beyond} order by ${order} limit ${limit + 1}`.execute(db(em));
  return rows;
}

/** The rows of `listing`, counted up to `cap` (at most `cap + 1` rows are read) or all of them. */
export async function countListing<R>(em: Em, listing: Listing<R>, cap?: number): Promise<number> {
  // Counting a select of any shape: wrap it, bounded by `limit` when capped.
  const { rows } = await (
    cap === undefined
      ? sql<{ count: string }>`select count(*) as count from (${listing.query}) as q`
      : sql<{ count: string }>`select count(*) as count from (select 1 from (${listing.query}) as q limit ${cap + 1}) as c`
  ).execute(db(em));
  return Number(rows[0]?.count ?? 0);
}

/** What identifies a listing's rows (its statement and parameters), for caching its count. */
export function listingIdentity<R>(listing: Listing<R>): string {
  const compiled = listing.query.compile();
  return `${compiled.sql} ${JSON.stringify(compiled.parameters)}`;
}

import { sql, type SelectQueryBuilder } from 'kysely';
import type { EntityName, FilterQuery } from '@mikro-orm/core';
import { db, type Db } from './kysely.ts';
import type { Em } from './orm.ts';
import { sql as rawSql } from './sql.ts';

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

// ---- Being replaced by the typed listings above; removed once every list reads through them. ----

/**
 * One page of a keyset listing over a raw select (see src/api/pagination.ts `paginateSql`): the
 * rows after the cursor condition `where` (with `params`, the listing's own first), `limit + 1` of
 * them to tell whether a next page exists. Runs inside the caller's transaction.
 */
export async function selectListingPage(
  em: Em,
  listingSql: string,
  where: string,
  params: unknown[],
  keys: { field: string }[],
  order: 'asc' | 'desc',
  limit: number,
): Promise<Record<string, unknown>[]> {
  const direction = keys.map((k) => `q."${k.field}" ${order}`).join(', ');
  return rawSql(em, `select q.* from (${listingSql}) q ${where} order by ${direction} limit ${limit + 1}`, params);
}

/** The entities matching `where`, counted up to `cap` (at most `cap + 1` rows are read, none hydrated). */
export async function countEntitiesUpTo<E extends object>(
  em: Em,
  entity: EntityName<E>,
  where: FilterQuery<E>,
  cap: number,
): Promise<number> {
  const meta = em.getMetadata().get(entity);
  const query = em
    .createQueryBuilder(entity)
    .select(meta.primaryKeys as never)
    .where(where as never)
    .limit(cap + 1)
    .toQuery();
  return countRawListing(em, query.sql, [...query.params]);
}

/** The rows of a raw select, counted up to `cap` (at most `cap + 1` rows are read) or all of them. */
export async function countRawListing(em: Em, listingSql: string, listingParams: unknown[], cap?: number): Promise<number> {
  const counted = await rawSql<{ count: string | number }>(
    em,
    cap === undefined
      ? `select count(*) as count from (${listingSql}) q`
      : `select count(*) as count from (select 1 from (${listingSql}) q limit ${cap + 1}) c`,
    listingParams,
  );
  return Number(counted[0]?.count ?? 0);
}

/**
 * A keyset listing over a raw select, as the modules of src/db build it for `paginateSql`: the
 * select (whose output columns include every key), its parameters, and the keys to order by.
 */
export interface SelectListing {
  sql: string;
  params: unknown[];
  keys: { field: string; kind: 'string' | 'date' }[];
  order?: 'asc' | 'desc';
}

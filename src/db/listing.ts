import type { EntityName, FilterQuery } from '@mikro-orm/core';
import type { Em } from './orm.ts';
import { sql } from './sql.ts';

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
  return sql(em, `select q.* from (${listingSql}) q ${where} order by ${direction} limit ${limit + 1}`, params);
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
  return countListing(em, query.sql, [...query.params]);
}

/** The rows of a raw select, counted up to `cap` (at most `cap + 1` rows are read) or all of them. */
export async function countListing(em: Em, listingSql: string, listingParams: unknown[], cap?: number): Promise<number> {
  const counted = await sql<{ count: string | number }>(
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

import type { Em } from './orm.ts';
import { sql } from './sql.ts';

/**
 * One page of a keyset listing over a raw select (see src/api/pagination.ts `paginateSql`): the
 * rows after the cursor condition `where` (with `params`, the listing's own first), `limit + 1` of
 * them to tell whether a next page exists, and the listing's total. Two statements, one after the
 * other, so both run inside the caller's transaction.
 */
export async function selectListingPage(
  em: Em,
  listingSql: string,
  listingParams: unknown[],
  where: string,
  params: unknown[],
  keys: { field: string }[],
  order: 'asc' | 'desc',
  limit: number,
): Promise<{ raw: Record<string, unknown>[]; count: number }> {
  const direction = keys.map((k) => `q."${k.field}" ${order}`).join(', ');
  const raw = await sql(em, `select q.* from (${listingSql}) q ${where} order by ${direction} limit ${limit + 1}`, params);
  const counted = await sql<{ count: string | number }>(em, `select count(*) as count from (${listingSql}) q`, listingParams);
  return { raw, count: Number(counted[0]?.count ?? 0) };
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

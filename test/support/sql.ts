import type { Em } from '../../src/db/orm.ts';

/**
 * SQL text for tests and benchmarks: set up rows the API cannot make, or look at what it wrote.
 * Values are bound with `?`; runs in `em`'s transaction when it has one. The service itself never
 * writes SQL text outside Kysely (src/db/kysely.ts).
 */
export function sql<T = Record<string, unknown>>(em: Em, query: string, params: unknown[] = []): Promise<T[]> {
  return em.getConnection().execute<T[]>(query, params, 'all', em.getTransactionContext());
}

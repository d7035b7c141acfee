import type { Em } from './orm.ts';

/**
 * Raw SQL through the ORM's connection, inside the entity manager's transaction when it has one.
 * Values are bound with `?`; pass lists as one JSON string and expand them in SQL
 * (`jsonb_array_elements_text(?::jsonb)`, `jsonb_to_recordset(?::jsonb)`).
 */
export function sql<T = Record<string, unknown>>(em: Em, query: string, params: unknown[] = []): Promise<T[]> {
  return em.getConnection().execute<T[]>(query, params, 'all', em.getTransactionContext());
}

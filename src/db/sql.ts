import { raw } from '@mikro-orm/core';
import type { Em } from './orm.ts';

/**
 * Raw SQL through the ORM's connection, inside the entity manager's transaction when it has one.
 * Values are bound with `?`; pass lists as one JSON string and expand them in SQL
 * (`jsonb_array_elements_text(?::jsonb)`, `jsonb_to_recordset(?::jsonb)`).
 */
export function sql<T = Record<string, unknown>>(em: Em, query: string, params: unknown[] = []): Promise<T[]> {
  const bound = params.map((p) => (typeof p === 'string' && p.length > LONG_STRING ? raw(stringLiteral(p)) : p));
  return em.getConnection().execute<T[]>(query, bound, 'all', em.getTransactionContext());
}

/**
 * Strings longer than this are quoted here rather than by the ORM, whose quoting appends one
 * character at a time: for the JSON of a 10 MB batch of documents that blocked the event loop for
 * seconds, mostly collecting the garbage. The literal is the same (libpq's escaping).
 */
const LONG_STRING = 4096;

/** A PostgreSQL string literal for `value`: quotes doubled; with a backslash, an E'' literal with backslashes doubled. */
export function stringLiteral(value: string): string {
  const quoted = value.replace(/'/g, "''");
  return value.includes('\\') ? ` E'${quoted.replace(/\\/g, '\\\\')}'` : `'${quoted}'`;
}

/**
 * A hot-path statement run as a named prepared statement on the ORM's own pool, so PostgreSQL
 * parses and plans it once per connection instead of on every call. `text` uses `$1`, `$2`, … in
 * the order of `values`. Inside a transaction it runs on the transaction's connection instead.
 */
export async function prepared<T = Record<string, unknown>>(em: Em, name: string, text: string, values: unknown[]): Promise<T[]> {
  if (em.isInTransaction()) {
    const ordered: unknown[] = [];
    const inline = text.replace(/\$(\d+)/g, (_, n: string) => {
      ordered.push(values[Number(n) - 1]);
      return '?';
    });
    return sql<T>(em, inline, ordered);
  }
  const pool = await (
    em.getConnection() as unknown as { getNativeClient(): Promise<{ query(q: object): Promise<{ rows: T[] }> }> }
  ).getNativeClient();
  return (await pool.query({ name, text, values })).rows;
}

/** A PostgreSQL text[] literal, for passing a list through one `?::text[]` placeholder. */
export function textArray(values: (string | null)[]): string {
  return `{${values.map((v) => (v === null ? 'NULL' : `"${v.replace(/(["\\])/g, '\\$1')}"`)).join(',')}}`;
}

/**
 * Runs `write` once per slice of at most `size` items, one after the other (so in the caller's
 * transaction): a bulk write of a large revision sends bounded statements instead of one JSON
 * parameter holding every row. With `bytes`, a slice also holds at most `bytes.max` of what
 * `bytes.of` counts (but always one item), so that no statement is megabytes long.
 */
export async function inChunks<T>(
  items: T[],
  size: number,
  write: (chunk: T[]) => Promise<unknown>,
  bytes?: { of: (item: T) => number; max: number },
): Promise<void> {
  for (let i = 0; i < items.length;) {
    let end = Math.min(items.length, i + size);
    if (bytes) {
      let total = bytes.of(items[i]);
      for (let j = i + 1; j < end; j++) {
        total += bytes.of(items[j]);
        if (total > bytes.max) end = j;
      }
    }
    await write(items.slice(i, end));
    i = end;
  }
}

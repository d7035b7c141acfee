import { createHash } from 'node:crypto';
import type { ColumnType, Compilable, InsertType, Kysely, SelectType, UpdateType } from 'kysely';
import type { InferKyselyDB } from '@mikro-orm/postgresql';
import type { Em } from './orm.ts';
import type { entities } from './schema.ts';

/** The entities as MikroORM infers them for Kysely: a `Date` for every time column. */
type EntityDb = InferKyselyDB<(typeof entities)[number]>;

/** A time as the ORM's connection reads it: the text PostgreSQL sends (it keeps `timestamptz` unparsed). */
type TimeRead<T> = T extends Date ? string : T;
/** A time written: a `Date` or an ISO string. */
type TimeWritten<T> = T extends Date ? Date | string : T;
type Column<C> = ColumnType<TimeRead<SelectType<C>>, TimeWritten<InsertType<C>>, TimeWritten<UpdateType<C>>>;

/**
 * The database as Kysely sees it, inferred from the entities: table names as the migrations create
 * them (`app_user`, `revision_page`), columns in snake_case, values as the ORM's PostgreSQL
 * connection returns them: `timestamptz` as ISO text (read it with `new Date(…)`), `bigint` as text,
 * `jsonb` parsed, `text[]` as arrays. A column renamed in an entity fails the typecheck of every
 * query that names it.
 */
export type Db = { [T in keyof EntityDb]: { [C in keyof EntityDb[T]]: Column<EntityDb[T][C]> } };

/**
 * A typed query builder bound to `em`: inside `em.transactional(…)` every query runs in that
 * transaction, otherwise on the pool. This is how src/db runs anything the entity manager cannot
 * say simply (joins, aggregates, bulk writes, `on conflict`); SQL Kysely cannot express goes
 * through its `sql` template, named and commented where it is used.
 */
export function db(em: Em): Kysely<Db> {
  return em.getKysely<Db>();
}

/** An entity's fields as a row read through `db(em)`: its times as ISO text (see `Db`). */
export type Read<T> = { [K in keyof T]: TimeRead<T[K]> };

/** Prepared-statement names by statement text (one name per distinct text, bounded by the code's queries). */
const statementNames = new Map<string, string>();

/**
 * A hot-path read run as a named prepared statement on the pool, so PostgreSQL parses and plans it
 * once per connection instead of on every call (URL resolution, the caller's access to a space).
 * The name is derived from the statement's text, so each shape of the query gets its own. Inside a
 * transaction the query runs there as usual. Rows are what `db(em)` would return.
 */
export async function prepared<R>(em: Em, query: Compilable<R> & { execute(): Promise<R[]> }): Promise<R[]> {
  if (em.isInTransaction()) return query.execute();
  const compiled = query.compile();
  let name = statementNames.get(compiled.sql);
  if (name === undefined) {
    name = `q_${createHash('sha1').update(compiled.sql).digest('hex').slice(0, 24)}`;
    statementNames.set(compiled.sql, name);
  }
  const pool = await em.getConnection().getNativeClient();
  const result = await pool.query<R & object>({ name, text: compiled.sql, values: [...compiled.parameters] });
  return result.rows;
}

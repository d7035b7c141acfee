import { createHash } from 'node:crypto';
import {
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type ColumnType,
  type CompiledQuery,
  type Compilable,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type InsertType,
  type QueryResult,
  type SelectType,
  type UpdateType,
} from 'kysely';
import type { Pool } from 'pg';
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
 * A typed query builder bound to `em`: inside `transaction(em, …)` every query runs in that
 * transaction (the ORM's own Kysely, pinned to the transaction's connection); outside one, on the
 * ORM's pool directly, one `pool.query` per statement (the ORM's pooled Kysely added about 0.1 ms
 * to each statement, most of a simple read's cost on the API's hot paths). This is how src/db runs
 * anything the entity manager cannot say simply (joins, aggregates, bulk writes, `on conflict`);
 * SQL Kysely cannot express goes through its `sql` template, named and commented where it is used.
 */
export function db(em: Em): Kysely<Db> {
  if (em.isInTransaction()) return em.getKysely<Db>();
  const connection = em.getConnection();
  let kysely = onPool.get(connection);
  if (!kysely) {
    kysely = new Kysely<Db>({ dialect: poolDialect(() => connection.getNativeClient()) });
    onPool.set(connection, kysely);
  }
  return kysely;
}

/** The pool-level query builder of each ORM connection (one per ORM, dropped with it). */
const onPool = new WeakMap<object, Kysely<Db>>();

/** PostgreSQL's dialect over a pg pool, each statement one `pool.query` (no transaction of its own). */
function poolDialect(open: () => Promise<Pool>): Dialect {
  let pool: Promise<Pool> | undefined;
  const connection = async (): Promise<DatabaseConnection> => {
    const ready = await (pool ??= open());
    return {
      async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
        const { command, rowCount, rows } = await ready.query<R & object>(query.sql, [...query.parameters]);
        const changed = command === 'INSERT' || command === 'UPDATE' || command === 'DELETE' || command === 'MERGE';
        return { rows, numAffectedRows: changed && rowCount !== null ? BigInt(rowCount) : undefined };
      },
      // eslint-disable-next-line require-yield
      async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
        throw new Error('Streaming reads are not used here: page through a Listing instead.');
      },
    };
  };
  const noTransactions = async () => {
    throw new Error('A transaction is opened with transaction(em, …) (src/db/orm.ts), not on the pool.');
  };
  const driver: Driver = {
    init: async () => {},
    acquireConnection: connection,
    beginTransaction: noTransactions,
    commitTransaction: noTransactions,
    rollbackTransaction: noTransactions,
    releaseConnection: async () => {},
    destroy: async () => {},
  };
  return {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => driver,
    createIntrospector: (kysely) => new PostgresIntrospector(kysely),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  };
}

/** An entity's fields as a row read through `db(em)`: its times as ISO text (see `Db`). */
export type Read<T> = { [K in keyof T]: TimeRead<T[K]> };

/** Hot-path statements compiled once: their text, prepared-statement name, and where each value goes. */
const compiledOnce = new Map<string, { text: string; name: string; slots: ({ value: number } | { constant: unknown })[] }>();

/**
 * A hot-path read built and compiled once per `key` and then run as a named prepared statement on
 * the pool, so neither Kysely (building and compiling a large query costs more CPU than running
 * it) nor PostgreSQL (parsing and planning, once per connection) repeats its work per call
 * (URL resolution, the caller's access to a space). `build` receives one placeholder per value of
 * `values` and must use each only as a bound value; `key` names everything else that shapes the
 * statement. Inside a transaction the query is built with the values and runs there as usual.
 */
export async function prepared<R>(
  em: Em,
  key: string,
  values: readonly string[],
  build: (values: readonly string[]) => Compilable<R> & { execute(): Promise<R[]> },
): Promise<R[]> {
  if (em.isInTransaction()) return build(values).execute();
  let statement = compiledOnce.get(key);
  if (!statement) {
    const placeholders = values.map((_, i) => `\u0000value ${i}\u0000`);
    const compiled = build(placeholders).compile();
    const slots = compiled.parameters.map((parameter) => {
      const at = typeof parameter === 'string' ? placeholders.indexOf(parameter) : -1;
      return at === -1 ? { constant: parameter } : { value: at };
    });
    const name = `q_${createHash('sha1').update(compiled.sql).digest('hex').slice(0, 24)}`;
    statement = { text: compiled.sql, name, slots };
    compiledOnce.set(key, statement);
  }
  const parameters = statement.slots.map((slot) => ('value' in slot ? values[slot.value] : slot.constant));
  const pool = await em.getConnection().getNativeClient();
  const result = await pool.query<R & object>({ name: statement.name, text: statement.text, values: parameters });
  return result.rows;
}

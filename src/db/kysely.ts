import type { ColumnType, InsertType, Kysely, SelectType, UpdateType } from 'kysely';
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

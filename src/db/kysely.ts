import type { Kysely } from 'kysely';
import type { InferKyselyDB } from '@mikro-orm/postgresql';
import type { Em } from './orm.ts';
import type { entities } from './schema.ts';

/**
 * The database as Kysely sees it, inferred from the entities: table names as the migrations create
 * them (`app_user`, `revision_page`), columns in snake_case, values as PostgreSQL's driver returns
 * them (`bigint` columns as strings, `jsonb` parsed, `text[]` as arrays). A column renamed in an
 * entity fails the typecheck of every query that names it.
 */
export type Db = InferKyselyDB<(typeof entities)[number]>;

/**
 * A typed query builder bound to `em`: inside `em.transactional(…)` every query runs in that
 * transaction, otherwise on the pool. This is how src/db runs anything the entity manager cannot
 * say simply (joins, aggregates, bulk writes, `on conflict`); SQL Kysely cannot express goes
 * through its `sql` template, named and commented where it is used.
 */
export function db(em: Em): Kysely<Db> {
  return em.getKysely<Db>();
}

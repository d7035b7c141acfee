import { MikroORM, type EntityManager } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { entities } from './schema.ts';
import { migrations } from './migrations/index.ts';

export type Orm = MikroORM;
export type Em = EntityManager;

export interface OrmOptions {
  databaseUrl: string;
  poolMax?: number;
  debug?: boolean;
  /** Where the ORM's own messages (such as migration progress) go; silent by default. */
  logger?: (message: string) => void;
}

export async function initOrm(options: OrmOptions): Promise<Orm> {
  return MikroORM.init({
    clientUrl: options.databaseUrl,
    entities,
    extensions: [Migrator],
    migrations: { migrationsList: migrations, transactional: true, allOrNothing: true, snapshot: false },
    pool: { min: 0, max: options.poolMax ?? 10 },
    debug: options.debug ?? false,
    logger: options.logger ?? (() => {}),
    discovery: { warnWhenNoEntities: false },
    // The schema belongs to the migrations; never let the ORM change it on its own.
    schemaGenerator: { disableForeignKeys: false },
    allowGlobalContext: false,
  });
}

/** Key of the PostgreSQL advisory lock held while migrating (any fixed number; "docs" in ASCII). */
const MIGRATION_LOCK = 0x646f6373;

/**
 * Applies every pending migration; returns the names that ran. Safe to run from several processes
 * at once (every API replica migrates at start): the migrations run in one transaction that first
 * takes a transaction-level advisory lock, so a second process waits for the first to commit, then
 * finds nothing left to do. The lock goes with the transaction, also when a process dies.
 */
export async function migrate(orm: Orm): Promise<string[]> {
  const ran = await orm.em.fork().transactional(async (em) => {
    await em.getConnection().execute('select pg_advisory_xact_lock(?)', [MIGRATION_LOCK], 'all', em.getTransactionContext());
    return orm.migrator.up({ transaction: em.getTransactionContext() });
  });
  return ran.map((m) => m.name);
}

import { MikroORM, type EntityManager } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { CompiledQuery, sql, type DatabaseConnection } from 'kysely';
import { entities } from './schema.ts';
import { migrations } from './migrations/index.ts';
import { countWrites } from './write-count.ts';
import { attachAudit, auditOf, recordAudit, transactionWrote } from './audit.ts';

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
    // Every scan of a table starts at its first page. PostgreSQL otherwise starts a large table's
    // sequential scan where the last one stopped (`synchronize_seqscans`), so a query that takes the
    // first rows matching without an order, as the search's window does (src/db/search.ts), would
    // take other rows from one request to the next, and pages of results would overlap. Set once per
    // connection with a statement rather than as a startup parameter, which connection poolers refuse.
    onCreateConnection: async (connection) => {
      await (connection as DatabaseConnection).executeQuery(CompiledQuery.raw('set synchronize_seqscans = off'));
    },
    driverOptions: {
      // Every statement this process completes that may have written counts as a write (write-count.ts).
      onPoolCreated: (pool: { on(event: 'connect', listener: (client: object) => void): unknown }) => pool.on('connect', countWrites),
    },
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
    await sql`select pg_advisory_xact_lock(${MIGRATION_LOCK})`.execute(em.getKysely());
    return orm.migrator.up({ transaction: em.getTransactionContext() });
  });
  return ran.map((m) => m.name);
}

/**
 * Runs `work` in a transaction on `em`: committed when it returns, rolled back when it throws. A
 * call inside another transaction joins it. Code outside src/db holds an `Em` only to hand it on:
 * this, `forkEm` and the functions of src/db/<area>.ts are how it uses one.
 *
 * When `em` carries an audit intent (a request's or a job's, src/db/audit.ts), the transaction
 * carries it too, and the outermost one records it before it commits if it has written anything
 * (once per request and action): the event commits with the change, or neither does.
 */
export async function transaction<T>(em: Em, work: (tx: Em) => Promise<T>): Promise<T> {
  const intent = auditOf(em);
  if (!intent) return em.transactional(work);
  if (em.isInTransaction()) {
    return em.transactional((tx) => {
      attachAudit(tx, intent);
      return work(tx);
    });
  }
  const recorded = intent.recordedId;
  try {
    return await em.transactional(async (tx) => {
      attachAudit(tx, intent);
      const result = await work(tx);
      if (!intent.recordedId) {
        // Changes the unit of work still holds are written first, so they count as written.
        await tx.flush();
        if (await transactionWrote(tx)) await recordAudit(tx, intent);
      }
      return result;
    });
  } catch (error) {
    // Rolled back: the event recorded in it is gone with it.
    intent.recordedId = recorded;
    throw error;
  }
}

/** A fresh entity manager for one unit of work (a request, an activity): its own identity map, no transaction. */
export function forkEm(orm: Orm): Em {
  return orm.em.fork();
}

/** Forgets the entities `em` has loaded, so the next read sees rows written since by SQL. */
export function forgetLoaded(em: Em): void {
  em.clear();
}

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

/** Applies every pending migration; returns the names that ran. */
export async function migrate(orm: Orm): Promise<string[]> {
  const ran = await orm.migrator.up();
  return ran.map((m) => m.name);
}

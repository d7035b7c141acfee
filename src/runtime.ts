import type { Logger } from 'pino';
import type { Config } from './config.ts';
import { initOrm, migrate, type Orm } from './db/orm.ts';
import { buildApp } from './api/app.ts';
import { connectTemporal, ensureSearchAttributes, waitForTemporal } from './temporal/client.ts';
import type { SharedServices } from './lib/shared-services.ts';

/** Starting the two processes of the service, shared by `npm start`, `npm run api` and `npm run worker`. */

export interface Started {
  stop(): Promise<void>;
}

export async function openDatabase(config: Config, log: Logger, options: { migrate: boolean }): Promise<Orm> {
  const orm = await initOrm({ databaseUrl: config.databaseUrl!, poolMax: config.databasePoolMax, logger: (message) => log.debug(message) });
  if (options.migrate) {
    const ran = await migrate(orm);
    if (ran.length) log.info({ migrations: ran }, 'database migrated');
  }
  return orm;
}

export async function startApi(config: Config, log: Logger, orm: Orm, services: SharedServices): Promise<Started & { url: string }> {
  await waitForTemporal(config.temporalAddress!);
  const { client, connection } = await connectTemporal({ address: config.temporalAddress!, namespace: config.temporalNamespace });
  await ensureSearchAttributes(connection, config.temporalNamespace);
  const app = await buildApp(
    { config, orm, temporal: client, ...services },
    { logger: log.child({ process: 'api' }), authCacheTtlMs: config.authCacheTtlMs },
  );
  const url = await app.listen({ host: config.host, port: config.port });
  return {
    url,
    stop: async () => {
      await app.close();
      await connection.close();
    },
  };
}

export async function startWorker(
  config: Config,
  log: Logger,
  orm: Orm,
  services: SharedServices,
): Promise<Started & { done: Promise<void> }> {
  await waitForTemporal(config.temporalAddress!);
  const { connection: admin } = await connectTemporal({ address: config.temporalAddress!, namespace: config.temporalNamespace });
  await ensureSearchAttributes(admin, config.temporalNamespace);
  await admin.close();
  // Loaded here, not at the top: the worker's modules (the workflow bundler, Chromium's driver, the
  // importers) stay out of an API-only process's memory.
  const [{ createWorker }, { closePdfPrinter }] = await Promise.all([import('./temporal/worker.ts'), import('./lib/pdf-printer.ts')]);
  const taskQueues = config.workerQueues.map((queue) => (queue === 'heavy' ? config.temporalHeavyTaskQueue : config.temporalTaskQueue));
  const { workers, connection, sandbox } = await createWorker({
    address: config.temporalAddress!,
    namespace: config.temporalNamespace,
    taskQueues,
    orm,
    config,
    services,
    logLevel: config.logLevel,
  });
  // The PDF printer's browser and the integration scripts' instances (if any were started) go with
  // the worker, so the process can exit.
  const done = Promise.all(workers.map((worker) => worker.run()))
    .then(() => undefined)
    .finally(() => Promise.all([connection.close(), closePdfPrinter(), sandbox.close()]));
  log.child({ process: 'worker' }).info({ taskQueues, namespace: config.temporalNamespace }, 'worker started');
  return {
    done,
    stop: async () => {
      for (const worker of workers) if (worker.getState() === 'RUNNING') worker.shutdown();
      await done;
    },
  };
}

/**
 * `npm start`: the whole service on one machine. Without DATABASE_URL it runs an embedded
 * PostgreSQL (data under DATA_DIR); without TEMPORAL_ADDRESS a Temporal dev server with its Web UI.
 * Then it migrates, starts the worker and the API, and prints where everything is. Ctrl-C stops all.
 */
import { resolve } from 'node:path';
import { configForProcess, redact } from './config.ts';
import { logger } from './lib/logger.ts';
import { onShutdown } from './lib/shutdown.ts';
import { startEmbeddedPostgres, startTemporalDevServer, type Running } from './lib/infra.ts';
import { openDatabase, startApi, startWorker, type Started } from './runtime.ts';
import { sharedServices } from './lib/shared-services.ts';

const config = configForProcess();
const log = logger(config.logLevel);
const stack: (Running | Started | { stop(): Promise<void> })[] = [];
let stopping = false;
async function stopAll() {
  stopping = true;
  for (const item of stack.reverse()) {
    try {
      await item.stop();
    } catch (error) {
      log.error({ err: error }, 'error while stopping');
    }
  }
}
onShutdown(log, async () => {
  await stopAll();
  process.exit(0);
});

try {
  let temporalUi: string | undefined;
  if (!config.databaseUrl) {
    const pg = await startEmbeddedPostgres(resolve(config.dataDir), config.embeddedPostgresPort);
    stack.push(pg);
    config.databaseUrl = pg.url;
    log.info({ dataDir: resolve(config.dataDir, 'postgres') }, 'embedded PostgreSQL started');
  }
  if (!config.temporalAddress) {
    const temporal = await startTemporalDevServer({
      cliPath: config.temporalCliPath,
      goPath: config.goPath,
      dataDir: resolve(config.dataDir),
      port: config.temporalDevPort,
      uiPort: config.temporalUiPort,
      namespace: config.temporalNamespace,
    });
    stack.push(temporal);
    config.temporalAddress = temporal.address;
    temporalUi = temporal.uiUrl;
    log.info({ address: temporal.address }, 'Temporal dev server started');
  }
  const orm = await openDatabase(config, log, { migrate: true });
  stack.push({ stop: () => orm.close() });
  // One blob store, secret box and signing key for the worker and the API of this process.
  const services = sharedServices(config);
  const worker = await startWorker(config, log, orm, services);
  stack.push(worker);
  const api = await startApi(config, log, orm, services);
  stack.push(api);
  worker.done.catch((error) => {
    if (stopping) return;
    log.fatal({ err: error }, 'worker stopped unexpectedly');
    void stopAll().then(() => process.exit(1));
  });
  const lines = [
    '',
    `  API          ${config.publicUrl}/v1`,
    `  API docs     ${config.publicUrl}/docs`,
    `  Temporal UI  ${temporalUi ?? '(external Temporal at ' + config.temporalAddress + ')'}`,
    `  Database     ${redact(config.databaseUrl)}`,
    '',
    '  First token: npm run -s admin -- bootstrap --org "My org" --email you@example.com',
    '',
  ];
  process.stderr.write(lines.join('\n') + '\n');
} catch (error) {
  log.fatal({ err: error }, 'start-up failed');
  await stopAll();
  process.exit(1);
}

/** `npm run worker`: the Temporal worker process (production shape). Needs DATABASE_URL and TEMPORAL_ADDRESS. */
import { loadConfig, ConfigError } from './config.ts';
import { logger } from './lib/logger.ts';
import { onShutdown } from './lib/shutdown.ts';
import { openDatabase, startWorker } from './runtime.ts';

let config;
try {
  config = loadConfig();
} catch (error) {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(2);
}
if (!config.databaseUrl || !config.temporalAddress) {
  console.error('npm run worker needs DATABASE_URL and TEMPORAL_ADDRESS; `npm start` runs everything with embedded defaults.');
  process.exit(2);
}
const log = logger(config.logLevel);
const orm = await openDatabase(config, log, { migrate: false });
const worker = await startWorker(config, log, orm);
onShutdown(log, () => worker.stop());
await worker.done;
await orm.close();
log.info('worker stopped');

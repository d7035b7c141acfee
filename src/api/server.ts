/** `npm run api`: the HTTP API process (production shape). Needs DATABASE_URL and TEMPORAL_ADDRESS. */
import { loadConfig, ConfigError } from '../config.ts';
import { logger } from '../lib/logger.ts';
import { onShutdown } from '../lib/shutdown.ts';
import { openDatabase, startApi } from '../runtime.ts';

let config;
try {
  config = loadConfig();
} catch (error) {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(2);
}
if (!config.databaseUrl || !config.temporalAddress) {
  console.error('npm run api needs DATABASE_URL and TEMPORAL_ADDRESS; `npm start` runs everything with embedded defaults.');
  process.exit(2);
}
const log = logger(config.logLevel);
const orm = await openDatabase(config, log, { migrate: true });
const api = await startApi(config, log, orm);
log.info({ url: api.url, docs: `${config.publicUrl}/docs` }, 'API listening');
onShutdown(log, async () => {
  await api.stop();
  await orm.close();
});

/** `npm run api`: the HTTP API process (production shape). Needs DATABASE_URL and TEMPORAL_ADDRESS. */
import { configForProcess } from '../config.ts';
import { logger } from '../lib/logger.ts';
import { onShutdown } from '../lib/shutdown.ts';
import { openDatabase, startApi } from '../runtime.ts';
import { sharedServices } from '../lib/shared-services.ts';

const config = configForProcess('npm run api');
const log = logger(config.logLevel);
const orm = await openDatabase(config, log, { migrate: true });
const api = await startApi(config, log, orm, sharedServices(config));
log.info({ url: api.url, docs: `${config.publicUrl}/docs` }, 'API listening');
onShutdown(log, async () => {
  await api.stop();
  await orm.close();
});

/** `npm run worker`: the Temporal worker process (production shape). Needs DATABASE_URL and TEMPORAL_ADDRESS. */
import { configForProcess } from './config.ts';
import { logger } from './lib/logger.ts';
import { onShutdown } from './lib/shutdown.ts';
import { openDatabase, startWorker } from './runtime.ts';
import { sharedServices } from './lib/shared-services.ts';

const config = configForProcess('npm run worker');
const log = logger(config.logLevel);
const orm = await openDatabase(config, log, { migrate: false });
const worker = await startWorker(config, log, orm, sharedServices(config));
onShutdown(log, () => worker.stop());
await worker.done;
await orm.close();
log.info('worker stopped');

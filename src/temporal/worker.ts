import { NativeConnection, Worker, Runtime, makeTelemetryFilterString, DefaultLogger, bundleWorkflowCode } from '@temporalio/worker';
import { fileURLToPath } from 'node:url';
import type { Config } from '../config.ts';
import type { Orm } from '../db/orm.ts';
import { createActivities } from '../activities/index.ts';
import type { SharedServices } from '../lib/shared-services.ts';
import { upsertBlobCollectionSchedule } from './blob-collection.ts';
import { connectTemporal } from './client.ts';

export interface WorkerOptions {
  address: string;
  namespace: string;
  /** The queues to poll: one Temporal worker each, sharing the connection, the workflow bundle and the activities. */
  taskQueues: string[];
  orm: Orm;
  /** Configuration the activities need (fetch policy, Chromium, public URL, limits). */
  config: Config;
  /** The process's blob store and secret box (lib/shared-services.ts). */
  services: SharedServices;
  logLevel?: string;
}

let runtimeInstalled = false;

/** Creates a worker for every workflow and activity of the service per queue; `run()` them, `shutdown()` to stop. */
export async function createWorker(options: WorkerOptions): Promise<{ workers: Worker[]; connection: NativeConnection }> {
  if (!runtimeInstalled) {
    runtimeInstalled = true;
    const level = options.logLevel === 'debug' || options.logLevel === 'trace' ? 'DEBUG' : 'WARN';
    Runtime.install({
      logger: new DefaultLogger(level === 'DEBUG' ? 'DEBUG' : 'WARN'),
      telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: level }), forward: {} } },
      shutdownSignals: [],
    });
  }
  const connection = await NativeConnection.connect({ address: options.address });
  const workflowBundle = await bundleWorkflowCode({ workflowsPath: fileURLToPath(new URL('../workflows/index.ts', import.meta.url)) });
  const activities = createActivities({ orm: options.orm, config: options.config, services: options.services });
  const workers = await Promise.all(
    options.taskQueues.map((taskQueue) =>
      Worker.create({ connection, namespace: options.namespace, taskQueue, workflowBundle, activities }),
    ),
  );
  // The worker of the main queue keeps the blob collection's schedule as the configuration says (0: leaves it be).
  if (options.taskQueues.includes(options.config.temporalTaskQueue) && options.config.blobCollectEveryMs > 0) {
    const { client, connection: scheduling } = await connectTemporal({ address: options.address, namespace: options.namespace });
    try {
      await upsertBlobCollectionSchedule(client, options.config.temporalTaskQueue, options.config.blobCollectEveryMs);
    } finally {
      await scheduling.close();
    }
  }
  return { workers, connection };
}

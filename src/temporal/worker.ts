import { NativeConnection, Worker, Runtime, makeTelemetryFilterString, DefaultLogger, bundleWorkflowCode } from '@temporalio/worker';
import { fileURLToPath } from 'node:url';
import type { Config } from '../config.ts';
import type { Orm } from '../db/orm.ts';
import { createActivities, workerSandbox } from '../activities/index.ts';
import { EventLogTap } from '../activities/integration-events.ts';
import type { IntegrationSandbox } from '../lib/integration-sandbox.ts';
import type { SharedServices } from '../lib/shared-services.ts';
import { upsertBlobCollectionSchedule } from './blob-collection.ts';
import { upsertIntegrationEventsSweepSchedule } from './integration-events.ts';
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

/**
 * Creates a worker for every workflow and activity of the service per queue; `run()` them,
 * `shutdown()` to stop, then close the `sandbox` integration scripts ran in.
 */
export async function createWorker(
  options: WorkerOptions,
): Promise<{ workers: Worker[]; connection: NativeConnection; sandbox: IntegrationSandbox }> {
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
  const logs = new EventLogTap();
  const sandbox = workerSandbox(options.config, logs);
  const activities = createActivities({ orm: options.orm, config: options.config, services: options.services, sandbox, logs });
  const workers = await Promise.all(
    options.taskQueues.map((taskQueue) =>
      Worker.create({ connection, namespace: options.namespace, taskQueue, workflowBundle, activities }),
    ),
  );
  // The worker of the main queue keeps the blob collection's and the integration events sweep's
  // schedules as the configuration says (0: leaves each be).
  const { blobCollectEveryMs, integrations, temporalTaskQueue } = options.config;
  if (options.taskQueues.includes(temporalTaskQueue) && (blobCollectEveryMs > 0 || integrations.eventsSweepEveryMs > 0)) {
    const { client, connection: scheduling } = await connectTemporal({ address: options.address, namespace: options.namespace });
    try {
      if (blobCollectEveryMs > 0) await upsertBlobCollectionSchedule(client, temporalTaskQueue, blobCollectEveryMs);
      if (integrations.eventsSweepEveryMs > 0)
        await upsertIntegrationEventsSweepSchedule(client, temporalTaskQueue, integrations.eventsSweepEveryMs);
    } finally {
      await scheduling.close();
    }
  }
  return { workers, connection, sandbox };
}

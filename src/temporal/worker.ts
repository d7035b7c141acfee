import { NativeConnection, Worker, Runtime, makeTelemetryFilterString, DefaultLogger } from '@temporalio/worker';
import { fileURLToPath } from 'node:url';
import type { Config } from '../config.ts';
import type { Orm } from '../db/orm.ts';
import { createActivities } from '../activities/index.ts';
import type { SharedServices } from '../lib/shared-services.ts';

export interface WorkerOptions {
  address: string;
  namespace: string;
  taskQueue: string;
  orm: Orm;
  /** Configuration the activities need (fetch policy, Chromium, public URL, limits). */
  config: Config;
  /** The process's blob store and secret box (lib/shared-services.ts). */
  services: SharedServices;
  logLevel?: string;
}

let runtimeInstalled = false;

/** Creates a worker for every workflow and activity of the service; `run()` it, `shutdown()` to stop. */
export async function createWorker(options: WorkerOptions): Promise<{ worker: Worker; connection: NativeConnection }> {
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
  const worker = await Worker.create({
    connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    workflowsPath: fileURLToPath(new URL('../workflows/index.ts', import.meta.url)),
    activities: createActivities({ orm: options.orm, config: options.config, services: options.services }),
  });
  return { worker, connection };
}

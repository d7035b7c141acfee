import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker, bundleWorkflowCode, makeTelemetryFilterString } from '@temporalio/worker';
import { ensureSearchAttributes } from '../../src/temporal/client.ts';
import { heavyTaskQueue } from '../../src/domain/task-queues.ts';

/**
 * One workflow of src/workflows run by an in-process worker against the real Temporal server
 * that `npm test` provides, with activities the test stubs: the workflow's logic without the
 * HTTP stack or the database. Each test file uses a task queue of its own.
 */
export interface WorkflowWorker {
  client: Client;
  taskQueue: string;
  /** A workflow id no other run of the suite uses. */
  workflowId(name: string): string;
  stop(): Promise<void>;
}

let quiet = false;

/**
 * Keeps the SDK's own logging to errors: the tests fail activities on purpose, and each failed
 * attempt would print a warning (once per process; a second install is refused by the SDK).
 */
function quietRuntime(): void {
  if (quiet) return;
  quiet = true;
  try {
    Runtime.install({
      logger: new DefaultLogger('ERROR'),
      telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'ERROR' }), forward: {} } },
      shutdownSignals: [],
    });
  } catch {
    // installed already by an earlier test file in this process
  }
}

/**
 * Bundles `src/workflows/<file>` and runs a worker for it with `activities` on a new task queue
 * named after `name`. `stop()` shuts the worker down (after the activities running have ended).
 */
export async function startWorkflowWorker(name: string, file: string, activities: object): Promise<WorkflowWorker> {
  const address = process.env.TEMPORAL_ADDRESS;
  if (!address) throw new Error('Run the suite with `npm test`: it provides Temporal.');
  quietRuntime();
  const run = `${Date.now().toString(36)}-${process.pid}`;
  const taskQueue = `wf-${name}-${run}`;
  const workflowBundle = await bundleWorkflowCode({
    workflowsPath: fileURLToPath(new URL(`../../src/workflows/${file}`, import.meta.url)),
    logger: new DefaultLogger('WARN'),
  });
  const nativeConnection = await NativeConnection.connect({ address });
  // The queue and the heavy jobs' queue beside it (src/domain/task-queues.ts), as the service's workers poll them.
  const workers = await Promise.all(
    [taskQueue, heavyTaskQueue(taskQueue)].map((queue) =>
      Worker.create({ connection: nativeConnection, namespace: 'default', taskQueue: queue, workflowBundle, activities }),
    ),
  );
  const running = Promise.all(workers.map((worker) => worker.run()));
  const connection = await Connection.connect({ address });
  await ensureSearchAttributes(connection, 'default');
  const client = new Client({ connection, namespace: 'default' });
  let counter = 0;
  return {
    client,
    taskQueue,
    workflowId: (what) => `test-${name}/${what}/${run}-${++counter}`,
    stop: async () => {
      for (const worker of workers) worker.shutdown();
      await running;
      await Promise.all([connection.close(), nativeConnection.close()]);
    },
  };
}

/** A promise the test settles by hand, to hold a stubbed activity at a chosen point. */
export function gate<T = void>() {
  let open!: (value: T) => void;
  const opened = new Promise<T>((resolve) => (open = resolve));
  return { opened, open };
}

/**
 * A client on `client`'s connection that records the run each workflow start reached, as Temporal
 * answered it (a start that joins a running workflow answers that run's id). `started(n)` settles
 * once n starts have been answered: a test that holds a run can let it end only after a later
 * request has reached it (one arriving after the run ended would rightly start another).
 */
export function recordingClient(client: Client) {
  const runs: string[] = [];
  let waiting: { count: number; resolve: () => void }[] = [];
  const recording = new Client({
    connection: client.connection,
    namespace: client.options.namespace,
    interceptors: {
      workflow: [
        {
          async startWithDetails(input, next) {
            const started = await next(input);
            runs.push(started.runId);
            for (const w of waiting) if (runs.length >= w.count) w.resolve();
            waiting = waiting.filter((w) => runs.length < w.count);
            return started;
          },
        },
      ],
    },
  });
  const started = (count: number) =>
    runs.length >= count ? Promise.resolve() : new Promise<void>((resolve) => waiting.push({ count, resolve }));
  return { client: recording, runs, started };
}

/**
 * `npm test [-- jest args]`: the whole suite against a real PostgreSQL and a real Temporal server.
 *
 * - PostgreSQL: DATABASE_URL's server if set (a fresh database is created for the run and dropped
 *   after), otherwise an embedded PostgreSQL in a temporary directory.
 * - Temporal: TEMPORAL_ADDRESS if set, otherwise a dev server started from the `temporal` CLI.
 * - One worker process runs on a task queue of its own for the run; Jest then runs the tests.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createScratchDatabase, freePort, startEmbeddedPostgres, startTemporalDevServer, type Running } from '../src/lib/infra.ts';
import { initOrm, migrate } from '../src/db/orm.ts';

const cleanups: (() => Promise<unknown> | unknown)[] = [];
async function cleanup() {
  for (const step of cleanups.reverse()) {
    try {
      await step();
    } catch (error) {
      console.error('cleanup:', (error as Error).message);
    }
  }
}
process.on('SIGINT', () => void cleanup().then(() => process.exit(130)));
process.on('SIGTERM', () => void cleanup().then(() => process.exit(143)));

const runId = `${Date.now().toString(36)}${process.pid}`;
const scratch = mkdtempSync(join(tmpdir(), 'docs-test-'));
// As root, an embedded PostgreSQL runs as the `postgres` user, which must be able to enter it.
if (process.getuid?.() === 0) chmodSync(scratch, 0o755);
cleanups.push(() => rmSync(scratch, { recursive: true, force: true }));

async function database(): Promise<string> {
  const base = process.env.DATABASE_URL;
  if (!base) {
    const embedded: Running & { url: string } = await startEmbeddedPostgres(join(scratch, 'pg'), await freePort());
    cleanups.push(() => embedded.stop());
    return embedded.url;
  }
  const scratchDb = await createScratchDatabase(base, `docs_test_${runId}`);
  cleanups.push(() => scratchDb.stop());
  return scratchDb.url;
}

async function temporal(): Promise<string> {
  if (process.env.TEMPORAL_ADDRESS) return process.env.TEMPORAL_ADDRESS;
  const server = await startTemporalDevServer({ cliPath: process.env.TEMPORAL_CLI_PATH, goPath: process.env.GOPATH, namespace: 'default' });
  cleanups.push(() => server.stop());
  return server.address;
}

function startProcess(args: string[], env: NodeJS.ProcessEnv, logFile: string): ChildProcess {
  const out = openSync(logFile, 'a');
  return spawn(process.execPath, args, { env, stdio: ['ignore', out, out] });
}

let exitCode: number;
try {
  const [databaseUrl, temporalAddress] = await Promise.all([database(), temporal()]);
  const orm = await initOrm({ databaseUrl, poolMax: 2 });
  await migrate(orm);
  await orm.close();

  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: temporalAddress,
    TEMPORAL_NAMESPACE: 'default',
    TEMPORAL_TASK_QUEUE: `test-${runId}`,
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    TEST_SCRATCH_DIR: scratch,
    // Fixture servers of the tests listen on 127.0.0.1; the worker fetches from them through the allow list.
    FETCH_ALLOW_HOSTS: process.env.FETCH_ALLOW_HOSTS ?? '127.0.0.1',
    FETCH_TIMEOUT: process.env.FETCH_TIMEOUT ?? '2s',
    // The workers of a run (this one and those tests start) leave no blob-collection or integration-events sweep schedule behind on a shared server.
    BLOB_COLLECT_EVERY: process.env.BLOB_COLLECT_EVERY ?? '0',
    INTEGRATION_EVENTS_SWEEP_EVERY: process.env.INTEGRATION_EVENTS_SWEEP_EVERY ?? '0',
  };
  const workerLog = join(scratch, 'worker.log');
  const worker = startProcess(['src/worker.ts'], env, workerLog);
  cleanups.push(async () => {
    if (worker.exitCode === null) {
      worker.kill('SIGTERM');
      await new Promise((r) => worker.once('exit', r));
    }
  });

  const results = join(scratch, 'results.json');
  const jest = spawn(
    process.execPath,
    [
      '--experimental-vm-modules',
      '--no-warnings=ExperimentalWarning',
      'node_modules/jest/bin/jest.js',
      '--json',
      `--outputFile=${results}`,
      ...process.argv.slice(2),
    ],
    { env, stdio: 'inherit' },
  );
  exitCode = await new Promise<number>((done) => jest.once('exit', (code) => done(code ?? 1)));
  try {
    const summary = JSON.parse(readFileSync(results, 'utf8'));
    const skipped = summary.numPendingTests + summary.numTodoTests;
    console.log(`\njest: ${summary.numPassedTests} passed, ${summary.numFailedTests} failed${skipped ? `, ${skipped} skipped` : ''}`);
  } catch {
    // no summary when Jest could not start; its own output says why
  }
  if (exitCode !== 0) console.error(`(worker log of this run: ${workerLog}, removed at exit; set KEEP_TEST_LOGS=1 to keep it)`);
  if (process.env.KEEP_TEST_LOGS) cleanups.splice(0, 1);
} catch (error) {
  console.error(error);
  exitCode = 1;
}
await cleanup();
process.exit(exitCode);

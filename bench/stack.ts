/**
 * One benchmark stack for `npm run bench`: a fresh database (DATABASE_URL's server with a scratch
 * database dropped at the end, otherwise an embedded PostgreSQL), Temporal (TEMPORAL_ADDRESS or a
 * dev server), migrations, an organization with an admin token, the API and the bare Fastify
 * baseline in child processes of their own (bench/server.ts) and a worker child on its own task queue.
 */
import { spawn } from 'node:child_process';
import { Client, Connection } from '@temporalio/client';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createScratchDatabase, freePort, portOpen, startEmbeddedPostgres, startTemporalDevServer } from '../src/lib/infra.ts';
import { initOrm, migrate, type Orm } from '../src/db/orm.ts';
import { createOrganization, findOrCreateUser, issueToken, setMembership } from '../src/db/accounts.ts';
import { startServerChild, timedClient, type cleanupStack, type ServerChild } from './lib.ts';

export interface Stack {
  runId: string;
  temporalAddress: string;
  /** The task queue the stack's worker polls. */
  taskQueue: string;
  databaseUrl: string;
  /** A pool for seeding and baselines (the bench process's own). */
  orm: Orm;
  orgId: string;
  token: string;
  api: ServerChild;
  bare: ServerChild;
  /** Calls the API with the admin token; throws on a status of 300 or more. */
  call(method: string, path: string, body?: unknown): Promise<any>;
}

export async function startStack(cleanup: ReturnType<typeof cleanupStack>, log: (line: string) => void): Promise<Stack> {
  const env = process.env;
  const runId = `${Date.now().toString(36)}${process.pid}`;
  const scratch = mkdtempSync(join(tmpdir(), 'docs-bench-'));
  // As root, the embedded PostgreSQL runs as a `postgres` user that must be able to enter this directory.
  if (process.getuid?.() === 0) chmodSync(scratch, 0o755);
  cleanup.push(() => rmSync(scratch, { recursive: true, force: true }));

  let databaseUrl: string;
  if (env.DATABASE_URL) {
    const db = await createScratchDatabase(env.DATABASE_URL, `docs_bench_${runId}`);
    cleanup.push(() => db.stop());
    databaseUrl = db.url;
    log(`infra: database docs_bench_${runId} on DATABASE_URL's server`);
  } else {
    const port = await freePort();
    const embedded = await startEmbeddedPostgres(join(scratch, 'pg'), port);
    cleanup.push(async () => (await portOpen(port)) && embedded.stop());
    databaseUrl = embedded.url;
    log('infra: embedded PostgreSQL');
  }
  let temporalAddress = env.TEMPORAL_ADDRESS;
  if (!temporalAddress) {
    const server = await startTemporalDevServer({ cliPath: env.TEMPORAL_CLI_PATH, namespace: 'default' });
    cleanup.push(() => server.stop());
    temporalAddress = server.address;
  }
  log(`infra: Temporal at ${temporalAddress}`);

  const orm = await initOrm({ databaseUrl, poolMax: 4 });
  cleanup.push(() => orm.close());
  await migrate(orm);
  const em = orm.em.fork();
  const org = await createOrganization(em, 'Benchmark org');
  const user = await findOrCreateUser(em, `bench-${runId}@example.com`, 'Bench admin');
  await setMembership(em, org.id, user.id, 'admin');
  const { token } = await issueToken(em, user.id, 'bench');

  const childEnv: NodeJS.ProcessEnv = {
    ...env,
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: temporalAddress,
    TEMPORAL_NAMESPACE: 'default',
    TEMPORAL_TASK_QUEUE: `bench-${runId}`,
    BLOB_DIR: join(scratch, 'blobs'),
    PUBLIC_URL: env.PUBLIC_URL || 'http://docs.bench',
    SECRETS_KEY: env.SECRETS_KEY || Buffer.alloc(32, 1).toString('base64'),
    LOG_LEVEL: 'warn',
    // The Git Sync rows import from a repository server on 127.0.0.1.
    FETCH_ALLOW_HOSTS: '127.0.0.1',
    // The limiter stays on the request path, with a ceiling load generators do not reach.
    RATE_LIMIT_MAX: '10000000',
    RATE_LIMIT_READER_MAX: '10000000',
  };
  const worker = spawn(process.execPath, ['--import', './scripts/check-node.js', 'src/worker.ts'], { env: childEnv, stdio: 'ignore' });
  cleanup.push(async () => {
    if (worker.exitCode !== null || worker.signalCode !== null) return;
    worker.kill('SIGTERM');
    await new Promise((r) => worker.once('exit', r));
  });
  const api = await startServerChild('api', childEnv);
  cleanup.push(() => api.stop());
  const bare = await startServerChild('bare', childEnv);
  cleanup.push(() => bare.stop());
  // Last resort, whatever way this process exits: no child left behind.
  process.on('exit', () => {
    for (const child of [worker, api.child, bare.child]) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });

  const client = timedClient(api.url, 4);
  cleanup.push(() => client.close());
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await client.request(
      method as Parameters<typeof client.request>[0],
      path,
      { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body === undefined ? undefined : JSON.stringify(body),
    );
    let json: any;
    try {
      json = res.body.length ? JSON.parse(res.body.toString('utf8')) : undefined;
    } catch {
      json = undefined;
    }
    if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(json)}`);
    return json;
  };
  return { runId, temporalAddress, taskQueue: childEnv.TEMPORAL_TASK_QUEUE!, databaseUrl, orm, orgId: org.id, token, api, bare, call };
}

/** The stack's jobs at work: running workflows of its task queue with an activity or a workflow task pending, by type. */
async function busyJobs(client: Client, taskQueue: string): Promise<{ busy: Map<string, number>; histories: Map<string, number> }> {
  const busy = new Map<string, number>();
  const histories = new Map<string, number>();
  for await (const run of client.workflow.list({ query: `TaskQueue = "${taskQueue}" AND ExecutionStatus = "Running"` })) {
    const { raw } = await client.workflow.getHandle(run.workflowId, run.runId).describe();
    histories.set(`${run.workflowId}/${run.runId}`, Number(raw.workflowExecutionInfo?.historyLength ?? 0));
    if ((raw.pendingActivities?.length ?? 0) > 0 || raw.pendingWorkflowTask) busy.set(run.type, (busy.get(run.type) ?? 0) + 1);
  }
  return { busy, histories };
}

/**
 * Waits until the stack's worker has nothing left to do (at most `maxMs`): jobs a row started and
 * did not wait for (a merge's search index, the imports behind a row of import requests) would
 * otherwise run during the next row and be measured as its cost. Idle means two looks a second
 * apart (longer than any short pause a job takes between its steps) that find no activity or
 * workflow task pending and no running workflow's history grown. Returns what it waited for.
 */
export async function waitForIdleJobs(stack: Stack, maxMs = 5 * 60_000): Promise<string> {
  const connection = await Connection.connect({ address: stack.temporalAddress });
  try {
    const client = new Client({ connection, namespace: 'default' });
    const started = Date.now();
    const seen = new Map<string, number>();
    let previous = await busyJobs(client, stack.taskQueue);
    for (const [type, n] of previous.busy) seen.set(type, Math.max(seen.get(type) ?? 0, n));
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const now = await busyJobs(client, stack.taskQueue);
      for (const [type, n] of now.busy) seen.set(type, Math.max(seen.get(type) ?? 0, n));
      const grown = [...now.histories].some(([id, length]) => previous.histories.get(id) !== length);
      if ((previous.busy.size === 0 && now.busy.size === 0 && !grown) || Date.now() - started > maxMs) {
        const what = [...seen].map(([type, n]) => `${n} ${type}`).join(', ');
        const idle = now.busy.size === 0 && !grown ? 'idle' : `still busy after ${Math.round(maxMs / 1000)} s`;
        return `${idle} after ${((Date.now() - started) / 1000).toFixed(1)} s${what ? ` (busy at most: ${what})` : ''}`;
      }
      previous = now;
    }
  } finally {
    await connection.close();
  }
}

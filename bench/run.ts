/**
 * `npm run bench:api [-- --duration 10s --warmup 2s --connections 32 --rounds 2 --spaces 1]`: requests
 * per second of authenticated `GET /v1/spaces/{spaceId}` on the real API, against a baseline measured
 * in the same run (a bare Fastify server doing the same single indexed query through a `pg.Pool`).
 * With `--spaces N` (N > 1), both targets walk N spaces, a different one each request: with more
 * spaces than the API keeps answers for (about 800), every answer is read afresh.
 *
 * Not part of the test suite. Infrastructure is provisioned like `npm test` does it:
 * - PostgreSQL: DATABASE_URL's server with a fresh database `docs_bench_<id>` (dropped at the end),
 *   otherwise an embedded PostgreSQL in a temporary directory;
 * - Temporal: TEMPORAL_ADDRESS if set, otherwise a dev server started (and stopped) for the run.
 *
 * Both targets run in child processes of their own (bench/server.ts) on 127.0.0.1; this process
 * is the load generator. Rounds alternate (baseline, api, baseline, api, ...) and each target's
 * median rps is reported, with p50/p99 latency and the CPU time per request of the server process
 * and of its database backends (the latter only when PostgreSQL runs on this machine).
 * Every response must be 200: the run stops at the first one that is not.
 * Options: flags or BENCH_DURATION, BENCH_WARMUP, BENCH_CONNECTIONS, BENCH_ROUNDS; BENCH_POOL_MAX
 * sets both servers' database pool size; AUTH_CACHE_TTL is passed to the API as usual;
 * BENCH_CPU_PROF=<dir> makes both servers write V8 CPU profiles there.
 * The ratio is reported, not asserted: the exit code is 0 unless the run itself fails.
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort, portOpen, startEmbeddedPostgres, startTemporalDevServer } from '../src/lib/infra.ts';
import { initOrm, migrate } from '../src/db/orm.ts';
import { createOrganization, findOrCreateUser, issueToken, setMembership } from '../src/db/accounts.ts';
import {
  cleanupStack,
  concat,
  databaseCpu,
  databaseCpuDelta,
  median,
  percentile,
  readOptions,
  runLoad,
  startServerChild,
  type RoundResult,
  type ServerChild,
} from './lib.ts';

const TARGET_RATIO = 0.85;
const options = readOptions();
const cleanup = cleanupStack();
const log = (line: string) => console.log(line);

const interrupted = new AbortController();
const signals = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 } as const;
const onSignal = (signal: NodeJS.Signals) => {
  if (interrupted.signal.aborted) return;
  console.error(`bench: ${signal}, stopping and cleaning up`);
  interrupted.abort();
  void cleanup.run().then(() => process.exit(signals[signal as keyof typeof signals]));
};
for (const signal of Object.keys(signals)) process.on(signal, onSignal);
/**
 * The embedded PostgreSQL package installs signal handlers of its own that stop PostgreSQL and
 * exit at once, which would cut the ordered cleanup short (servers first, then Temporal, then the
 * database); the cleanup below stops PostgreSQL itself, so only this process's handler stays.
 */
function keepOnlyOwnSignalHandlers() {
  for (const signal of Object.keys(signals)) {
    for (const listener of process.listeners(signal as NodeJS.Signals)) {
      if (listener !== onSignal) process.off(signal, listener);
    }
  }
}

// Self-stopping even if something hangs: the whole run has a hard deadline.
const perRoundMs = options.warmupMs + options.durationMs + 15_000;
const deadlineMs = 5 * 60_000 + 2 * options.rounds * perRoundMs;
const watchdog = setTimeout(() => {
  console.error(`bench: no result after ${Math.round(deadlineMs / 1000)} s, giving up`);
  void cleanup.run().then(() => process.exit(1));
}, deadlineMs);
watchdog.unref();

const runId = `${Date.now().toString(36)}${process.pid}`;
const scratch = mkdtempSync(join(tmpdir(), 'docs-bench-'));
// As root, the embedded PostgreSQL runs as a `postgres` user that must be able to enter this directory.
if (process.getuid?.() === 0) chmodSync(scratch, 0o755);
cleanup.push(() => rmSync(scratch, { recursive: true, force: true }));
// Last resort, whatever way this process exits: no server child and no scratch directory left behind.
const children: ServerChild[] = [];
process.on('exit', () => {
  for (const { child } of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  rmSync(scratch, { recursive: true, force: true });
});

async function database(): Promise<{ url: string; kind: string }> {
  const base = process.env.DATABASE_URL;
  if (!base) {
    const port = await freePort();
    const embedded = await startEmbeddedPostgres(join(scratch, 'pg'), port);
    keepOnlyOwnSignalHandlers();
    // Skipped when PostgreSQL is already gone (a Ctrl-C in a terminal reaches it directly): stop() would wait forever.
    cleanup.push(async () => (await portOpen(port)) && embedded.stop());
    return { url: embedded.url, kind: 'embedded PostgreSQL' };
  }
  const name = `docs_bench_${runId}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  cleanup.push(async () => {
    const c = new pg.Client({ connectionString: base });
    await c.connect();
    await c.query(`drop database if exists ${name} with (force)`);
    await c.end();
  });
  const url = new URL(base);
  url.pathname = `/${name}`;
  return { url: url.toString(), kind: `database ${name} on DATABASE_URL's server` };
}

async function temporal(): Promise<{ address: string; kind: string }> {
  if (process.env.TEMPORAL_ADDRESS) return { address: process.env.TEMPORAL_ADDRESS, kind: 'TEMPORAL_ADDRESS' };
  const server = await startTemporalDevServer({ cliPath: process.env.TEMPORAL_CLI_PATH, namespace: 'default' });
  cleanup.push(() => server.stop());
  return { address: server.address, kind: 'dev server' };
}

async function fetchJson(url: string, init: RequestInit = {}): Promise<{ status: number; body: any }> {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(15_000) });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: res.status, body };
}

const fmt = (n: number, digits = 2) => (Number.isFinite(n) ? n.toFixed(digits) : '-');

let exitCode: number;
try {
  // Both are awaited even when one fails, so whatever did start is registered for cleanup.
  const [dbResult, tmpResult] = await Promise.allSettled([database(), temporal()]);
  if (dbResult.status === 'rejected') throw dbResult.reason;
  if (tmpResult.status === 'rejected') throw tmpResult.reason;
  const [db, tmp] = [dbResult.value, tmpResult.value];
  log(`infra: ${db.kind}; Temporal ${tmp.kind} at ${tmp.address}`);

  const orm = await initOrm({ databaseUrl: db.url, poolMax: 2 });
  let orgId: string;
  let token: string;
  try {
    await migrate(orm);
    const em = orm.em.fork();
    const org = await createOrganization(em, 'Benchmark org');
    const user = await findOrCreateUser(em, `bench-admin-${runId}@example.com`, 'Bench admin');
    await setMembership(em, org.id, user.id, 'admin');
    orgId = org.id;
    token = (await issueToken(em, user.id, 'bench')).token;
  } finally {
    await orm.close();
  }

  const childEnv: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: db.url,
    TEMPORAL_ADDRESS: tmp.address,
    TEMPORAL_NAMESPACE: 'default',
    TEMPORAL_TASK_QUEUE: `bench-${runId}`,
    // The rate limiter stays in the path, as in production, with a ceiling the load never reaches.
    RATE_LIMIT_MAX: process.env.RATE_LIMIT_MAX ?? '10000000',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
  };
  const api = await startServerChild('api', childEnv);
  children.push(api);
  cleanup.push(() => api.stop());
  const bare = await startServerChild('bare', childEnv);
  children.push(bare);
  cleanup.push(() => bare.stop());

  const auth = { authorization: `Bearer ${token}` };
  const createSpace = async (title: string): Promise<string> => {
    const created = await fetchJson(`${api.url}/v1/orgs/${orgId}/spaces`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ title }),
    });
    if (created.status !== 201) throw new Error(`creating a space answered ${created.status}: ${JSON.stringify(created.body)}`);
    return created.body.id;
  };
  const spaceIds: string[] = [];
  for (let i = 0; i < options.spaces; i += 20) {
    const count = Math.min(20, options.spaces - i);
    spaceIds.push(...(await Promise.all(Array.from({ length: count }, (_, j) => createSpace(`Benchmark space ${i + j}`)))));
  }
  const spaceId = spaceIds[0];

  // Both targets must answer 200 with the first space before any load.
  const apiPath = `/v1/spaces/${spaceId}`;
  const barePath = `/bare/spaces/${spaceId}`;
  const [apiCheck, bareCheck] = await Promise.all([
    fetchJson(`${api.url}${apiPath}`, { headers: auth }),
    fetchJson(`${bare.url}${barePath}`),
  ]);
  if (apiCheck.status !== 200 || apiCheck.body?.id !== spaceId)
    throw new Error(`API check answered ${apiCheck.status}: ${JSON.stringify(apiCheck.body)}`);
  if (bareCheck.status !== 200 || bareCheck.body?.id !== spaceId)
    throw new Error(`baseline check answered ${bareCheck.status}: ${JSON.stringify(bareCheck.body)}`);

  log(
    `load: ${options.connections} keep-alive connections, ${options.warmupMs / 1000} s warm-up + ${options.durationMs / 1000} s measured per round, ` +
      `${options.rounds} rounds per target (alternating); ${options.spaces === 1 ? 'one space' : `${options.spaces} spaces walked`}; AUTH_CACHE_TTL=${process.env.AUTH_CACHE_TTL ?? '5s (default)'}; ` +
      `database pool ${process.env.BENCH_POOL_MAX || 10} per server`,
  );
  const walk = (prefix: string) => spaceIds.map((id) => `${prefix}${id}`);
  const targets: Record<'baseline' | 'api', { server: ServerChild; path: string[]; headers: Record<string, string>; label: string }> = {
    baseline: { server: bare, path: walk('/bare/spaces/'), headers: {}, label: 'baseline (bare fastify + pg)' },
    api: { server: api, path: walk('/v1/spaces/'), headers: auth, label: 'api GET /v1/spaces/{id}' },
  };

  // Where the CPU goes during each measured window: the server process, the database backends
  // serving this database (only when PostgreSQL runs on this machine), and this load generator.
  const monitor = new pg.Client({ connectionString: db.url });
  monitor.on('error', () => {}); // the database stopping first (Ctrl-C) is not an error of the benchmark
  await monitor.connect();
  cleanup.push(() => monitor.end());
  interface CpuSample {
    server: number;
    db: Map<number, number> | undefined;
    client: number;
  }
  const cpuSampler = (server: ServerChild) => async (): Promise<CpuSample> => {
    const client = process.cpuUsage();
    const [serverMicros, dbMicros] = await Promise.all([server.cpu(), databaseCpu(monitor).catch(() => undefined)]);
    return { server: serverMicros, db: dbMicros, client: client.user + client.system };
  };
  interface Cpu {
    server: number;
    db: number | undefined;
    client: number;
  }
  const cpuPerRequest = (r: RoundResult<CpuSample>): Cpu | undefined => {
    if (!r.samples || r.requests === 0) return undefined;
    const [a, b] = r.samples;
    const dbDelta = databaseCpuDelta(a.db, b.db);
    return {
      server: (b.server - a.server) / r.requests,
      db: dbDelta === undefined ? undefined : dbDelta / r.requests,
      client: (b.client - a.client) / r.requests,
    };
  };
  const cpuText = (c: Cpu | undefined) =>
    c ? `CPU µs/req: server ${fmt(c.server, 0)}, db ${fmt(c.db ?? NaN, 0)}, load generator ${fmt(c.client, 0)}` : '';

  const results: Record<'baseline' | 'api', RoundResult<CpuSample>[]> = { baseline: [], api: [] };
  for (let round = 1; round <= options.rounds; round++) {
    for (const name of ['baseline', 'api'] as const) {
      const t = targets[name];
      const r = await runLoad(t.server.url, t.path, t.headers, { ...options, sample: cpuSampler(t.server), signal: interrupted.signal });
      if (interrupted.signal.aborted) throw new Error('interrupted');
      const sorted = Float64Array.from(r.latencies).sort();
      log(
        `  round ${round} ${name.padEnd(8)} ${fmt(r.rps, 0).padStart(7)} rps  p50 ${fmt(percentile(sorted, 50))} ms  ` +
          `p99 ${fmt(percentile(sorted, 99))} ms  (${r.requests} requests, ${r.errors} errors)  ${cpuText(cpuPerRequest(r))}`,
      );
      if (r.errors > 0) throw new Error(`${name}: ${r.errors} failed request(s); first: ${r.firstError}`);
      results[name].push(r);
    }
  }

  const summary = (['baseline', 'api'] as const).map((name) => {
    const all = concat(results[name].map((r) => r.latencies));
    const cpu = results[name].map(cpuPerRequest).filter((c): c is Cpu => c !== undefined);
    const cpuMedian = (pick: (c: Cpu) => number | undefined) => {
      const values = cpu.map(pick).filter((v): v is number => v !== undefined);
      return values.length ? median(values) : NaN;
    };
    return {
      name,
      label: targets[name].label,
      rps: median(results[name].map((r) => r.rps)),
      p50: percentile(all, 50),
      p99: percentile(all, 99),
      requests: all.length,
      serverCpu: cpuMedian((c) => c.server),
      dbCpu: cpuMedian((c) => c.db),
    };
  });
  log('');
  log(
    `${'target'.padEnd(30)} ${'rps'.padStart(8)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'requests'.padStart(9)}` +
      `${'server µs/req'.padStart(15)}${'db µs/req'.padStart(11)}`,
  );
  for (const s of summary) {
    log(
      `${s.label.padEnd(30)} ${fmt(s.rps, 0).padStart(8)} ${fmt(s.p50).padStart(8)} ${fmt(s.p99).padStart(8)} ${String(s.requests).padStart(9)}` +
        `${fmt(s.serverCpu, 0).padStart(15)}${fmt(s.dbCpu, 0).padStart(11)}`,
    );
  }
  log(
    '(rps: median over rounds; latencies: every measured request; µs/req: CPU time of the server process and of its database backends, median over rounds)',
  );
  const ratio = summary[1].rps / summary[0].rps;
  log(`ratio api/baseline: ${fmt(ratio)} (target >= ${TARGET_RATIO})`);
  exitCode = 0;
} catch (error) {
  if (!interrupted.signal.aborted) console.error('bench:', error instanceof Error ? error.message : error);
  exitCode = 1;
}
await cleanup.run();
process.exit(exitCode);

import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Connection, WorkflowNotFoundError, Client } from '@temporalio/client';
import { createScratchDatabase, type Running } from '../../src/lib/infra.ts';
import { waitForTemporal } from '../../src/temporal/client.ts';

/**
 * A real Temporal server (the release the Compose stack runs, 1.29.1) on PostgreSQL, for tests that
 * need Temporal's own databases (the test suite's shared server is the CLI's dev server on SQLite).
 *
 * Built once from the Go module proxy (.ci/run does it and caches the binaries in ~/go/bin):
 *   go install go.temporal.io/server/cmd/server@v1.29.1
 *   go install go.temporal.io/server/cmd/tools/sql@v1.29.1
 * The schema files come from the same module's source in the Go module cache.
 */

export const TEMPORAL_SERVER_VERSION = '1.29.1';
const run = promisify(execFile);

export interface TemporalServerTools {
  /** The server binary (`server`), its SQL schema tool (`sql`) and the Temporal CLI (`temporal`). */
  server: string;
  sql: string;
  cli: string;
  /** `schema/postgresql/v12` of go.temporal.io/server@v1.29.1. */
  schemaDir: string;
}

const goPath = () => process.env.GOPATH || join(homedir(), 'go');

/**
 * The binaries and schema files, or what is missing: TEMPORAL_SERVER_PATH, TEMPORAL_SQL_TOOL_PATH,
 * TEMPORAL_CLI_PATH and TEMPORAL_SCHEMA_DIR override where they are looked for.
 */
export function findTemporalServerTools(): { tools?: TemporalServerTools; missing: string[] } {
  const bin = join(goPath(), 'bin');
  const modules = process.env.GOMODCACHE || join(goPath(), 'pkg', 'mod');
  const wanted = {
    server: process.env.TEMPORAL_SERVER_PATH || join(bin, 'server'),
    sql: process.env.TEMPORAL_SQL_TOOL_PATH || join(bin, 'sql'),
    cli: process.env.TEMPORAL_CLI_PATH || join(bin, 'temporal'),
    schemaDir:
      process.env.TEMPORAL_SCHEMA_DIR || join(modules, `go.temporal.io/server@v${TEMPORAL_SERVER_VERSION}`, 'schema', 'postgresql', 'v12'),
  };
  const missing = Object.values(wanted).filter((path) => !existsSync(path));
  return missing.length > 0 ? { missing } : { tools: wanted, missing };
}

export const missingToolsMessage = (missing: string[]) =>
  `Temporal server ${TEMPORAL_SERVER_VERSION} on PostgreSQL is needed and ${missing.join(', ')} ${missing.length > 1 ? 'are' : 'is'} missing: ` +
  `build it once with \`go install go.temporal.io/server/cmd/server@v${TEMPORAL_SERVER_VERSION}\` and ` +
  `\`go install go.temporal.io/server/cmd/tools/sql@v${TEMPORAL_SERVER_VERSION}\` (about 12 minutes on 2 cores; .ci/run does it and caches them in ~/go/bin), ` +
  'which also puts the schema files in the Go module cache.';

interface Ports {
  frontend: number;
  frontendMembership: number;
  frontendHttp: number;
  history: number;
  historyMembership: number;
  matching: number;
  matchingMembership: number;
  worker: number;
  workerMembership: number;
}

/** Whether `port` of 127.0.0.1 can be listened on now. */
function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * Free ports below 32768: Temporal's PostgreSQL schema keeps a member's port in a `smallint`
 * (cluster_membership.rpc_port), so a port of the kernel's ephemeral range (from 32768) stops
 * the server at start ("value … is out of range for type smallint").
 */
async function freePorts(): Promise<Ports> {
  const names: (keyof Ports)[] = [
    'frontend',
    'frontendMembership',
    'frontendHttp',
    'history',
    'historyMembership',
    'matching',
    'matchingMembership',
    'worker',
    'workerMembership',
  ];
  const ports = {} as Ports;
  const taken = new Set<number>();
  for (const name of names) {
    let port: number;
    do port = 20_000 + randomInt(12_000);
    while (taken.has(port) || !(await canListen(port)));
    taken.add(port);
    ports[name] = port;
  }
  return ports;
}

/** Temporal's `sql` store settings of one database of DATABASE_URL's server. */
function datastore(url: URL, database: string, maxConns: number): string {
  return [
    '      sql:',
    '        pluginName: postgres12',
    `        databaseName: ${JSON.stringify(database)}`,
    `        connectAddr: ${JSON.stringify(`${url.hostname}:${url.port || '5432'}`)}`,
    '        connectProtocol: tcp',
    `        user: ${JSON.stringify(decodeURIComponent(url.username) || 'postgres')}`,
    `        password: ${JSON.stringify(decodeURIComponent(url.password))}`,
    `        maxConns: ${maxConns}`,
    `        maxIdleConns: ${maxConns}`,
    '        maxConnLifetime: 1h',
  ].join('\n');
}

/**
 * The server's configuration: development-postgres12.yaml of the release, with one history shard,
 * archival off, no pprof and no metrics listener, and a port of its own for every service. A member
 * gives up a join after 5 s (30 s there): a server started on databases restored within 20 s of
 * their dump finds the members the dump recorded still fresh and tries to join them (the dead
 * addresses of before) until they are older than that, each try lasting up to this long.
 */
function serverConfig(serverUrl: URL, databases: { temporal: string; visibility: string }, ports: Ports, dynamicConfig: string) {
  const rpc = (grpc: number, membership: number, http?: number) =>
    `{ grpcPort: ${grpc}, membershipPort: ${membership}, bindOnLocalHost: true${http ? `, httpPort: ${http}` : ''} }`;
  return `log:
  stdout: true
  level: warn
persistence:
  defaultStore: postgres-default
  visibilityStore: postgres-visibility
  numHistoryShards: 1
  datastores:
    postgres-default:
${datastore(serverUrl, databases.temporal, 10)}
    postgres-visibility:
${datastore(serverUrl, databases.visibility, 2)}
global:
  membership:
    maxJoinDuration: 5s
    broadcastAddress: "127.0.0.1"
services:
  frontend:
    rpc: ${rpc(ports.frontend, ports.frontendMembership, ports.frontendHttp)}
  matching:
    rpc: ${rpc(ports.matching, ports.matchingMembership)}
  history:
    rpc: ${rpc(ports.history, ports.historyMembership)}
  worker:
    rpc: ${rpc(ports.worker, ports.workerMembership)}
clusterMetadata:
  enableGlobalNamespace: false
  failoverVersionIncrement: 10
  masterClusterName: active
  currentClusterName: active
  clusterInformation:
    active:
      enabled: true
      initialFailoverVersion: 1
      rpcName: frontend
      rpcAddress: "127.0.0.1:${ports.frontend}"
dcRedirectionPolicy:
  policy: noop
archival:
  history:
    state: disabled
  visibility:
    state: disabled
namespaceDefaults:
  archival:
    history:
      state: disabled
    visibility:
      state: disabled
dynamicConfigClient:
  filepath: ${JSON.stringify(dynamicConfig)}
  pollInterval: 10s
`;
}

const DYNAMIC_CONFIG = `# Search attributes registered by a process are seen at once by the next call (as on the dev server).
system.forceSearchAttributesCacheRefreshOnRead:
  - value: true
    constraints: {}
limit.maxIDLength:
  - value: 255
    constraints: {}
`;

export interface TemporalOnPostgres {
  /** postgres:// URLs of Temporal's two databases (`temporal_<run>`, `temporal_visibility_<run>`). */
  databaseUrl: string;
  visibilityDatabaseUrl: string;
  /** host:port of the running server's frontend (a new one at every start). */
  address(): string;
  /** Starts the server on the databases as they are now (after a restore, say) and waits until it serves `default`. */
  start(): Promise<void>;
  /** Stops the server (SIGTERM, then waits for it to exit). */
  stop(): Promise<void>;
  /** The last lines the server printed, for failure messages. */
  log(): string;
  /** Stops the server and drops both databases. */
  close(): Promise<void>;
}

/**
 * Creates Temporal's two databases on DATABASE_URL's server, sets up the release's schema in them
 * with its `sql` tool, starts the server and registers the `default` namespace.
 */
export async function startTemporalOnPostgres(options: {
  tools: TemporalServerTools;
  /** DATABASE_URL: the server the databases are created on. */
  serverUrl: string;
  /** Unique per run: the databases are `temporal_<run>` and `temporal_visibility_<run>`. */
  run: string;
  /** A directory of this run for the configuration files. */
  dir: string;
}): Promise<TemporalOnPostgres> {
  const { tools, dir } = options;
  const serverUrl = new URL(options.serverUrl);
  const databases = { temporal: `temporal_${options.run}`, visibility: `temporal_visibility_${options.run}` };
  const created: Running[] = [];
  let child: ChildProcess | undefined;
  let output = '';
  let frontend = 0;

  const stop = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise((r) => running.once('exit', r));
    running.kill('SIGTERM');
    await exited;
  };
  const close = async () => {
    await stop();
    for (const database of created.splice(0)) await database.stop();
  };

  /** Starts the server and waits until its frontend answers, then until `ready` resolves. */
  const launch = async (ready: (address: string) => Promise<void>) => {
    if (child) throw new Error('the Temporal server is running already');
    const ports = await freePorts();
    frontend = ports.frontend;
    const dynamicConfig = join(dir, 'dynamic-config.yaml');
    await mkdir(join(dir, 'config'), { recursive: true });
    await writeFile(dynamicConfig, DYNAMIC_CONFIG);
    // `server` reads <root>/<config>/<env>.yaml (no base.yaml here).
    await writeFile(join(dir, 'config', 'test.yaml'), serverConfig(serverUrl, databases, ports, dynamicConfig));
    output = '';
    const started = spawn(tools.server, ['--root', dir, '--config', 'config', '--env', 'test', '--allow-no-auth', 'start'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = started;
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-6000);
    };
    started.stdout!.on('data', keep);
    started.stderr!.on('data', keep);
    const exited = new Promise<never>((_, fail) =>
      started.once('exit', (code) => fail(new Error(`the Temporal server exited with ${code}:\n${output}`))),
    );
    exited.catch(() => {});
    try {
      await Promise.race([ready(`127.0.0.1:${frontend}`), exited]);
    } catch (error) {
      await stop();
      throw error;
    }
  };

  try {
    for (const name of [databases.temporal, databases.visibility]) created.push(await createScratchDatabase(options.serverUrl, name));
    for (const [database, schema] of [
      [databases.temporal, 'temporal'],
      [databases.visibility, 'visibility'],
    ]) {
      const connect = [
        '--plugin',
        'postgres12',
        '--ep',
        serverUrl.hostname,
        '--port',
        serverUrl.port || '5432',
        '--user',
        decodeURIComponent(serverUrl.username) || 'postgres',
        '--db',
        database,
      ];
      const env = { ...process.env, SQL_PASSWORD: decodeURIComponent(serverUrl.password) };
      await run(tools.sql, [...connect, 'setup-schema', '-v', '0.0'], { env });
      await run(tools.sql, [...connect, 'update-schema', '-d', join(tools.schemaDir, schema, 'versioned')], { env });
    }
    await launch(async (address) => {
      await waitForTemporal(address, 90_000);
      await retrying(() => run(tools.cli, ['operator', 'namespace', 'create', '--address', address, '--namespace', 'default']), 60_000);
      await serving(address, 60_000);
    });
  } catch (error) {
    await close();
    throw Object.assign(new Error(`${(error as Error).message}\n(Temporal server output: ${output.slice(-3000)})`), { cause: error });
  }

  const urlOf = (name: string) => {
    const url = new URL(options.serverUrl);
    url.pathname = `/${name}`;
    return url.toString();
  };
  return {
    databaseUrl: urlOf(databases.temporal),
    visibilityDatabaseUrl: urlOf(databases.visibility),
    address: () => `127.0.0.1:${frontend}`,
    start: () => launch((address) => serving(address, 90_000)),
    stop,
    log: () => output,
    close,
  };
}

/** Runs `work` until it succeeds, for at most `timeoutMs`; then throws its last error. */
async function retrying<T>(work: () => Promise<T>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await work();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

/**
 * Waits until the server serves the `default` namespace end to end: the frontend knows it, a task
 * queue lookup reaches the matching service, and a workflow lookup the history service (and
 * answers "not found").
 */
async function serving(address: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    let connection: Connection | undefined;
    try {
      connection = await Connection.connect({ address, connectTimeout: 2000 });
      const client = new Client({ connection, namespace: 'default' });
      // Through the matching service too: a task queue nobody polls is described as empty.
      await connection.workflowService.describeTaskQueue({
        namespace: 'default',
        taskQueue: { name: 'readiness-probe' },
        taskQueueType: 1,
      });
      await client.workflow.getHandle('readiness-probe').describe();
      return;
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return;
      last = error;
    } finally {
      await connection?.close();
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(
    `the Temporal server at ${address} did not serve the default namespace within ${timeoutMs} ms: ${(last as Error)?.message}`,
  );
}

/** A worker process (src/worker.ts) with `env`, once it says it started. */
export async function startWorkerProcess(env: Record<string, string>): Promise<{ process: ChildProcess; stop(): Promise<void> }> {
  const worker = spawn(process.execPath, ['src/worker.ts'], {
    env: { ...process.env, ...env, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stop = async () => {
    if (worker.exitCode !== null || worker.signalCode !== null) return;
    const exited = new Promise((r) => worker.once('exit', r));
    worker.kill('SIGTERM');
    await exited;
  };
  try {
    await new Promise<void>((resolve, reject) => {
      let seen = '';
      const keep = (chunk: Buffer) => {
        seen = (seen + chunk.toString()).slice(-4000);
        if (seen.includes('worker started')) resolve();
      };
      worker.stdout!.on('data', keep);
      worker.stderr!.on('data', keep);
      worker.once('exit', (code) => reject(new Error(`the worker exited with ${code}:\n${seen}`)));
    });
  } catch (error) {
    await stop();
    throw error;
  }
  return { process: worker, stop };
}

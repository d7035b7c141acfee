import { spawn } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { S3Config } from '../config.ts';
import { createDatabase, forgetGitSyncSignals, referencedBlobs, userTableCount } from '../db/backup.ts';
import { forkEm, initOrm } from '../db/orm.ts';
import { blobKey, type BlobStore } from './blob-keys.ts';
import { LocalBlobStore } from './blob-store.ts';

/**
 * Backups that restore: `pg_dump --format=custom` of the service's database and of Temporal's, then
 * a copy of the blob store, into one directory with a manifest; and the reverse into empty targets.
 *
 * Why this order is consistent: blobs are immutable and named by their sha256, and a row (or a
 * workflow's history) only ever names a blob stored before the row committed. Each dump is a
 * consistent snapshot taken when it starts, and the blob store is copied after the last dump has
 * finished, so every blob a dump references is already in the store and lands in the copy. The
 * copy may hold blobs nothing references yet; that is harmless.
 *
 * Temporal's databases are dumped before the service's: a job whose effect commits between the two
 * dumps is then seen done by the service's copy while Temporal's copy still has its activity to
 * run, and the activities are idempotent (they find their effect and answer it), which is the path
 * a worker crash takes too. docs/operations.md ("Backups and restore") says what happens to each job.
 *
 * Not in the backup: the secrets key (SECRETS_KEY or $DATA_DIR/secrets.key), which encrypted fields
 * and signed links depend on. It is kept apart, deliberately: whoever holds a backup and the key
 * holds every stored credential.
 */

export const MANIFEST = 'manifest.json';
export const BLOBS = 'blobs';
const FORMAT = 'docs-service-backup';
const COPIES_AT_ONCE = 8;

/** Bad input (a missing directory, a non-empty target, a wrong manifest): the scripts print it and exit 2. */
export class BackupInputError extends Error {}

/**
 * A restore whose blob store lacks blobs the restored service database references (the backup did
 * not hold them either): the databases are restored, but the service would answer those files with
 * errors. `report.missingBlobs` names them.
 */
export class MissingBlobsError extends Error {
  readonly report: RestoreReport;

  constructor(report: RestoreReport) {
    const missing = report.missingBlobs;
    super(
      `${missing.length} of the ${report.referencedBlobs} blobs the restored service database references are in neither the backup nor the blob store ` +
        `(first: ${missing.slice(0, 5).join(', ')}); the databases are restored, the service is not whole: ` +
        'put those blobs into the store, or restore a complete backup again with --force',
    );
    this.report = report;
  }
}

/** Where blobs are read or written: the store the configuration selects. */
export type BlobLocation = { kind: 'local'; dir: string } | { kind: 's3'; config: S3Config };

export interface DumpEntry {
  role: 'service' | 'temporal';
  /** The database's name on its server. */
  database: string;
  /** Its URL with the password masked. */
  url: string;
  file: string;
  bytes: number;
  /** Tables whose rows the dump holds. */
  tables: number;
  startedAt: string;
  finishedAt: string;
}

export interface BlobSummary {
  store: 'local' | 's3';
  /** The directory, or `s3://bucket` at the endpoint. */
  source: string;
  /** Blobs in the backup after this run, and their bytes. */
  count: number;
  bytes: number;
  /** Of them, copied in this run (the others were in the directory from an earlier backup). */
  copied: number;
}

export interface Manifest {
  format: typeof FORMAT;
  version: 1;
  startedAt: string;
  finishedAt: string;
  /** In the order they were taken: Temporal's first, the service's last. */
  databases: DumpEntry[];
  blobs: BlobSummary;
  secretsKey: string;
}

export interface BackupOptions {
  /** The destination directory (created if missing; blobs of an earlier backup there are kept and reused). */
  to: string;
  databaseUrl: string;
  /** Temporal's databases (`temporal`, `temporal_visibility`), dumped before the service's. */
  temporalDatabaseUrls?: string[];
  blobs: BlobLocation;
  /** Directory of pg_dump and pg_restore; unset: PATH. */
  pgBin?: string;
  log?: (line: string) => void;
}

export interface RestoreOptions {
  /** A directory written by `backup`. */
  from: string;
  databaseUrl: string;
  /** Targets of the backup's Temporal dumps, matched by database name. */
  temporalDatabaseUrls?: string[];
  /** Leave the backup's Temporal dumps out (a restore of the service alone). */
  skipTemporal?: boolean;
  blobs: BlobLocation;
  /** Restore into databases that hold tables, dropping the objects the dump has first. */
  force?: boolean;
  pgBin?: string;
  log?: (line: string) => void;
}

export interface RestoreReport {
  databases: { role: string; database: string; url: string; created: boolean }[];
  blobs: { count: number; copied: number };
  /** Queued Git Sync requests handed to the job service again. */
  gitSyncRequestsResent: number;
  /** Blobs the restored service database references, and how many of them the store lacks (0 after a good restore). */
  referencedBlobs: number;
  missingBlobs: string[];
}

/** The URL with its password replaced by `***`, for logs and the manifest. */
export function maskUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    for (const key of [...parsed.searchParams.keys()]) if (/pass|secret|key/i.test(key)) parsed.searchParams.set(key, '***');
    return parsed.toString();
  } catch {
    return '(not a URL)';
  }
}

/** The database a `postgres://` URL names; bad input otherwise. */
export function databaseName(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new BackupInputError(`not a database URL: ${maskUrl(url)}`);
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    throw new BackupInputError(`not a postgres:// URL: ${maskUrl(url)}`);
  }
  const name = decodeURIComponent(parsed.pathname.replace(/^\//, ''));
  if (!name || name.includes('/')) throw new BackupInputError(`the database URL names no database: ${maskUrl(url)}`);
  return name;
}

/** The URL without its password, and the password as PGPASSWORD: never on a command line others can read. */
function connection(url: string): { dbname: string; env: NodeJS.ProcessEnv } {
  const parsed = new URL(url);
  const password = decodeURIComponent(parsed.password);
  parsed.password = '';
  return { dbname: parsed.toString(), env: password ? { PGPASSWORD: password } : {} };
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => (err = (err + chunk.toString()).slice(-4000)));
    child.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'ENOENT'
          ? new BackupInputError(
              `${command} was not found: install PostgreSQL's client tools (as recent as the server) or give their directory`,
            )
          : error,
      ),
    );
    child.once('close', (code) => {
      if (code === 0) resolve(Buffer.concat(out).toString('utf8'));
      else reject(new Error(`${command.split('/').pop()} exited with ${code}: ${maskPasswords(err.trim())}`));
    });
  });
}

/** Any `scheme://user:password@` in a message of a PostgreSQL tool, masked. */
function maskPasswords(text: string): string {
  return text.replace(/(\w+:\/\/[^:/\s]*:)[^@\s]*@/g, '$1***@');
}

const tool = (pgBin: string | undefined, name: string) => (pgBin ? join(pgBin, name) : name);

async function pgDump(pgBin: string | undefined, url: string, file: string): Promise<void> {
  const { dbname, env } = connection(url);
  await run(tool(pgBin, 'pg_dump'), ['--format=custom', '--no-password', `--file=${file}`, `--dbname=${dbname}`], env);
}

/** Tables whose rows a custom-format dump holds (its table of contents' TABLE DATA entries). */
async function dumpedTables(pgBin: string | undefined, file: string): Promise<number> {
  const list = await run(tool(pgBin, 'pg_restore'), ['--list', file], {});
  return list.split('\n').filter((line) => / TABLE DATA /.test(line)).length;
}

async function pgRestore(pgBin: string | undefined, url: string, file: string, clean: boolean): Promise<void> {
  const { dbname, env } = connection(url);
  await run(
    tool(pgBin, 'pg_restore'),
    [
      '--no-password',
      '--no-owner',
      '--no-privileges',
      '--exit-on-error',
      '--single-transaction',
      ...(clean ? ['--clean', '--if-exists'] : []),
      `--dbname=${dbname}`,
      file,
    ],
    env,
  );
}

// ---------------------------------------------------------------------------------------------
// Blobs

const BLOB_PATH = /^([0-9a-f]{2})\/([0-9a-f]{2})\/([0-9a-f]{64})$/;

/** The sha256 of a key `ab/cd/abcd…` whose parts agree, or null for anything else (temporary uploads). */
function hashOfKey(key: string): string | null {
  const match = BLOB_PATH.exec(key);
  if (!match) return null;
  const [, a, b, hash] = match;
  return hash.startsWith(a + b) ? hash : null;
}

/** Every blob of a directory laid out as the local store (and the backup) lays them out, with its size. */
async function* directoryBlobs(dir: string): AsyncGenerator<{ hash: string; size: number }> {
  let first: string[];
  try {
    first = await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  for (const a of first.sort()) {
    if (!/^[0-9a-f]{2}$/.test(a)) continue;
    for (const b of (await readdir(join(dir, a)).catch(() => [])).sort()) {
      if (!/^[0-9a-f]{2}$/.test(b)) continue;
      for (const name of (await readdir(join(dir, a, b)).catch(() => [])).sort()) {
        const hash = hashOfKey(`${a}/${b}/${name}`);
        if (!hash) continue;
        const { size } = await stat(join(dir, a, b, name));
        yield { hash, size };
      }
    }
  }
}

/** Every blob of the bucket (objects under their sha256 key), listed through the S3 API. */
async function* bucketBlobs(config: S3Config): AsyncGenerator<{ hash: string; size: number }> {
  const [{ ListObjectsV2Command }, { s3Client }] = await Promise.all([import('@aws-sdk/client-s3'), import('./s3-blob-store.ts')]);
  const client = s3Client(config);
  try {
    let token: string | undefined;
    do {
      const page = await client.send(new ListObjectsV2Command({ Bucket: config.bucket, ContinuationToken: token }));
      for (const object of page.Contents ?? []) {
        const hash = object.Key ? hashOfKey(object.Key) : null;
        if (hash) yield { hash, size: object.Size ?? 0 };
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  } finally {
    client.destroy();
  }
}

async function storeOf(location: BlobLocation): Promise<BlobStore> {
  if (location.kind === 'local') return new LocalBlobStore(location.dir);
  const { S3BlobStore } = await import('./s3-blob-store.ts');
  return new S3BlobStore(location.config);
}

/** The store for logs: the directory, or the bucket and its endpoint (masked: an endpoint may carry credentials). */
function describe(location: BlobLocation): string {
  if (location.kind === 'local') return location.dir;
  const { bucket, endpoint } = location.config;
  return `s3://${bucket} at ${endpoint ? maskUrl(endpoint) : 'AWS S3'}`;
}

/** Runs `work` on every item, `COPIES_AT_ONCE` at a time; the first failure stops the rest and is thrown. */
async function eachAtOnce<T>(items: AsyncIterable<T>, work: (item: T) => Promise<void>): Promise<void> {
  const running = new Set<Promise<void>>();
  let failure: unknown;
  for await (const item of items) {
    if (failure !== undefined) break;
    const task = work(item).then(
      () => void running.delete(task),
      (error: unknown) => {
        running.delete(task);
        failure ??= error;
      },
    );
    running.add(task);
    if (running.size >= COPIES_AT_ONCE) await Promise.race(running);
  }
  await Promise.all(running);
  if (failure !== undefined) throw failure;
}

/** Copies one blob out of the store into the backup directory, checking its bytes against its name. */
async function copyOut(store: BlobStore, hash: string, dir: string): Promise<number> {
  const target = join(dir, ...blobKey(hash).split('/'));
  const blob = await store.open(hash);
  if (!blob) throw new Error(`blob ${hash} was listed but could not be read`);
  await mkdir(dirname(target), { recursive: true });
  const temporary = `${target}.${randomUUID()}.tmp`;
  const hasher = createHash('sha256');
  try {
    await pipeline(
      blob.body,
      async function* (chunks: AsyncIterable<Buffer>) {
        for await (const chunk of chunks) {
          hasher.update(chunk);
          yield chunk;
        }
      },
      createWriteStream(temporary),
    );
    if (hasher.digest('hex') !== hash) throw new Error(`blob ${hash} of the store does not hold the bytes its name says`);
    await rename(temporary, target);
    return (await stat(target)).size;
  } finally {
    await rm(temporary, { force: true });
  }
}

// ---------------------------------------------------------------------------------------------
// Backup

/**
 * Dumps Temporal's databases, then the service's, then copies the blob store, into `options.to`,
 * and writes the manifest last: a directory without a manifest is not a finished backup.
 */
export async function backup(options: BackupOptions): Promise<Manifest> {
  const log = options.log ?? (() => {});
  const startedAt = new Date().toISOString();
  const targets: { role: DumpEntry['role']; url: string; database: string }[] = [
    ...(options.temporalDatabaseUrls ?? []).map((url) => ({ role: 'temporal' as const, url, database: databaseName(url) })),
    { role: 'service', url: options.databaseUrl, database: databaseName(options.databaseUrl) },
  ];
  const names = targets.map((t) => t.database);
  const twice = names.find((name, i) => names.indexOf(name) !== i);
  if (twice) throw new BackupInputError(`the database ${twice} is named twice`);

  for (const target of targets) {
    if ((await userTableCount(target.url)) === null) throw new BackupInputError(`the database ${maskUrl(target.url)} does not exist`);
  }
  await mkdir(options.to, { recursive: true }).catch((error: NodeJS.ErrnoException) => {
    throw new BackupInputError(`cannot create the backup directory ${options.to}: ${error.code ?? error.message}`);
  });
  // A new backup into an old directory: its manifest goes first, so an interrupted run leaves none.
  await rm(join(options.to, MANIFEST), { force: true });

  const databases: DumpEntry[] = [];
  for (const target of targets) {
    const file = `${target.role}-${target.database}.dump`;
    const at = new Date().toISOString();
    log(`dumping ${target.role} database ${maskUrl(target.url)}`);
    const temporary = join(options.to, `${file}.partial`);
    await pgDump(options.pgBin, target.url, temporary);
    await rename(temporary, join(options.to, file));
    const bytes = (await stat(join(options.to, file))).size;
    const tables = await dumpedTables(options.pgBin, join(options.to, file));
    databases.push({ ...target, url: maskUrl(target.url), file, bytes, tables, startedAt: at, finishedAt: new Date().toISOString() });
    log(`  ${file}: ${bytes} bytes, ${tables} tables`);
  }

  // Only now: every blob a dump references was stored before the dump's snapshot was taken.
  log(`copying blobs from ${describe(options.blobs)}`);
  const store = await storeOf(options.blobs);
  const dir = join(options.to, BLOBS);
  let count = 0;
  let bytes = 0;
  let copied = 0;
  const listed = options.blobs.kind === 'local' ? directoryBlobs(options.blobs.dir) : bucketBlobs(options.blobs.config);
  await eachAtOnce(listed, async ({ hash, size }) => {
    const have = await stat(join(dir, ...blobKey(hash).split('/'))).catch(() => null);
    if (have && have.size === size) {
      count += 1;
      bytes += size;
      return;
    }
    const written = await copyOut(store, hash, dir);
    count += 1;
    bytes += written;
    copied += 1;
  });
  log(`  ${count} blobs, ${bytes} bytes (${copied} copied, ${count - copied} there already)`);

  const manifest: Manifest = {
    format: FORMAT,
    version: 1,
    startedAt,
    finishedAt: new Date().toISOString(),
    databases,
    blobs: {
      store: options.blobs.kind,
      source: options.blobs.kind === 'local' ? options.blobs.dir : `s3://${options.blobs.config.bucket}`,
      count,
      bytes,
      copied,
    },
    secretsKey:
      'not included: keep SECRETS_KEY (or $DATA_DIR/secrets.key) apart from this backup, safely; without it sealed secrets cannot be read',
  };
  const temporary = join(options.to, `${MANIFEST}.partial`);
  await writeFile(temporary, JSON.stringify(manifest, null, 2) + '\n');
  await rename(temporary, join(options.to, MANIFEST));
  return manifest;
}

// ---------------------------------------------------------------------------------------------
// Restore

/** The manifest of a finished backup in `dir`, checked against the files beside it. */
export async function readManifest(dir: string): Promise<Manifest> {
  let text: string;
  try {
    text = await readFile(join(dir, MANIFEST), 'utf8');
  } catch {
    throw new BackupInputError(`${join(dir, MANIFEST)} is missing: not a finished backup`);
  }
  let manifest: Manifest;
  try {
    manifest = JSON.parse(text) as Manifest;
  } catch {
    throw new BackupInputError(`${join(dir, MANIFEST)} is not JSON`);
  }
  if (manifest?.format !== FORMAT || manifest.version !== 1 || !Array.isArray(manifest.databases)) {
    throw new BackupInputError(`${join(dir, MANIFEST)} is not the manifest of a backup of this service (format ${FORMAT}, version 1)`);
  }
  for (const dump of manifest.databases) {
    if (typeof dump.file !== 'string' || !/^[\w.-]+\.dump$/.test(dump.file))
      throw new BackupInputError(`the manifest names a bad dump file`);
    const size = await stat(join(dir, dump.file)).then(
      (s) => s.size,
      () => null,
    );
    if (size !== dump.bytes) {
      throw new BackupInputError(
        `${dump.file} is ${size === null ? 'missing' : `${size} bytes, not ${dump.bytes}`}: the backup is incomplete`,
      );
    }
  }
  if (manifest.databases.filter((d) => d.role === 'service').length !== 1)
    throw new BackupInputError('the manifest holds no service database');
  return manifest;
}

/**
 * Restores a backup: every database into its target (created when missing; refused when it holds
 * tables, unless `force`), then the blobs into the store, then checks that every blob the restored
 * service database references is in the store and hands queued Git Sync requests to the job
 * service again; a store that lacks any of them fails the restore (`MissingBlobsError`, after the
 * rest is done). Every target is checked before anything is written.
 */
export async function restore(options: RestoreOptions): Promise<RestoreReport> {
  const log = options.log ?? (() => {});
  const manifest = await readManifest(options.from);
  const temporalTargets = new Map<string, string>();
  for (const url of options.temporalDatabaseUrls ?? []) temporalTargets.set(databaseName(url), url);
  const plan: { dump: DumpEntry; url: string }[] = [];
  for (const dump of manifest.databases) {
    if (dump.role === 'service') {
      databaseName(options.databaseUrl);
      plan.push({ dump, url: options.databaseUrl });
    } else if (temporalTargets.has(dump.database)) {
      plan.push({ dump, url: temporalTargets.get(dump.database)! });
    } else if (!options.skipTemporal) {
      throw new BackupInputError(
        `the backup holds Temporal's database ${dump.database}: give its target (a URL naming ${dump.database}), or leave Temporal out explicitly`,
      );
    }
  }
  const unused = [...temporalTargets.keys()].filter(
    (name) => !manifest.databases.some((d) => d.role === 'temporal' && d.database === name),
  );
  if (unused.length > 0) throw new BackupInputError(`the backup holds no Temporal database named ${unused.join(', ')}`);

  const states = await Promise.all(plan.map(async ({ url }) => userTableCount(url)));
  const full = plan.filter((_, i) => (states[i] ?? 0) > 0);
  if (full.length > 0 && !options.force) {
    throw new BackupInputError(
      `refusing to restore into databases that hold tables: ${full.map((p) => maskUrl(p.url)).join(', ')} (restore into empty ones, or force it)`,
    );
  }

  const report: RestoreReport = {
    databases: [],
    blobs: { count: 0, copied: 0 },
    gitSyncRequestsResent: 0,
    referencedBlobs: 0,
    missingBlobs: [],
  };
  for (const [i, { dump, url }] of plan.entries()) {
    const created = states[i] === null;
    if (created) await createDatabase(url);
    log(`restoring ${dump.role} database ${dump.database} into ${maskUrl(url)}${created ? ' (created)' : ''}`);
    await pgRestore(options.pgBin, url, join(options.from, dump.file), (states[i] ?? 0) > 0);
    report.databases.push({ role: dump.role, database: dump.database, url: maskUrl(url), created });
  }

  log(`copying blobs into ${describe(options.blobs)}`);
  const store = await storeOf(options.blobs);
  const dir = join(options.from, BLOBS);
  await eachAtOnce(directoryBlobs(dir), async ({ hash }) => {
    report.blobs.count += 1;
    if (await store.has(hash)) return;
    const stored = await store.putStream(createReadStream(join(dir, ...blobKey(hash).split('/'))));
    if (stored !== hash) throw new Error(`blob ${hash} of the backup does not hold the bytes its name says`);
    report.blobs.copied += 1;
  });
  log(`  ${report.blobs.count} blobs (${report.blobs.copied} copied)`);

  const orm = await initOrm({ databaseUrl: options.databaseUrl, poolMax: 2 });
  try {
    const referenced = await referencedBlobs(forkEm(orm));
    report.referencedBlobs = referenced.length;
    const missing: string[] = [];
    await eachAtOnce(
      (async function* () {
        yield* referenced;
      })(),
      async (hash) => {
        if (!(await store.has(hash))) missing.push(hash);
      },
    );
    report.missingBlobs = missing.sort();
    report.gitSyncRequestsResent = await forgetGitSyncSignals(forkEm(orm));
  } finally {
    await orm.close();
  }
  log(`  ${report.referencedBlobs} blobs referenced by the service database, ${report.missingBlobs.length} missing`);
  if (report.gitSyncRequestsResent > 0)
    log(`  ${report.gitSyncRequestsResent} queued Git Sync requests will be sent to the job service again`);
  if (report.missingBlobs.length > 0) throw new MissingBlobsError(report);
  return report;
}

// ---------------------------------------------------------------------------------------------
// The command line of scripts/backup.ts and scripts/restore.ts

/** The blob store the service's configuration selects (BLOB_STORE, BLOB_DIR, S3_*). */
export function blobLocationOf(config: { blobDir: string; s3: S3Config | undefined }): BlobLocation {
  return config.s3 ? { kind: 's3', config: config.s3 } : { kind: 'local', dir: config.blobDir };
}

/** Temporal's database URLs: the flags given, else TEMPORAL_DB_URLS (comma-separated). */
export function temporalDatabaseUrls(flags: string[] | undefined, env: NodeJS.ProcessEnv): string[] {
  const given = flags && flags.length > 0 ? flags : (env.TEMPORAL_DB_URLS ?? '').split(',');
  const urls = given.map((url) => url.trim()).filter(Boolean);
  for (const url of urls) databaseName(url);
  return urls;
}

/** Runs a script's work: bad input is printed and exits 2, any other failure exits 1; secrets never printed. */
export async function runScript(work: () => Promise<void>): Promise<never> {
  try {
    await work();
    process.exit(0);
  } catch (error) {
    const bad = error instanceof BackupInputError || (error as { name?: string }).name === 'ConfigError';
    console.error(`${bad ? 'error' : 'failed'}: ${maskPasswords((error as Error).message ?? String(error))}`);
    process.exit(bad ? 2 : 1);
  }
}

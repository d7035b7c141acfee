import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cp, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CreateBucketCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import type { S3Config } from '../../src/config.ts';
import { initOrm, migrate } from '../../src/db/orm.ts';
import { newId } from '../../src/domain/ids.ts';
import { blobKey, sha256 } from '../../src/lib/blob-keys.ts';
import { BLOBS, backup, MissingBlobsError, restore, type BlobLocation } from '../../src/lib/backup.ts';
import { createScratchDatabase } from '../../src/lib/infra.ts';
import { edit, merge, newChangeRequest, newSpace, PNG_2X3 } from '../support/fixtures.ts';
import { client, createTestOrg, startTestApp, type Api, type TestApp, type TestOrg } from '../support/harness.ts';
import { startMinio, type TestMinio } from '../support/minio.ts';

/**
 * `npm run backup` / `npm run restore` with BLOB_STORE=s3, against a real MinIO: a populated
 * instance (two spaces sharing one image's blob) is backed up with the library's functions, its
 * bucket emptied and its database dropped, then restored into the emptied bucket, and again into
 * a fresh bucket and database; an API on each restored pair reads every page and every file's
 * bytes back (through the links the API answers, redirected to the bucket). A bucket listing of
 * more than one page (ListObjectsV2 answers 1,000 keys at most) is copied whole; a second backup
 * into the same directory copies nothing; a backup lacking a blob the database references fails
 * its restore by name.
 */

const run = newId(8).toLowerCase();
const secretsKey = randomBytes(32).toString('base64');
let scratch: string;
let minio: TestMinio;
let s3: S3Client;
const databases: { url: string; stop(): Promise<unknown> }[] = [];
const apps: TestApp[] = [];
const stops: (() => Promise<void>)[] = [];
const queue = `backup-s3-${run}`;

async function scratchDatabase(suffix: string, migrated: boolean) {
  const db = await createScratchDatabase(process.env.DATABASE_URL!, `docs_backup_s3_${run}_${suffix}`);
  databases.push(db);
  if (migrated) {
    const orm = await initOrm({ databaseUrl: db.url, poolMax: 2 });
    await migrate(orm);
    await orm.close();
  }
  return db;
}

async function newBucket(name: string): Promise<S3Config> {
  await s3.send(new CreateBucketCommand({ Bucket: name }));
  return { ...s3Config(), bucket: name };
}

function s3Config(): S3Config {
  return {
    endpoint: minio.endpoint,
    bucket: minio.bucket,
    region: 'us-east-1',
    accessKeyId: minio.accessKeyId,
    secretAccessKey: minio.secretAccessKey,
    forcePathStyle: true,
    downloads: 'redirect',
  };
}

async function keysOf(bucket: string): Promise<string[]> {
  const keys: string[] = [];
  let token: string | undefined;
  do {
    const page = await s3.send(new ListObjectsV2Command({ Bucket: bucket, ContinuationToken: token }));
    keys.push(...(page.Contents ?? []).map((o) => o.Key!));
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  return keys;
}

function instanceEnv(databaseUrl: string, bucket: string): Record<string, string> {
  return {
    ...minio.env,
    S3_BUCKET: bucket,
    DATABASE_URL: databaseUrl,
    DATA_DIR: join(scratch, 'data'),
    SECRETS_KEY: secretsKey,
    TEMPORAL_TASK_QUEUE: queue,
  };
}

async function app(databaseUrl: string, bucket: string): Promise<TestApp> {
  const started = await startTestApp(instanceEnv(databaseUrl, bucket));
  apps.push(started);
  return started;
}

/** A worker of the instance (merges run in it), on a task queue of this file's own; answers how to stop it. */
async function startWorker(env: Record<string, string>): Promise<() => Promise<void>> {
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
  stops.push(stop);
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
  return stop;
}

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'docs-backup-s3-'));
  minio = await startMinio('docs-backup');
  s3 = new S3Client({
    endpoint: minio.endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: minio.accessKeyId, secretAccessKey: minio.secretAccessKey },
  });
}, 90_000);

afterAll(async () => {
  for (const stop of stops) await stop().catch(() => {});
  for (const started of apps) await started.close().catch(() => {});
  for (const db of databases) await db.stop().catch(() => {});
  s3?.destroy();
  await minio?.stop();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

const PNG = Buffer.from(PNG_2X3, 'base64');
const NOTES = Buffer.from('Release notes\n'.repeat(200));

/** The bytes a download link of the API leads to: the API's redirect followed to the bucket. */
async function bytes(t: TestApp, link: string, token: string): Promise<Buffer> {
  const url = new URL(link);
  const res = await t.app.inject({ url: url.pathname + url.search, headers: { authorization: `Bearer ${token}` } });
  expect({ link: url.pathname, status: res.statusCode }).toEqual({ link: url.pathname, status: 302 });
  const location = String(res.headers.location);
  expect(location.startsWith(`${minio.endpoint}/`)).toBe(true);
  const answer = await fetch(location);
  expect({ location, status: answer.status }).toEqual({ location, status: 200 });
  return Buffer.from(await answer.arrayBuffer());
}

async function ok(api: Api, url: string) {
  const res = await api.get(url);
  expect({ url, status: res.status }).toEqual({ url, status: 200 });
  return res.body;
}

/** Every page of the spaces and every file with its bytes, without the links minted afresh. */
async function readAll(t: TestApp, token: string, spaces: string[]) {
  const api = client(t.app, token);
  const out: Record<string, unknown> = {};
  for (const spaceId of spaces) {
    type Node = { id: string; pages?: Node[] };
    const tree = (await ok(api, `/v1/spaces/${spaceId}/content/pages`)).pages as Node[];
    out[`pages ${spaceId}`] = tree;
    const walk = async (list: Node[]) => {
      for (const page of list) {
        out[`page ${page.id}`] = await ok(api, `/v1/spaces/${spaceId}/content/page/${page.id}`);
        await walk(page.pages ?? []);
      }
    };
    await walk(tree);
    const files = (await ok(api, `/v1/spaces/${spaceId}/content/files`)).items as { id: string; downloadURL: string }[];
    out[`files ${spaceId}`] = files.map(({ downloadURL: _, ...rest }) => rest);
    for (const file of files) out[`bytes ${file.id}`] = (await bytes(t, file.downloadURL, token)).toString('base64');
  }
  return out;
}

describe('backup and restore of an S3 blob store', () => {
  it('copies a bucket listed over several pages (more than 1,000 keys) out and back, leaving temporary uploads out, a large blob in parts', async () => {
    const db = await scratchDatabase('many', true);
    const bucket = await newBucket('docs-many');
    const hashes: string[] = [];
    const bodies = Array.from({ length: 1_050 }, (_, i) => Buffer.from(`blob ${i}\n`));
    for (let i = 0; i < bodies.length; i += 50) {
      await Promise.all(
        bodies.slice(i, i + 50).map(async (body) => {
          const hash = sha256(body);
          hashes.push(hash);
          await s3.send(new PutObjectCommand({ Bucket: bucket.bucket, Key: blobKey(hash), Body: body }));
        }),
      );
    }
    // Larger than one part of the store's multipart upload (8 MiB): restored in parts.
    const large = Buffer.alloc(9 * 1024 * 1024 + 3, 'large blob\n');
    hashes.push(sha256(large));
    await s3.send(new PutObjectCommand({ Bucket: bucket.bucket, Key: blobKey(sha256(large)), Body: large }));
    await s3.send(new PutObjectCommand({ Bucket: bucket.bucket, Key: `incoming/${newId()}`, Body: 'half an upload' }));

    const dir = join(scratch, 'many');
    const manifest = await backup({ to: dir, databaseUrl: db.url, blobs: { kind: 's3', config: bucket } });
    expect(manifest.blobs).toMatchObject({ store: 's3', source: 's3://docs-many', count: 1_051, copied: 1_051 });
    const copied: string[] = [];
    for (const a of await readdir(join(dir, BLOBS)))
      for (const b of await readdir(join(dir, BLOBS, a))) copied.push(...(await readdir(join(dir, BLOBS, a, b))));
    expect(copied.sort()).toEqual(hashes.sort());

    // Back into a fresh bucket: every blob under its key, no temporary upload left behind.
    const target = await newBucket('docs-many-restored');
    const report = await restore({
      from: dir,
      databaseUrl: (await scratchDatabase('many_restored', false)).url,
      blobs: { kind: 's3', config: target },
    });
    expect(report.blobs).toEqual({ count: 1_051, copied: 1_051 });
    expect((await keysOf(target.bucket)).sort()).toEqual(hashes.map(blobKey).sort());
    const restoredLarge = await s3.send(new GetObjectCommand({ Bucket: target.bucket, Key: blobKey(sha256(large)) }));
    expect(Buffer.from(await restoredLarge.Body!.transformToByteArray()).equals(large)).toBe(true);
  }, 60_000);

  it('restores an emptied bucket, or a fresh one, and a dropped database: every page and file reads back the same', async () => {
    const database = await scratchDatabase('main', true);
    const stopWorker = await startWorker(instanceEnv(database.url, minio.bucket));
    const t = await app(database.url, minio.bucket);
    const org: TestOrg = await createTestOrg(t, 'Backup S3 org');
    const admin = org.members.admin.api;
    const token = org.members.admin.token;

    // A space with nested pages and two files; a second space with the same image uploaded again.
    const docs = await newSpace(admin, org.id, { title: 'Handbook' });
    const first = await newChangeRequest(admin, docs.id, 'First pages');
    await edit(admin, docs.id, first.id, [
      { operation: 'insert_page', ref: 'guide', title: 'Guide', document: { markdown: '# Guide\n\nHello world\n' } },
      { operation: 'insert_page', into: 'guide', title: 'Install', document: { markdown: 'Run the installer.\n' } },
      {
        operation: 'insert_files',
        files: [
          { name: 'diagram.png', contentType: 'image/png', base64: PNG.toString('base64') },
          { name: 'notes.txt', contentType: 'text/plain', base64: NOTES.toString('base64') },
        ],
      },
    ]);
    await merge(admin, docs.id, first.id);
    const other = await newSpace(admin, org.id, { title: 'Other' });
    const second = await newChangeRequest(admin, other.id, 'Logo');
    await edit(admin, other.id, second.id, [
      { operation: 'insert_page', title: 'About', document: { markdown: '# About\n\nThe same image.\n' } },
      { operation: 'insert_files', files: [{ name: 'logo.png', contentType: 'image/png', base64: PNG.toString('base64') }] },
    ]);
    await merge(admin, other.id, second.id);

    const spaces = [docs.id, other.id];
    const before = await readAll(t, token, spaces);
    // Three pages inserted, and the first page each new space starts with.
    expect(Object.keys(before).filter((k) => k.startsWith('page '))).toHaveLength(5);
    expect(Object.keys(before).filter((k) => k.startsWith('bytes '))).toHaveLength(3);
    expect(Object.values(before).filter((v) => v === PNG.toString('base64'))).toHaveLength(2);
    const blobs = (await keysOf(minio.bucket)).filter((key) => !key.startsWith('incoming/'));
    expect(blobs.sort()).toEqual([blobKey(sha256(PNG)), blobKey(sha256(NOTES))].sort());

    // Back up; a second backup into the same directory copies no blob again.
    const location: BlobLocation = { kind: 's3', config: s3Config() };
    const dir = join(scratch, 'backup');
    const lines: string[] = [];
    const manifest = await backup({ to: dir, databaseUrl: database.url, blobs: location, log: (line) => lines.push(line) });
    expect(manifest.blobs).toMatchObject({ store: 's3', source: `s3://${minio.bucket}`, count: 2, copied: 2 });
    expect(manifest.blobs.bytes).toBe(PNG.length + NOTES.length);
    const again = await backup({ to: dir, databaseUrl: database.url, blobs: location, log: (line) => lines.push(line) });
    expect(again.blobs).toMatchObject({ count: 2, copied: 0 });
    expect(lines).toContain('  2 blobs, ' + (PNG.length + NOTES.length) + ' bytes (0 copied, 2 there already)');
    for (const text of [...lines, JSON.stringify(manifest)]) {
      expect(text).not.toContain(minio.secretAccessKey);
      expect(text).not.toContain(secretsKey);
    }

    // Wipe: every object of the bucket deleted, the database dropped (the instance stopped first).
    await stopWorker();
    await t.close();
    apps.splice(apps.indexOf(t), 1);
    for (const key of await keysOf(minio.bucket)) await s3.send(new DeleteObjectCommand({ Bucket: minio.bucket, Key: key }));
    expect(await keysOf(minio.bucket)).toEqual([]);
    await database.stop();

    // Restore into the dropped database (created again) and the emptied bucket.
    const report = await restore({ from: dir, databaseUrl: database.url, blobs: location, log: (line) => lines.push(line) });
    expect(report).toMatchObject({ databases: [{ role: 'service', created: true }], blobs: { count: 2, copied: 2 }, referencedBlobs: 2 });
    expect(report.missingBlobs).toEqual([]);
    expect((await keysOf(minio.bucket)).sort()).toEqual(blobs.sort());
    for (const line of lines) expect(line).not.toContain(minio.secretAccessKey);
    const restored = await app(database.url, minio.bucket);
    expect(await readAll(restored, token, spaces)).toEqual(before);

    // Restore into a fresh bucket on the same MinIO and a fresh database.
    const fresh = await newBucket('docs-fresh');
    const freshDatabase = await scratchDatabase('fresh', false);
    const intoFresh = await restore({ from: dir, databaseUrl: freshDatabase.url, blobs: { kind: 's3', config: fresh } });
    expect(intoFresh).toMatchObject({ databases: [{ role: 'service', created: false }], blobs: { count: 2, copied: 2 }, missingBlobs: [] });
    expect((await keysOf(fresh.bucket)).sort()).toEqual(blobs.sort());
    const freshApp = await app(freshDatabase.url, fresh.bucket);
    expect(await readAll(freshApp, token, spaces)).toEqual(before);

    // A backup lacking a blob the database references: the restore into a bucket without it fails, naming it.
    const lacking = join(scratch, 'lacking');
    await cp(dir, lacking, { recursive: true });
    await rm(join(lacking, BLOBS, ...blobKey(sha256(NOTES)).split('/')));
    const bare = await newBucket('docs-bare');
    const bareDatabase = await scratchDatabase('bare', false);
    const refused = await restore({ from: lacking, databaseUrl: bareDatabase.url, blobs: { kind: 's3', config: bare } }).then(
      () => null,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(MissingBlobsError);
    expect((refused as MissingBlobsError).report).toMatchObject({ blobs: { count: 1, copied: 1 }, missingBlobs: [sha256(NOTES)] });
    expect((refused as Error).message).toContain(`1 of the 2 blobs`);
    expect((refused as Error).message).toContain(sha256(NOTES));
  }, 120_000);
});

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { blobCollectionActivities } from '../../src/activities/blob-collection.ts';
import { spaceDeletionActivities } from '../../src/activities/space-deletion.ts';
import { blobRegistry, collectBlob, type BlobOutcome } from '../../src/db/blobs.ts';
import { forkEm } from '../../src/db/orm.ts';
import { blobStoreFor, sha256, type CollectedBlobStore } from '../../src/lib/blob-store.ts';
import { blobCollectionScheduleId, upsertBlobCollectionSchedule } from '../../src/temporal/blob-collection.ts';
import { spaceDeletionWorkflowId } from '../../src/temporal/space-deletion.ts';
import { blobCollection } from '../../src/workflows/blob-collection.ts';
import { spaceDeletion } from '../../src/workflows/space-deletion.ts';
import { createTestOrg, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { newChangeRequest, newSpace, postChanges, sql } from '../support/fixtures.ts';
import { startMinio, type TestMinio } from '../support/minio.ts';
import { startWorkflowWorker, type WorkflowWorker } from '../support/workflow-worker.ts';

/**
 * Deleting blobs (docs/operations.md, "Deleting blobs"), on the local store and on a real MinIO:
 * a purge ends with exactly the purged space's unshared bytes gone, and collections racing writes
 * lose nothing. The grace is the default 24 hours throughout: what a test wants collected it ages
 * by hand (the blob rows and the deletion, as days passing would), so the collections of these
 * tests never touch the fresh blobs of other test files sharing the database.
 */
const GRACE = 24 * 3_600_000;

interface Setup {
  t: TestApp;
  org: TestOrg;
  blobs: CollectedBlobStore;
  w: WorkflowWorker;
  close(): Promise<void>;
}

async function setUp(kind: string, env: Record<string, string>): Promise<Setup> {
  const t = await startTestApp(env);
  const org = await createTestOrg(t, `Blob collection ${kind}`);
  const registry = blobRegistry(t.config.databaseUrl!);
  const blobs = blobStoreFor(t.config, registry);
  const w = await startWorkflowWorker(`blob-collection-${kind}`, 'index.ts', {
    ...spaceDeletionActivities(t.orm),
    ...blobCollectionActivities(t.orm, { blobs, graceMs: GRACE }),
  });
  return {
    t,
    org,
    blobs,
    w,
    close: async () => {
      await w.stop();
      await registry.close();
      await t.close();
    },
  };
}

/** Inserts files into a new change request of the space through the API; answers their hashes. */
async function insertFiles(s: Setup, spaceId: string, files: Buffer[]): Promise<string[]> {
  const api = s.org.members.admin.api;
  const cr = await newChangeRequest(api, spaceId);
  const res = await postChanges(
    api,
    spaceId,
    cr.id,
    files.map((bytes, i) => ({
      operation: 'insert_files',
      files: [{ name: `f${i}.txt`, contentType: 'text/plain', base64: bytes.toString('base64') }],
    })),
  );
  expect(res.status).toBe(200);
  return files.map((bytes) => sha256(bytes));
}

/** Ages the registered blobs of `hashes` as if their last write were two days ago, and queues them as unreferenced since then. Answers how many. */
async function age(t: TestApp, hashes: string[]): Promise<number> {
  const aged = await sql(t, `update blob set touched_at = now() - interval '2 days' where sha256 = any(?::text[]) returning sha256`, [
    `{${hashes.join(',')}}`,
  ]);
  await sql(
    t,
    `insert into blob_candidate (sha256, since) select sha256, now() - interval '2 days' from blob where sha256 = any(?::text[])
       on conflict (sha256) do update set since = excluded.since`,
    [`{${hashes.join(',')}}`],
  );
  return aged.length;
}

const registered = async (t: TestApp, hash: string) => (await sql(t, 'select 1 from blob where sha256 = ?', [hash])).length === 1;

function purgeTests(kind: 'local' | 's3', env: () => Record<string, string>) {
  let s: Setup;
  beforeAll(async () => {
    s = await setUp(kind, env());
  }, 120_000);
  afterAll(async () => {
    await s?.close();
  });

  it("a purge ends with the purged space's unshared bytes gone, and bytes a live space shares kept", async () => {
    const api = s.org.members.admin.api;
    const run = `${kind}-${Date.now()}`;
    const unshared = Buffer.from(`only in the purged space ${run}\n`.repeat(40));
    const shared = Buffer.from(`in both spaces ${run}\n`.repeat(40));
    const doomed = await newSpace(api, s.org.id, { title: 'Purged' });
    const live = await newSpace(api, s.org.id, { title: 'Kept' });
    const [unsharedHash, sharedHash] = await insertFiles(s, doomed.id, [unshared, shared]);
    await insertFiles(s, live.id, [shared]);
    expect(await s.blobs.has(unsharedHash)).toBe(true);
    expect(await registered(s.t, unsharedHash)).toBe(true);

    expect((await api.delete(`/v1/spaces/${doomed.id}`)).status).toBe(205);
    // The API's deletion waits SPACE_RETENTION on the suite's worker; this test runs the purge on its own.
    await s.t.temporal.workflow.getHandle(spaceDeletionWorkflowId(doomed.id)).terminate('test runs the purge');
    // Eight days pass: the deletion is past the retention and the uploads are past the grace.
    const [{ deleted_at: deletedAt }] = await sql<{ deleted_at: Date }>(
      s.t,
      `update space set deleted_at = date_trunc('milliseconds', now() - interval '8 days') where id = ? returning deleted_at`,
      [doomed.id],
    );
    await sql(s.t, `update blob set touched_at = now() - interval '8 days' where sha256 in (?, ?)`, [unsharedHash, sharedHash]);
    // The uploads queued their hashes too, eight days ago (the hourly passes since would have taken them off).
    await sql(s.t, `update blob_candidate set since = now() - interval '8 days' where sha256 in (?, ?)`, [unsharedHash, sharedHash]);

    const handle = await s.w.client.workflow.start(spaceDeletion, {
      taskQueue: s.w.taskQueue,
      workflowId: s.w.workflowId(doomed.id),
      args: [{ spaceId: doomed.id, organizationId: s.org.id, deletedAt: new Date(deletedAt).toISOString(), retentionMs: 7 * 86_400_000 }],
    });
    expect((await handle.result()).state).toBe('purged');

    expect(await s.blobs.has(unsharedHash)).toBe(false);
    expect(await registered(s.t, unsharedHash)).toBe(false);
    expect((await s.blobs.get(sharedHash))?.equals(shared)).toBe(true);
    expect(await registered(s.t, sharedHash)).toBe(true);
    // Neither waits in the queue any more: the shared one comes back when its last reference goes.
    expect(await sql(s.t, 'select sha256 from blob_candidate where sha256 in (?, ?)', [unsharedHash, sharedHash])).toEqual([]);
  });

  it('collections racing writes of the same and new bytes, reference inserts and deletes lose nothing', async () => {
    const rounds = kind === 'local' ? 200 : 40;
    const api = s.org.members.admin.api;
    const space = await newSpace(api, s.org.id, { title: 'Raced' });
    const revision = (await newChangeRequest(api, space.id)).revision;
    const run = `${kind}-${Date.now()}`;
    const pool = Array.from({ length: 12 }, (_, i) => Buffer.from(`pooled ${i} ${run}\n`.repeat(30 + i)));
    const bytesOf = new Map(pool.map((b) => [sha256(b), b]));
    const poolHashes = [...bytesOf.keys()];
    const outcomes: Record<BlobOutcome, number> = { collected: 0, referenced: 0, recent: 0, busy: 0, adopted: 0 };
    const pick = <T>(items: T[]) => items[Math.floor(Math.random() * items.length)];
    let files = 0;
    const reference = async (bytes: Buffer) => {
      const hash = await s.blobs.put(bytes);
      files += 1;
      await sql(s.t, 'insert into revision_file (revision_id, file_id, name, content_type, size, sha256) values (?, ?, ?, ?, ?, ?)', [
        revision,
        `file-${files}`,
        `f${files}.txt`,
        'text/plain',
        bytes.length,
        hash,
      ]);
    };
    // The object is deleted a moment after the checks, as a slow store would: a wider window for a write to fall into.
    const removeObject = async (hash: string) => {
      await new Promise((resolve) => setTimeout(resolve, 2));
      await s.blobs.delete(hash);
    };
    const collect = async () => {
      for (const hash of poolHashes) outcomes[await collectBlob(forkEm(s.t.orm), hash, GRACE, removeObject)] += 1;
    };

    for (let round = 0; round < rounds; round++) {
      // Every pooled blob looks old to the collection; half of them lose their references now, so the
      // collection deletes them while the writers below store the same bytes again.
      await age(s.t, poolHashes);
      const dropped = poolHashes.filter(() => Math.random() < 0.5);
      await sql(s.t, 'delete from revision_file where revision_id = ? and sha256 = any(?::text[])', [revision, `{${dropped.join(',')}}`]);
      const referenced = await sql<{ file_id: string }>(s.t, 'select file_id from revision_file where revision_id = ?', [revision]);
      const fresh = Buffer.from(`new in round ${round} ${run}\n`.repeat(20));
      bytesOf.set(sha256(fresh), fresh);
      await Promise.all([
        collect(),
        collect(),
        ...Array.from({ length: 4 }, () => reference(pick(pool))),
        reference(fresh),
        s.blobs.put(pick(pool)),
        ...Array.from({ length: Math.min(3, referenced.length) }, () =>
          sql(s.t, 'delete from revision_file where revision_id = ? and file_id = ?', [revision, pick(referenced).file_id]),
        ),
      ]);
      // Every blob a row references is readable, with its bytes.
      const rows = await sql<{ sha256: string }>(s.t, 'select distinct sha256 from revision_file where revision_id = ?', [revision]);
      for (const { sha256: hash } of rows) {
        const stored = await s.blobs.get(hash);
        expect({ round, hash, intact: stored?.equals(bytesOf.get(hash)!) ?? false }).toEqual({ round, hash, intact: true });
      }
    }
    // The races happened: blobs were deleted and written again under the same hashes.
    expect(outcomes.collected).toBeGreaterThan(0);
    expect(outcomes.referenced).toBeGreaterThan(0);
    console.log(`${kind}: ${rounds} rounds, outcomes ${JSON.stringify(outcomes)}`);

    // A scheduled pass through Temporal, as the schedule starts it: what no row references goes, the rest stays.
    const aged = await age(s.t, poolHashes);
    const counts = await (
      await s.w.client.workflow.start(blobCollection, { taskQueue: s.w.taskQueue, workflowId: s.w.workflowId('pass'), args: [{}] })
    ).result();
    expect(counts.collected + counts.referenced).toBeGreaterThanOrEqual(aged);
    const kept = new Set(
      (await sql<{ sha256: string }>(s.t, 'select distinct sha256 from revision_file where revision_id = ?', [revision])).map(
        (r) => r.sha256,
      ),
    );
    for (const hash of poolHashes) {
      expect({ hash, stored: await s.blobs.has(hash) }).toEqual({ hash, stored: kept.has(hash) });
      expect({ hash, registered: await registered(s.t, hash) }).toEqual({ hash, registered: kept.has(hash) });
    }
  }, 300_000);
}

describe('blob collection on the local store', () => {
  purgeTests('local', () => ({}));

  it('queues the old hash of a reference that changes hash, and the hash of a deleted reference', async () => {
    const s = await setUp('triggers', {});
    try {
      const space = await newSpace(s.org.members.admin.api, s.org.id, { title: 'Rehashed' });
      const revision = (await newChangeRequest(s.org.members.admin.api, space.id)).revision;
      const [first, second] = ['first', 'second'].map((what) => sha256(Buffer.from(`${what} ${Date.now()}`)));
      const queued = async () =>
        (
          await sql<{ sha256: string }>(s.t, 'select sha256 from blob_candidate where sha256 in (?, ?) order by sha256', [first, second])
        ).map((r) => r.sha256);
      await sql(
        s.t,
        `insert into revision_file (revision_id, file_id, name, content_type, size, sha256) values (?, 'f', 'f.txt', 'text/plain', 1, ?)`,
        [revision, first],
      );
      await sql(s.t, `update revision_file set name = 'renamed.txt' where revision_id = ? and file_id = 'f'`, [revision]);
      expect(await queued()).toEqual([]);
      await sql(s.t, `update revision_file set sha256 = ? where revision_id = ? and file_id = 'f'`, [second, revision]);
      expect(await queued()).toEqual([first]);
      await sql(s.t, `delete from revision_file where revision_id = ? and file_id = 'f'`, [revision]);
      expect(await queued()).toEqual([first, second].sort());
    } finally {
      await s.close();
    }
  });

  it('keeps a blob the store fails to delete queued, counted failed; a pass whose every delete fails throws', async () => {
    const s = await setUp('failing', {});
    try {
      const [refused, deleted] = ['refused', 'deleted'].map((what) => Buffer.from(`${what} ${Date.now()}\n`.repeat(10)));
      const [refusedHash, deletedHash] = [await s.blobs.put(refused), await s.blobs.put(deleted)];
      await age(s.t, [refusedHash, deletedHash]);
      const refusing = (which: (hash: string) => boolean): CollectedBlobStore =>
        Object.assign(Object.create(s.blobs) as CollectedBlobStore, {
          delete: async (hash: string) => {
            if (which(hash)) throw new Error(`the store refused to delete ${hash}`);
            await s.blobs.delete(hash);
          },
        });
      const some = blobCollectionActivities(s.t.orm, { blobs: refusing((h) => h === refusedHash), graceMs: GRACE });
      expect((await some.collectBlobs({})).counts).toMatchObject({ failed: 1, collected: 1 });
      expect(await s.blobs.has(deletedHash)).toBe(false);
      expect(await s.blobs.has(refusedHash)).toBe(true);
      expect(await registered(s.t, refusedHash)).toBe(true);
      expect(await sql(s.t, 'select sha256 from blob_candidate where sha256 = ?', [refusedHash])).toHaveLength(1);

      const none = blobCollectionActivities(s.t.orm, { blobs: refusing(() => true), graceMs: GRACE });
      await expect(none.collectBlobs({})).rejects.toThrow(`the store refused to delete ${refusedHash}`);
      const store = blobCollectionActivities(s.t.orm, { blobs: s.blobs, graceMs: GRACE });
      expect((await store.collectBlobs({})).counts).toMatchObject({ failed: 0, collected: 1 });
      expect(await s.blobs.has(refusedHash)).toBe(false);
    } finally {
      await s.close();
    }
  });
});

describe('the blob-collection schedule', () => {
  it('is created for the task queue, starting blobCollection every BLOB_COLLECT_EVERY, and brought up to date at the next start', async () => {
    const t = await startTestApp();
    const queue = `blob-schedule-${Date.now()}`;
    const handle = t.temporal.schedule.getHandle(blobCollectionScheduleId(queue));
    try {
      await upsertBlobCollectionSchedule(t.temporal, queue, 3_600_000);
      let described = await handle.describe();
      expect(described.scheduleId).toBe(`blob-collection/${queue}`);
      expect(described.spec.intervals?.map((i) => i.every)).toEqual([3_600_000]);
      expect(described.action).toMatchObject({ type: 'startWorkflow', workflowType: 'blobCollection', taskQueue: queue });
      await handle.pause('paused by an operator');
      await upsertBlobCollectionSchedule(t.temporal, queue, 15 * 60_000);
      described = await handle.describe();
      expect(described.spec.intervals?.map((i) => i.every)).toEqual([15 * 60_000]);
      expect(described.state.paused).toBe(true);
    } finally {
      await handle.delete().catch(() => {});
      await t.close();
    }
  });
});

describe('blob collection on S3 (MinIO)', () => {
  let minio: TestMinio;
  beforeAll(async () => {
    minio = await startMinio();
  }, 90_000);
  afterAll(async () => {
    await minio?.stop();
  });
  purgeTests('s3', () => minio.env);
});

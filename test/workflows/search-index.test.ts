import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { contentImportActivities, type ContentImportInput, type ContentImportOutcome } from '../../src/activities/content-import.ts';
import { searchIndexActivities } from '../../src/activities/search-index.ts';
import { loadConfig } from '../../src/config.ts';
import { db } from '../../src/db/kysely.ts';
import { forkEm } from '../../src/db/orm.ts';
import { newId } from '../../src/domain/ids.ts';
import { LocalBlobStore } from '../../src/lib/blob-store.ts';
import { inForeground } from '../../src/lib/foreground.ts';
import { fetchPolicyFromEnv } from '../../src/lib/guarded-fetch.ts';
import { secretBox } from '../../src/lib/secrets.ts';
import { searchIndexWorkflowId } from '../../src/temporal/search-index.ts';
import { contentImport } from '../../src/workflows/content-import.ts';
import { searchIndex } from '../../src/workflows/search-index.ts';
import { edit, merge, newChangeRequest, newSpace, searchCaughtUp } from '../support/fixtures.ts';
import { createTestOrg, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { startImportFixtures, type ImportFixtures } from '../support/import-fixtures.ts';
import { startWorkflowWorker, type WorkflowWorker } from '../support/workflow-worker.ts';

/**
 * The `search-index` job: the one way the index follows content, after a merge and after an import
 * (through the API and the suite's worker); one job per revision however often it is asked for;
 * and a job that comes late for an older revision never takes the index back. The jobs started
 * here run on a worker of this file's own, with the real index activity on the test database.
 */
let t: TestApp;
let org: TestOrg;
let fx: ImportFixtures;
let w: WorkflowWorker;
let blobDir: string;
let importer: ReturnType<typeof contentImportActivities>;

/** Index activity runs per space; spaces listed in `failing` fail for good. */
const indexed: string[] = [];
const failing = new Set<string>();
/** What the stubbed import activities answer, per space: the revision their write "made". */
const importedRevision = new Map<string, string>();

beforeAll(async () => {
  t = await startTestApp();
  org = await createTestOrg(t, 'Search index org');
  fx = await startImportFixtures();
  fx.routes.set('/zebracorn.md', { type: 'text/markdown', body: '# Rare animals\n\nThe zebracorn is rare.\n' });
  fx.routes.set('/quagga.md', { type: 'text/markdown', body: '# Extinct animals\n\nThe quagga is gone.\n' });
  blobDir = mkdtempSync(join(tmpdir(), 'search-index-blobs-'));
  const box = secretBox(Buffer.alloc(32, 3));
  importer = contentImportActivities(t.orm, {
    blobs: new LocalBlobStore(blobDir),
    policy: fetchPolicyFromEnv({ FETCH_ALLOW_HOSTS: '127.0.0.1' }),
    limits: loadConfig({}).contentImport,
    secrets: async () => box,
  });
  const index = searchIndexActivities(t.orm);
  w = await startWorkflowWorker('search-index', 'content-import.ts', {
    async readContentImport(): Promise<{ status: 'read'; bundle: string; pages: number; files: number }> {
      return { status: 'read', bundle: 'stub', pages: 1, files: 0 };
    },
    async applyContentImport(input: ContentImportInput): Promise<ContentImportOutcome> {
      return { status: 'imported', revision: importedRevision.get(input.spaceId)!, importedResources: 1, totalResources: 1 };
    },
    async indexSpaceSearch(spaceId: string) {
      indexed.push(spaceId);
      if (failing.has(spaceId)) throw ApplicationFailure.nonRetryable('the index is broken', 'BROKEN');
      return index.indexSpaceSearch(spaceId);
    },
  });
}, 180_000);
afterAll(async () => {
  await w?.stop();
  await fx?.close();
  await t?.close();
  if (blobDir) rmSync(blobDir, { recursive: true, force: true });
});

const admin = () => org.members.admin.api;
const search = async (spaceId: string, query: string) =>
  ((await admin().get(`/v1/spaces/${spaceId}/search?query=${encodeURIComponent(query)}`)).body.items as { title: string }[]).map(
    (i) => i.title,
  );
const indexedRevision = async (spaceId: string) =>
  (await db(forkEm(t.orm)).selectFrom('search_state').select('revision_id').where('space_id', '=', spaceId).executeTakeFirst())
    ?.revision_id;
const spaceRevision = async (spaceId: string) => (await admin().get(`/v1/spaces/${spaceId}`)).body.revision as string;
const runsOf = (spaceId: string) => indexed.filter((s) => s === spaceId).length;

/** A space whose content is the given pages, merged through one change request; returns it with its revision. */
async function mergedSpace(changes: unknown[]): Promise<{ id: string; revision: string }> {
  const space = await newSpace(admin(), org.id);
  const cr = await newChangeRequest(admin(), space.id);
  await edit(admin(), space.id, cr.id, changes);
  await merge(admin(), space.id, cr.id);
  return { id: space.id, revision: await spaceRevision(space.id) };
}

/** Replaces the space's content by one page, through a change request merged. */
async function replaceContent(spaceId: string, title: string, markdown: string): Promise<string> {
  const cr = await newChangeRequest(admin(), spaceId);
  const pages = (await admin().get(`/v1/spaces/${spaceId}/content/pages`)).body.pages as { id: string }[];
  await edit(admin(), spaceId, cr.id, [
    { operation: 'insert_page', title, document: { markdown } },
    ...pages.map((p) => ({ operation: 'delete_page', page: p.id })),
  ]);
  await merge(admin(), spaceId, cr.id);
  return spaceRevision(spaceId);
}

/** Runs the index job of `revisionId` directly, as a parent workflow would start it. */
const runIndexJob = (spaceId: string, revisionId: string) =>
  w.client.workflow.execute(searchIndex, {
    taskQueue: w.taskQueue,
    workflowId: searchIndexWorkflowId(spaceId, revisionId),
    args: [spaceId],
    workflowIdReusePolicy: 'ALLOW_DUPLICATE',
  });

describe('search-index job', () => {
  it('follows a merge and an import, each through the job of its revision', async () => {
    const space = await mergedSpace([{ operation: 'insert_page', title: 'Zoo', document: { markdown: 'An okapi lives here.\n' } }]);
    // The merge answers without waiting for the index: its job catches up.
    const mergeJob = t.temporal.workflow.getHandle(searchIndexWorkflowId(space.id, space.revision));
    expect(await mergeJob.result()).toEqual({ changed: true });
    expect(await indexedRevision(space.id)).toBe(space.revision);
    expect(await search(space.id, 'okapi')).toEqual(['Zoo']);

    // An import's answer comes once the job of its revision has run: search finds it at once.
    const imported = await admin().post(`/v1/spaces/${space.id}/content/import`, { source: 'markdown', url: `${fx.base}/zebracorn.md` });
    expect(imported.status).toBe(201);
    expect(await search(space.id, 'zebracorn')).toEqual(['Rare animals']);
    expect(await indexedRevision(space.id)).toBe(imported.body.revision);
    const importJob = t.temporal.workflow.getHandle(searchIndexWorkflowId(space.id, imported.body.revision));
    expect(await importJob.result()).toEqual({ changed: true });
    expect((await importJob.describe()).status.name).toBe('COMPLETED');
    expect(await search(space.id, 'okapi')).toEqual(['Zoo']);
  });

  it('is one job per revision, however often it is asked for; a failed one runs again', async () => {
    const spaceId = `space-${newId(8)}`;
    importedRevision.set(spaceId, `rev-${newId(8)}`);
    const jobId = searchIndexWorkflowId(spaceId, importedRevision.get(spaceId)!);
    const importOnce = (name: string) =>
      w.client.workflow.execute(contentImport, {
        taskQueue: w.taskQueue,
        workflowId: w.workflowId(name),
        args: [{ spaceId, changeRequestId: null, source: 'markdown', url: 'http://x/a.md', revisionId: 'r', userId: 'u' }],
      });
    // Two imports that report the same revision, at once, then a third once the job has finished.
    await Promise.all([importOnce('a'), importOnce('b')]);
    const job = w.client.workflow.getHandle(jobId);
    expect(await job.result()).toEqual({ changed: false });
    const run = (await job.describe()).runId;
    await importOnce('c');
    expect((await job.describe()).runId).toBe(run);
    expect(runsOf(spaceId)).toBe(1);

    // A job that failed is no obstacle: asked again, its revision gets a new one.
    const broken = `space-${newId(8)}`;
    failing.add(broken);
    importedRevision.set(broken, `rev-${newId(8)}`);
    const brokenJob = w.client.workflow.getHandle(searchIndexWorkflowId(broken, importedRevision.get(broken)!));
    const again = (name: string) =>
      w.client.workflow.execute(contentImport, {
        taskQueue: w.taskQueue,
        workflowId: w.workflowId(name),
        args: [{ spaceId: broken, changeRequestId: null, source: 'markdown', url: 'http://x/a.md', revisionId: 'r', userId: 'u' }],
      });
    await again('d');
    await expect(brokenJob.result()).rejects.toThrow();
    const failedRun = (await brokenJob.describe()).runId;
    failing.delete(broken);
    await again('e');
    expect(await brokenJob.result()).toEqual({ changed: false });
    expect((await brokenJob.describe()).runId).not.toBe(failedRun);
    expect(runsOf(broken)).toBe(2);
  });

  it('never takes the index back: a late job for an older revision leaves a newer index, or brings it to the newest', async () => {
    const space = await mergedSpace([{ operation: 'insert_page', title: 'Alpha', document: { markdown: 'The first words.\n' } }]);
    await searchCaughtUp(t, space.id);
    const second = await replaceContent(space.id, 'Beta', 'The second words.\n');
    await searchCaughtUp(t, space.id);
    expect(await search(space.id, 'alpha')).toEqual([]);

    // The first revision's job, run again late: the index is the space's newest already, and stays so.
    const before = runsOf(space.id);
    expect(await runIndexJob(space.id, space.revision)).toEqual({ changed: false });
    expect(runsOf(space.id)).toBe(before + 1);
    expect(await indexedRevision(space.id)).toBe(second);
    expect(await search(space.id, 'beta')).toEqual(['Beta']);
    expect(await search(space.id, 'alpha')).toEqual([]);

    // The content moves on without its job (an import written by its activity alone): a late job
    // for an older revision brings the index to the newest, not to the revision it was started for.
    const input: ContentImportInput = {
      spaceId: space.id,
      changeRequestId: null,
      source: 'markdown',
      url: `${fx.base}/quagga.md`,
      revisionId: newId(),
      userId: org.members.admin.userId,
    };
    const read = await importer.readContentImport(input);
    if (read.status !== 'read') throw new Error(`not read: ${JSON.stringify(read)}`);
    expect(await importer.applyContentImport({ ...input, bundle: read.bundle })).toMatchObject({ status: 'imported' });
    expect(await indexedRevision(space.id)).toBe(second);
    expect(await search(space.id, 'quagga')).toEqual([]);
    expect(await runIndexJob(space.id, space.revision)).toEqual({ changed: true });
    expect(await indexedRevision(space.id)).toBe(input.revisionId);
    expect(await search(space.id, 'quagga')).toEqual(['Extinct animals']);
    expect(await search(space.id, 'beta')).toEqual(['Beta']);
  });

  it('steps aside while a merge runs in its worker, and catches up once the merge ends', async () => {
    const space = await mergedSpace([
      { operation: 'insert_page', title: 'Okapi', document: { markdown: 'The okapi hides in the forest.\n' } },
    ]);
    await searchCaughtUp(t, space.id);
    // The merge's own job has closed (its index written is not yet its run closed), so this test's run of it may start.
    await t.temporal.workflow.getHandle(searchIndexWorkflowId(space.id, space.revision)).result();
    // The index behind its space again, as if its job had yet to run.
    await db(forkEm(t.orm)).updateTable('search_state').set({ revision_id: null }).where('space_id', '=', space.id).execute();
    const runs = runsOf(space.id);

    // Foreground work of this process (the worker's): a merge someone waits for.
    let endMerge!: () => void;
    const merging = new Promise<void>((resolve) => (endMerge = resolve));
    const order: string[] = [];
    const mergeDone = inForeground(async () => {
      await merging;
      order.push('merge');
    });
    const job = runIndexJob(space.id, space.revision).then((outcome) => {
      order.push('index');
      return outcome;
    });
    while (runsOf(space.id) === runs) await new Promise((resolve) => setTimeout(resolve, 20));
    // The job's activity has started, and waits: it steps aside up to a second at a time, at
    // several points before it writes.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(order).toEqual([]);
    expect(await indexedRevision(space.id)).toBeNull();

    endMerge();
    await mergeDone;
    expect(await job).toEqual({ changed: true });
    expect(order).toEqual(['merge', 'index']);
    expect(await indexedRevision(space.id)).toBe(space.revision);
    expect(await search(space.id, 'okapi')).toEqual(['Okapi']);
  });
});

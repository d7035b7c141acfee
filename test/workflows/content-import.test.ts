import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Context } from '@temporalio/activity';
import { WorkflowFailedError } from '@temporalio/client';
import { CancelledFailure } from '@temporalio/common';
import { sql } from 'kysely';
import { contentImportActivities, type ContentImportInput, type ContentImportOutcome } from '../../src/activities/content-import.ts';
import { searchIndexActivities } from '../../src/activities/search-index.ts';
import { loadConfig } from '../../src/config.ts';
import { db } from '../../src/db/kysely.ts';
import { forkEm, transaction } from '../../src/db/orm.ts';
import { searchIndexIsCurrent } from '../../src/db/search.ts';
import { newId } from '../../src/domain/ids.ts';
import { LocalBlobStore, type BlobStore } from '../../src/lib/blob-store.ts';
import { fetchPolicyFromEnv } from '../../src/lib/guarded-fetch.ts';
import { secretBox } from '../../src/lib/secrets.ts';
import { searchIndexWorkflowId } from '../../src/temporal/search-index.ts';
import { contentImport } from '../../src/workflows/content-import.ts';
import { createTestOrg, eventually, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { docxOf, PNG, startImportFixtures, zipOf, type ImportFixtures } from '../support/import-fixtures.ts';
import { gate, startWorkflowWorker, type WorkflowWorker } from '../support/workflow-worker.ts';

/**
 * The content-import workflow with its real activities on the test database and a blob store of
 * its own: an import delivered twice is written once, a cancelled import leaves the space as it
 * was, an attempt after a lost one resumes from what that one heartbeated, and an import into a
 * space's content starts the search-index job of its revision. The blob store and the activities
 * are wrapped only to watch them (and to make a chosen attempt fail, as a lost worker would).
 */
let t: TestApp;
let org: TestOrg;
let fx: ImportFixtures;
let w: WorkflowWorker;
let blobDir: string;

/** The running activity's workflow id and attempt, or null outside an activity. */
function attemptOf(): { workflowId: string; attempt: number } | null {
  try {
    const info = Context.current().info;
    return { workflowId: info.workflowExecution?.workflowId ?? '', attempt: info.attempt };
  } catch {
    return null;
  }
}

/** Blob writes per workflow id and attempt (`<id>#<attempt>`); a plan makes the first attempt fail at its nth write. */
const puts = new Map<string, number>();
const failFirstAttemptAtPut = new Map<string, number>();
const putsOf = (workflowId: string, attempt: number) => puts.get(`${workflowId}#${attempt}`) ?? 0;

function watchedBlobs(store: LocalBlobStore): BlobStore {
  const watched = Object.create(store) as LocalBlobStore;
  watched.put = async (bytes: Buffer) => {
    const at = attemptOf();
    if (at) {
      const key = `${at.workflowId}#${at.attempt}`;
      const n = (puts.get(key) ?? 0) + 1;
      puts.set(key, n);
      if (at.attempt === 1 && failFirstAttemptAtPut.get(at.workflowId) === n) throw new Error('the worker was lost (simulated)');
    }
    return store.put(bytes);
  };
  return watched;
}

/** How each activity attempt ended, by workflow id. */
const reads = new Map<string, { attempt: number; ms: number; ended: string }[]>();
const applies = new Map<string, { attempt: number; ended: string; cancelDelivered: boolean }[]>();
const applyStarted = new Set<string>();
const applyCancelled = new Set<string>();
const indexed: string[] = [];
const endedAs = (error: unknown) => (error instanceof CancelledFailure ? 'cancelled' : `failed: ${(error as Error).message}`);

beforeAll(async () => {
  t = await startTestApp();
  org = await createTestOrg(t, 'Import workflow org');
  fx = await startImportFixtures();
  blobDir = mkdtempSync(join(tmpdir(), 'import-workflow-blobs-'));
  const box = secretBox(Buffer.alloc(32, 9));
  const real = contentImportActivities(t.orm, {
    blobs: watchedBlobs(new LocalBlobStore(blobDir)),
    policy: fetchPolicyFromEnv({ FETCH_ALLOW_HOSTS: '127.0.0.1' }),
    limits: loadConfig({}).contentImport,
    secrets: async () => box,
  });
  const index = searchIndexActivities(t.orm);
  const activities = {
    async readContentImport(input: ContentImportInput) {
      const { workflowId, attempt } = attemptOf()!;
      const started = Date.now();
      const record = (ended: string) =>
        reads.set(workflowId, [...(reads.get(workflowId) ?? []), { attempt, ms: Date.now() - started, ended }]);
      try {
        const outcome = await real.readContentImport(input);
        record(outcome.status);
        return outcome;
      } catch (error) {
        record(endedAs(error));
        throw error;
      }
    },
    async applyContentImport(input: ContentImportInput & { bundle: string }) {
      const { workflowId, attempt } = attemptOf()!;
      const signal = Context.current().cancellationSignal;
      signal.addEventListener('abort', () => applyCancelled.add(workflowId), { once: true });
      applyStarted.add(workflowId);
      const record = (ended: string) =>
        applies.set(workflowId, [...(applies.get(workflowId) ?? []), { attempt, ended, cancelDelivered: signal.aborted }]);
      try {
        const outcome = await real.applyContentImport(input);
        record(outcome.status);
        return outcome;
      } catch (error) {
        record(endedAs(error));
        throw error;
      }
    },
    async indexSpaceSearch(spaceId: string) {
      indexed.push(spaceId);
      return index.indexSpaceSearch(spaceId);
    },
  };
  w = await startWorkflowWorker('content-import', 'content-import.ts', activities);

  const page = (title: string, body: string, delayMs: number) => ({
    type: 'text/html',
    body: `<html><body><main><h1>${title}</h1>${body}</main></body></html>`,
    delayMs,
  });
  const site = (name: string, count: number, delayMs: number) => {
    const links = Array.from({ length: count }, (_, i) => `<a href="p${i + 1}.html">p${i + 1}</a>`).join(' ');
    fx.routes.set(`/${name}/`, page(`${name} start`, links, delayMs));
    for (let i = 1; i <= count; i++) fx.routes.set(`/${name}/p${i}.html`, page(`${name} page ${i}`, `<p>Text ${i}</p>`, delayMs));
  };
  site('resume', 6, 300);
  site('slow', 80, 400);
  fx.routes.set('/twice.zip', {
    type: 'application/zip',
    body: zipOf({ 'README.md': '# Twice\n\nOnly once. ![p](p.png)\n', 'p.png': PNG }),
  });
  fx.routes.set('/note.md', { type: 'text/markdown', body: '# Locked out\n\nNever written.\n' });
  fx.routes.set('/report.docx', {
    type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    body: docxOf({ title: 'Resumed report', paragraphs: ['Converted once', 'Second paragraph.'], image: PNG }),
  });
}, 180_000);
afterAll(async () => {
  await w?.stop();
  await fx?.close();
  await t?.close();
  if (blobDir) rmSync(blobDir, { recursive: true, force: true });
});

async function newSpace(): Promise<{ id: string; revision: string }> {
  const res = await org.members.admin.api.post(`/v1/orgs/${org.id}/spaces`, { title: 'Imports' });
  expect(res.status).toBe(201);
  return res.body;
}
const spaceRevision = async (spaceId: string) => (await org.members.admin.api.get(`/v1/spaces/${spaceId}`)).body.revision as string;
const revisionsOf = async (spaceId: string) =>
  db(forkEm(t.orm)).selectFrom('revision').select('id').where('space_id', '=', spaceId).execute();
const hitsOf = (path: string) => fx.hits.filter((h) => h === path).length;

function importInput(spaceId: string, source: ContentImportInput['source'], path: string): ContentImportInput {
  return { spaceId, changeRequestId: null, source, url: `${fx.base}${path}`, revisionId: newId(), userId: org.members.admin.userId };
}

/** Starts the workflow as the API does: a run of the same id that is running is joined, a finished one runs again. */
const start = (workflowId: string, input: ContentImportInput) =>
  w.client.workflow.start(contentImport, {
    taskQueue: w.taskQueue,
    workflowId,
    args: [input],
    workflowIdConflictPolicy: 'USE_EXISTING',
    workflowIdReusePolicy: 'ALLOW_DUPLICATE',
  });

async function cancelledFailure(result: Promise<ContentImportOutcome>): Promise<unknown> {
  const error = await result.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WorkflowFailedError);
  return (error as WorkflowFailedError).cause;
}

describe('content-import workflow', () => {
  it('writes an import delivered twice once, and starts one search-index job for its revision', async () => {
    const space = await newSpace();
    const input = importInput(space.id, 'zip', '/twice.zip');
    const workflowId = w.workflowId('twice');
    // Delivered twice while it runs: one run.
    const [a, b] = await Promise.all([start(workflowId, input), start(workflowId, input)]);
    expect(b.firstExecutionRunId).toBe(a.firstExecutionRunId);
    const outcome = await a.result();
    expect(outcome).toEqual({ status: 'imported', revision: input.revisionId, importedResources: 2, totalResources: 2 });
    const indexJob = w.client.workflow.getHandle(searchIndexWorkflowId(space.id, input.revisionId));
    expect(await indexJob.result()).toEqual({ changed: true });
    const indexRun = (await indexJob.describe()).runId;
    expect(await searchIndexIsCurrent(forkEm(t.orm), space.id)).toBe(true);

    // Delivered again once it has finished: a new run, answered from the revision already written.
    const c = await start(workflowId, input);
    expect(c.firstExecutionRunId).not.toBe(a.firstExecutionRunId);
    expect(await c.result()).toEqual(outcome);
    expect((await revisionsOf(space.id)).map((r) => r.id).sort()).toEqual([space.revision, input.revisionId].sort());
    expect(await spaceRevision(space.id)).toBe(input.revisionId);
    expect(applies.get(workflowId)?.map((x) => x.ended)).toEqual(['imported', 'imported']);
    // The second run asked for the revision's index job again: the one that ran is the only one.
    expect((await indexJob.describe()).runId).toBe(indexRun);
    expect(indexed.filter((s) => s === space.id)).toHaveLength(1);
  });

  it('leaves the space as it was when cancelled while reading, and stops the read', async () => {
    const space = await newSpace();
    const input = importInput(space.id, 'website', '/slow/');
    const workflowId = w.workflowId('cancel-read');
    const handle = await start(workflowId, input);
    await eventually(async () => fx.hits.includes('/slow/p2.html'), 60_000, 50);
    await handle.cancel();
    expect(await cancelledFailure(handle.result())).toBeInstanceOf(CancelledFailure);
    // The read learns of it with its next heartbeat and stops there, long before the crawl would end.
    const [read] = await eventually(async () => reads.get(workflowId), 60_000, 100);
    expect(read.ended).toBe('cancelled');
    const fetched = fx.hits.filter((h) => /^\/slow\/p\d+\.html$/.test(h)).length;
    expect(fetched).toBeLessThan(80);
    expect(await spaceRevision(space.id)).toBe(space.revision);
    expect(await revisionsOf(space.id)).toHaveLength(1);
    expect(applyStarted.has(workflowId)).toBe(false);
  }, 120_000);

  it('leaves the space as it was when cancelled while writing: the write rolls back before its commit', async () => {
    const space = await newSpace();
    const input = importInput(space.id, 'markdown', '/note.md');
    const workflowId = w.workflowId('cancel-write');
    // The write waits for the space's row, which this transaction holds until the cancellation has reached the write.
    const locked = gate();
    const release = gate();
    const holder = transaction(forkEm(t.orm), async (tx) => {
      await sql`select id from space where id = ${space.id} for update`.execute(db(tx));
      locked.open();
      await release.opened;
    });
    await locked.opened;
    const handle = await start(workflowId, input);
    await eventually(async () => applyStarted.has(workflowId), 60_000, 50);
    await handle.cancel();
    await eventually(async () => applyCancelled.has(workflowId), 60_000, 100);
    release.open();
    await holder;
    // The workflow waits for the write to have rolled back before it reports the cancellation.
    expect(await cancelledFailure(handle.result())).toBeInstanceOf(CancelledFailure);
    expect(applies.get(workflowId)).toEqual([{ attempt: 1, ended: 'cancelled', cancelDelivered: true }]);
    expect(await spaceRevision(space.id)).toBe(space.revision);
    expect(await revisionsOf(space.id)).toHaveLength(1);
    expect(indexed).not.toContain(space.id);
  }, 120_000);

  it('resumes a crawl after a lost attempt: the pages it had fetched are not fetched again', async () => {
    const space = await newSpace();
    const input = importInput(space.id, 'website', '/resume/');
    const workflowId = w.workflowId('resume-crawl');
    // The first attempt stores the start page and pages 1 and 2, then is lost storing page 3.
    failFirstAttemptAtPut.set(workflowId, 4);
    const outcome = await (await start(workflowId, input)).result();
    expect(outcome).toMatchObject({ status: 'imported', importedResources: 7, totalResources: 7 });
    expect(await w.client.workflow.getHandle(searchIndexWorkflowId(space.id, input.revisionId)).result()).toEqual({ changed: true });
    const attempts = reads.get(workflowId)!;
    expect(attempts.map((a) => [a.attempt, a.ended])).toEqual([
      [1, 'failed: the worker was lost (simulated)'],
      [2, 'read'],
    ]);
    // The start page is fetched again (to check it is unchanged); pages 1 and 2 come from the store.
    expect(hitsOf('/resume/')).toBe(2);
    expect([1, 2, 3, 4, 5, 6].map((i) => hitsOf(`/resume/p${i}.html`))).toEqual([1, 1, 2, 1, 1, 1]);
    const pages = await org.members.admin.api.get(`/v1/spaces/${space.id}/content/pages`);
    expect(pages.body.pages.map((p: { title: string }) => p.title)).toEqual([
      'resume start',
      'resume page 1',
      'resume page 2',
      'resume page 3',
      'resume page 4',
      'resume page 5',
      'resume page 6',
    ]);
    // What the resumed attempt saved: 2 of 7 page fetches (300 ms each here).
    console.log(
      `crawl of 7 pages, 300 ms each: lost attempt ${attempts[0].ms} ms (3 pages stored), resumed attempt ${attempts[1].ms} ms ` +
        `(start page checked, 4 pages fetched); an attempt from scratch fetches 7`,
    );
  }, 120_000);

  it('resumes a .docx read after a lost attempt: the document is not converted nor its image stored again', async () => {
    const space = await newSpace();
    const input = importInput(space.id, 'docx', '/report.docx');
    const workflowId = w.workflowId('resume-docx');
    // The first attempt stores the converted document and its image, then is lost storing the bundle.
    failFirstAttemptAtPut.set(workflowId, 3);
    const outcome = await (await start(workflowId, input)).result();
    expect(outcome).toMatchObject({ status: 'imported', importedResources: 2, totalResources: 2 });
    expect(await w.client.workflow.getHandle(searchIndexWorkflowId(space.id, input.revisionId)).result()).toEqual({ changed: true });
    const attempts = reads.get(workflowId)!;
    expect(attempts.map((a) => a.ended)).toEqual(['failed: the worker was lost (simulated)', 'read']);
    // The second attempt downloads the document again (to check it is the same) and writes the bundle only.
    expect(hitsOf('/report.docx')).toBe(2);
    expect(putsOf(workflowId, 2)).toBe(1);
    const [page] = (await org.members.admin.api.get(`/v1/spaces/${space.id}/content/pages`)).body.pages;
    expect(page.title).toBe('Resumed report');
    expect(page.markdown).toMatch(/!\[A dot\]\(gitbook:\/\/file\/\w+\)/);
    console.log(`docx read: lost attempt ${attempts[0].ms} ms (converted), resumed attempt ${attempts[1].ms} ms (conversion skipped)`);
  }, 120_000);
});

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { contentImportActivities, type ContentImportInput } from '../../src/activities/content-import.ts';
import { loadConfig } from '../../src/config.ts';
import { newId } from '../../src/domain/ids.ts';
import { LocalBlobStore } from '../../src/lib/blob-store.ts';
import { fetchPolicyFromEnv } from '../../src/lib/guarded-fetch.ts';
import { secretBox } from '../../src/lib/secrets.ts';
import { contentImportWorkflowId } from '../../src/temporal/content-import.ts';
import { createTestOrg, eventually, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { docxOf, startImportFixtures, type ImportFixtures } from '../support/import-fixtures.ts';
import { bombEntry, docxBomb, overlappingZip, rawZip, smallDocx, storedEntry } from '../support/zip-bombs.ts';

/**
 * Hostile content, as an adversarial probe sent it: a 200 MiB .docx in a few hundred KB that took
 * the worker to 4.5 GB and "heap out of memory" (and again on every retry), zips whose headers
 * lie about sizes, a YAML spec whose aliases multiply a 500 KB string 400 times, and HTML whose
 * links run `javascript:`, `vbscript:` and `data:`. Each import or spec ends failed for good with
 * a clear code after one attempt, and the worker (a process of this test's own, on its own task
 * queue, so its memory can be read) lives on and does the next job.
 */
const MiB = 1024 * 1024;
const queue = `hostile-content-${newId(8)}`;
let worker: ChildProcess;
let t: TestApp;
let org: TestOrg;
let fx: ImportFixtures;
let blobDir: string;

beforeAll(async () => {
  worker = spawn(process.execPath, ['src/worker.ts'], {
    env: { ...process.env, TEMPORAL_TASK_QUEUE: queue, LOG_LEVEL: 'warn' },
    stdio: 'ignore',
  });
  t = await startTestApp({ TEMPORAL_TASK_QUEUE: queue, CONTENT_IMPORT_WAIT: '300s' });
  org = await createTestOrg(t, 'Hostile content org');
  fx = await startImportFixtures();
  const docxType = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
  fx.routes.set('/bomb.docx', { type: docxType, body: docxBomb(200) });
  fx.routes.set('/lying.docx', { type: docxType, body: docxBomb(80, { declaredSize: 4096 }) });
  fx.routes.set('/heavy.docx', { type: docxType, body: docxBomb(3) });
  fx.routes.set('/report.docx', { type: docxType, body: docxOf({ title: 'After the bomb', paragraphs: ['Still here.'] }) });
  fx.routes.set('/small.docx', { type: docxType, body: smallDocx('Small and honest') });
  fx.routes.set('/lying.zip', {
    type: 'application/zip',
    // A README, then an entry whose headers say 100 bytes: it inflates to 200 MiB.
    body: rawZip([storedEntry('README.md', '# Home\n'), { ...bombEntry('notes.md', Buffer.alloc(MiB, 'a'), 200), declaredSize: 100 }]),
  });
  fx.routes.set('/overlap.zip', { type: 'application/zip', body: overlappingZip(bombEntry('page.md', Buffer.alloc(MiB, 'b'), 1), 1000) });
  fx.routes.set('/links.html', {
    type: 'text/html',
    body:
      '<html><head><title>Links</title></head><body><main><h1>Links</h1><p>' +
      '<a href="javascript:alert(document.cookie)">js link</a> <a href="java&#x09;script:alert(1)">tabbed js</a> ' +
      '<a href="vbscript:msgbox(1)">vb link</a> <a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">data link</a> ' +
      '<img src="data:image/svg+xml,&lt;svg onload=alert(1)&gt;" alt="svg"> <video src="javascript:alert(2)">clip</video> ' +
      '<a href="https://example.com/ok">safe link</a> <a href="mailto:team@example.com">mail</a> <a href="#top">top</a>' +
      '</p></main></body></html>',
  });
  blobDir = mkdtempSync(join(tmpdir(), 'hostile-blobs-'));
}, 120_000);

afterAll(async () => {
  if (worker && worker.exitCode === null && worker.signalCode === null) {
    worker.kill('SIGTERM');
    await new Promise((resolve) => worker.once('exit', resolve));
  }
  await fx?.close();
  await t?.close();
  if (blobDir) rmSync(blobDir, { recursive: true, force: true });
});

const admin = () => org.members.admin.api;

async function newSpace(title: string) {
  const res = await admin().post(`/v1/orgs/${org.id}/spaces`, { title });
  expect(res.status).toBe(201);
  return res.body as { id: string; revision: string };
}

/** Peak resident memory of the worker process so far (VmHWM), in MiB. */
function workerPeakMb(): number {
  const status = readFileSync(`/proc/${worker.pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)![1]) / 1024;
}

/** Attempts of each activity of a workflow run, from its history (ActivityTaskStarted carries the attempt). */
async function activityAttempts(workflowId: string): Promise<Record<string, number[]>> {
  const history = await t.temporal.workflow.getHandle(workflowId).fetchHistory();
  const names = new Map<string, string>();
  const attempts: Record<string, number[]> = {};
  for (const event of history.events ?? []) {
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (scheduled) names.set(String(event.eventId), scheduled.activityType?.name ?? '?');
    const started = event.activityTaskStartedEventAttributes;
    if (started) {
      const name = names.get(String(started.scheduledEventId)) ?? '?';
      (attempts[name] ??= []).push(started.attempt ?? 0);
    }
  }
  return attempts;
}

function directActivities(parse?: { heapMb?: number; docxHeapMb?: number; timeoutMs?: number }) {
  const box = secretBox(Buffer.alloc(32, 9));
  return contentImportActivities(t.orm, {
    blobs: new LocalBlobStore(blobDir),
    policy: fetchPolicyFromEnv({ FETCH_ALLOW_HOSTS: '127.0.0.1' }),
    limits: loadConfig({}).contentImport,
    secrets: async () => box,
    ...(parse ? { parse } : {}),
  });
}

const importInput = (spaceId: string, source: ContentImportInput['source'], path: string): ContentImportInput => ({
  spaceId,
  changeRequestId: null,
  source,
  url: `${fx.base}${path}`,
  revisionId: newId(),
  userId: org.members.admin.userId,
});

describe('a .docx bomb imported through the API and the worker', () => {
  it('fails for good with TOO_LARGE after one attempt; the worker stays small and imports the next document', async () => {
    const space = await newSpace('Bombed');
    // A first, honest import: the worker is up and warm (bundling the workflows is its own peak).
    const first = await admin().post(`/v1/spaces/${space.id}/content/import`, { source: 'docx', url: `${fx.base}/small.docx` });
    expect(first.status).toBe(201);
    const before = (await admin().get(`/v1/spaces/${space.id}`)).body.revision;
    const peakBefore = workerPeakMb();

    const bomb = fx.routes.get('/bomb.docx')!.body as Uint8Array;
    expect(bomb.byteLength).toBeLessThan(1 * MiB);
    const url = `${fx.base}/bomb.docx`;
    const started = Date.now();
    const res = await admin().post(`/v1/spaces/${space.id}/content/import`, { source: 'docx', url });
    const elapsed = Date.now() - started;
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/\(TOO_LARGE\): The document unpacks to more than 52428800 bytes/);

    // The outcome is recorded on the import's workflow, which read once and wrote nothing.
    const workflowId = contentImportWorkflowId({ spaceId: space.id, changeRequestId: null, source: 'docx', url });
    expect(await t.temporal.workflow.getHandle(workflowId).result()).toEqual({
      status: 'failed',
      code: 'TOO_LARGE',
      message: expect.stringMatching(/unpacks to more than/),
    });
    expect(await activityAttempts(workflowId)).toEqual({ readContentImport: [1] });
    expect((await admin().get(`/v1/spaces/${space.id}`)).body.revision).toBe(before);

    // The worker process is alive and never came near the 4.5 GB the bomb used to take it to.
    expect(worker.exitCode).toBeNull();
    const peak = workerPeakMb();
    console.log(
      `docx bomb (${bomb.byteLength} bytes, 200 MiB of XML): refused in ${elapsed} ms; ` +
        `worker peak RSS ${Math.round(peakBefore)} MiB before, ${Math.round(peak)} MiB after`,
    );
    expect(peak - peakBefore).toBeLessThan(256);

    // …and imports the next document.
    const next = await admin().post(`/v1/spaces/${space.id}/content/import`, { source: 'docx', url: `${fx.base}/report.docx` });
    expect(next.status).toBe(201);
    const tree = (await admin().get(`/v1/spaces/${space.id}/content/pages`)).body.pages;
    expect(tree.map((p: { title: string }) => p.title)).toContain('After the bomb');
  });

  it('keeps only http(s), mailto, relative and fragment links of an HTML page', async () => {
    const space = await newSpace('Links');
    const res = await admin().post(`/v1/spaces/${space.id}/content/import`, { source: 'html', url: `${fx.base}/links.html` });
    expect(res.status).toBe(201);
    const [page] = (await admin().get(`/v1/spaces/${space.id}/content/pages`)).body.pages;
    expect(page.title).toBe('Links');
    for (const text of ['js link', 'tabbed js', 'vb link', 'data link', 'clip']) expect(page.markdown).toContain(text);
    expect(page.markdown).not.toMatch(/javascript|vbscript|data:|svg|alert/i);
    expect(page.markdown).toContain('[safe link](https://example.com/ok)');
    expect(page.markdown).toContain('[mail](mailto:team@example.com)');
    expect(page.markdown).toContain('[top](#top)');
  });
});

describe('an OpenAPI spec whose YAML aliases multiply one string', () => {
  const fine = 'openapi: 3.0.3\ninfo: {title: Fine, version: "1"}\npaths: {}\n';

  async function processedSpec(slug: string, text: string) {
    const created = await admin().post(`/v1/orgs/${org.id}/openapi`, { slug, source: { text } });
    expect(created.status).toBe(201);
    const spec = await eventually(async () => {
      const res = await admin().get(`/v1/orgs/${org.id}/openapi/${slug}`);
      return res.body.processingState === 'complete' && res.body.lastProcessedAt ? res.body : undefined;
    }, 120_000);
    return { id: created.body.id as string, spec };
  }

  it('fails with PARSE_ERROR / SYNTAX_ERROR after one attempt, and the next spec processes', async () => {
    expect((await processedSpec('before-bomb', fine)).spec.lastProcessErrorCode).toBeUndefined();
    const peakBefore = workerPeakMb();
    // 500 KB of text, 200 MB once expanded (the probe: 250 KB took the worker from 0.49 to 4.08 GB).
    const text = `openapi: 3.0.3\ninfo:\n  title: &big "${'x'.repeat(500_000)}"\n  version: "1"\npaths: {}\nx-copies:\n${'  - *big\n'.repeat(400)}`;
    const { id, spec } = await processedSpec('alias-bomb', text);
    expect(spec.lastProcessErrorCode).toBe('PARSE_ERROR');
    expect(spec.lastVersion).toBeUndefined();
    expect(spec.lastProcessedErrors).toEqual([
      { code: 'SYNTAX_ERROR', message: expect.stringMatching(/^The spec text expands to more than 16 MiB through its YAML aliases/) },
    ]);
    const runs: string[] = [];
    for await (const run of t.temporal.workflow.list({ query: `WorkflowId STARTS_WITH "openapi-processing/${id}/"` }))
      runs.push(run.workflowId);
    expect(runs).toHaveLength(1);
    expect((await activityAttempts(runs[0])).fetchOpenApiSpec).toEqual([1]);
    expect(worker.exitCode).toBeNull();
    console.log(`alias bomb: worker peak RSS ${Math.round(peakBefore)} MiB before, ${Math.round(workerPeakMb())} MiB after`);
    expect(workerPeakMb() - peakBefore).toBeLessThan(256);

    const after = (await processedSpec('after-bomb', fine)).spec;
    expect(after.lastProcessErrorCode).toBeUndefined();
    expect(after.lastVersion).toBeDefined();
  });
});

describe('hostile archives read by the import activity', () => {
  it('counts zip entries by what they inflate to, not by what their headers say', async () => {
    const space = await newSpace('Archives');
    const activities = directActivities();
    const lying = await activities.readContentImport(importInput(space.id, 'zip', '/lying.zip'));
    expect(lying).toEqual({ status: 'failed', code: 'TOO_LARGE', message: 'The archive unpacks to more than 52428800 bytes' });
    const overlap = await activities.readContentImport(importInput(space.id, 'zip', '/overlap.zip'));
    expect(overlap).toMatchObject({ status: 'failed', code: 'TOO_LARGE' });
    const lyingDocx = await activities.readContentImport(importInput(space.id, 'docx', '/lying.docx'));
    expect(lyingDocx).toMatchObject({ status: 'failed', code: 'TOO_LARGE' });
    // An honest document still converts.
    const small = await activities.readContentImport(importInput(space.id, 'docx', '/small.docx'));
    expect(small).toMatchObject({ status: 'read', pages: 1 });
  });

  it('turns a conversion that outgrows its thread (memory or time) into a failed import, not a crash or a retry', async () => {
    const space = await newSpace('Heavy');
    // 3 MiB of document XML is within the byte limits, but mammoth's tree of it needs some 350 MiB.
    const starved = await directActivities({ docxHeapMb: 64 }).readContentImport(importInput(space.id, 'docx', '/heavy.docx'));
    expect(starved).toEqual({
      status: 'failed',
      code: 'TOO_LARGE',
      message: 'The document needs more than the 64 MiB of memory reading it may use',
    });
    const slow = await directActivities({ timeoutMs: 2000 }).readContentImport(importInput(space.id, 'docx', '/heavy.docx'));
    expect(slow).toEqual({ status: 'failed', code: 'PARSE_TIMEOUT', message: 'The document could not be read within 2 s' });
    const garbage = await directActivities().readContentImport({ ...importInput(space.id, 'docx', '/links.html') });
    expect(garbage).toMatchObject({ status: 'failed', code: 'INVALID_DOCX' });
  });
});

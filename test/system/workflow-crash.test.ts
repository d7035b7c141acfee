import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server as HttpServer, type ServerResponse } from 'node:http';
import { connect, createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { newId } from '../../src/domain/ids.ts';
import { changeRequestJobWorkflowId } from '../../src/temporal/change-request-merge.ts';
import { gitSyncWorkflowId } from '../../src/temporal/git-sync.ts';
import { pdfExportWorkflowId } from '../../src/temporal/pdf-export.ts';
import { contentPages, edit, merge, newChangeRequest, newSpace, PNG_1X1, searchCaughtUp, sql } from '../support/fixtures.ts';
import { startGitServer, type GitServer } from '../support/git-server.ts';
import { createTestOrg, eventually, startTestApp, type Response, type TestApp, type TestOrg } from '../support/harness.ts';
import { petstore30 } from '../support/openapi-fixtures.ts';

/**
 * A worker process killed (SIGKILL) while seven jobs are each in the middle of their activity,
 * then a new worker started: every job finishes once, with what the same job gives undisturbed
 * (run first in this file, on a twin input). The jobs: a git export (killed after its push,
 * before it recorded the push), a change-request merge and update (each killed once after its
 * transaction committed but before Temporal heard of it, and once mid-transaction), a PDF export
 * (killed after printing, while recording) and OpenAPI processing (killed while fetching).
 *
 * Each activity is held at its point deterministically: by a row lock (or a conflicting
 * uncommitted row) that a connection of the test holds, or by a fixture server that holds its
 * answer. "After the commit" uses a relay between the worker and Temporal that the test freezes:
 * the activity commits, its completion never reaches Temporal, and the worker dies.
 *
 * One kill for all seven keeps the file short: a worker process bundles the workflow code as it
 * starts (10-60 s on a loaded machine), and Temporal notices a dead worker's activity only after
 * its heartbeat timeout (20-30 s). The workers run on a task queue of this file's own.
 */

const queue = `crash-${newId(8).toLowerCase()}`;
let t: TestApp;
let org: TestOrg;
let git: GitServer;
let specs: SpecServer;
const admin = () => org.members.admin.api;

// ---------------------------------------------------------------------------------------------
// Worker processes, each reaching Temporal through a relay of its own that the test can freeze.

interface Relay {
  address: string;
  /** From now on nothing passes, either way (the worker's calls to Temporal are lost). */
  freeze(): void;
  close(): void;
}

async function startRelay(target: string): Promise<Relay> {
  const colon = target.lastIndexOf(':');
  const host = target.slice(0, colon);
  const port = Number(target.slice(colon + 1));
  let frozen = false;
  const sockets = new Set<Socket>();
  const server = createTcpServer((inbound) => {
    const outbound = connect(port, host);
    for (const [from, to] of [
      [inbound, outbound],
      [outbound, inbound],
    ]) {
      sockets.add(from);
      from.on('data', (chunk) => {
        if (!frozen) to.write(chunk);
      });
      from.on('error', () => undefined);
      from.on('close', () => {
        sockets.delete(from);
        to.destroy();
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    freeze: () => void (frozen = true),
    close: () => {
      server.close();
      for (const socket of sockets) socket.destroy();
    },
  };
}

interface WorkerProcess {
  child: ChildProcess;
  /** The SDK's default worker identity, as Temporal records it on the activities the worker runs. */
  identity: string;
  relay: Relay;
}
const workers: WorkerProcess[] = [];

async function startWorker(): Promise<WorkerProcess> {
  const relay = await startRelay(process.env.TEMPORAL_ADDRESS!);
  const child = spawn(process.execPath, ['src/worker.ts'], {
    // A held fetch must outlast the holding: the suite's 2 s fetch deadline is for other tests.
    env: { ...process.env, TEMPORAL_TASK_QUEUE: queue, TEMPORAL_ADDRESS: relay.address, LOG_LEVEL: 'warn', FETCH_TIMEOUT: '5m' },
    stdio: 'ignore',
  });
  const worker = { child, identity: `${child.pid}@${hostname()}`, relay };
  workers.push(worker);
  return worker;
}

async function kill(worker: WorkerProcess): Promise<void> {
  const exited = once(worker.child, 'exit');
  worker.child.kill('SIGKILL');
  await exited;
  worker.relay.close();
}

// ---------------------------------------------------------------------------------------------
// Holding an activity: a lock of the test's own connection, or an answer the fixture server keeps.

interface Hold {
  /** The backend holding it (whoever waits for it lists it in pg_blocking_pids). */
  pid: number;
  /** Rolls the holding transaction back. */
  release(): Promise<void>;
}
const holds: Hold[] = [];

async function hold(statement: string, params: unknown[]): Promise<Hold> {
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  await client.query('begin');
  const pid: number = (await client.query('select pg_backend_pid() as pid')).rows[0].pid;
  await client.query(statement, params);
  let released = false;
  const held = {
    pid,
    release: async () => {
      if (released) return;
      released = true;
      await client.query('rollback');
      await client.end();
    },
  };
  holds.push(held);
  return held;
}

/** Waits until a statement of another session (the job's activity) waits for the hold. */
async function blockedOn(held: Hold): Promise<void> {
  await eventually(
    async () => (await sql(t, 'select pid from pg_stat_activity where ? = any(pg_blocking_pids(pid))', [held.pid])).length > 0,
    180_000,
    100,
  );
}

/** Serves one OpenAPI document; while held, requests get no answer. */
interface SpecServer {
  url: string;
  hits: () => number;
  hold(): void;
  release(): void;
  close(): Promise<void>;
}

async function startSpecServer(): Promise<SpecServer> {
  let held = false;
  let hits = 0;
  const waiting = new Set<ServerResponse>();
  const server: HttpServer = createHttpServer((req, res) => {
    hits++;
    if (held) {
      waiting.add(res);
      res.on('close', () => waiting.delete(res));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(petstore30));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/crash/openapi.json`,
    hits: () => hits,
    hold: () => void (held = true),
    release: () => {
      held = false;
      for (const res of waiting) res.destroy();
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Temporal's view of a job.

interface Running {
  workflowId: string;
  runId: string;
  /** Identity of the worker running the activity's first attempt. */
  worker: string;
}

/** Waits until the first attempt of `activity` runs in the workflow (started on a worker). */
async function activityRunning(workflowId: string, activity: string): Promise<Running> {
  return eventually(
    async () => {
      const described = await t.temporal.workflow.getHandle(workflowId).describe();
      const pending = described.raw.pendingActivities?.find(
        (a) => a.activityType?.name === activity && Number(a.attempt) === 1 && a.lastStartedTime,
      );
      return pending ? { workflowId, runId: described.runId, worker: pending.lastWorkerIdentity ?? '' } : undefined;
    },
    180_000,
    100,
  );
}

/** How the run's `activity` went: times scheduled and completed, and the attempt and worker of the one that completed. */
async function activityHistory(running: Running, activity: string) {
  const events = (await t.temporal.workflow.getHandle(running.workflowId, running.runId).fetchHistory()).events ?? [];
  const scheduled = new Set(
    events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === activity).map((e) => String(e.eventId)),
  );
  const of = (id: unknown) => scheduled.has(String(id));
  const started = events.flatMap((e) => {
    const a = e.activityTaskStartedEventAttributes;
    return a && of(a.scheduledEventId) ? [{ attempt: a.attempt, worker: a.identity }] : [];
  });
  return {
    scheduled: scheduled.size,
    completed: events.filter((e) => of(e.activityTaskCompletedEventAttributes?.scheduledEventId)).length,
    started,
  };
}

/** What the retry on the new worker shows: one activity, completed by its second attempt there. */
async function expectRetriedOnce(running: Running, activity: string): Promise<void> {
  expect(running.worker).toBe(killed.identity);
  expect(await activityHistory(running, activity)).toEqual({
    scheduled: 1,
    completed: 1,
    started: [{ attempt: 2, worker: successor.identity }],
  });
}

/** The API's answer to a job request, asking again (which joins the same run, or reads its result) after a 503. */
async function answered(pending: Promise<Response>, again: () => Promise<Response>): Promise<Response> {
  let res = await pending;
  for (let i = 0; res.status === 503 && i < 5; i++) res = await again();
  return res;
}

// ---------------------------------------------------------------------------------------------
// Inputs: each job runs twice, on twins made alike (spaces of the same content, one repository each).

type PageOut = { title: string; slug: string; path: string; type: string; markdown?: string; pages: PageOut[] };
/** A page tree without ids (twins have different ones). */
const shape = (pages: PageOut[]): unknown[] =>
  pages.map((p) => ({ title: p.title, slug: p.slug, path: p.path, type: p.type, markdown: p.markdown, pages: shape(p.pages ?? []) }));

const changeRequests = async (spaceId: string) =>
  Number((await sql<{ n: string }>(t, 'select count(*) as n from change_request where space_id = ?', [spaceId]))[0].n);
const revisionsOfType = async (spaceId: string, type: string) =>
  Number((await sql<{ n: string }>(t, 'select count(*) as n from revision where space_id = ? and type = ?', [spaceId, type]))[0].n);

interface CrInput {
  spaceId: string;
  crId: string;
}

/** A space and a change request that adds a file and pages and edits the first page. */
async function mergeInput(): Promise<CrInput> {
  const space = await newSpace(admin(), org.id, { title: 'Merged' });
  const root = (await contentPages(admin(), space.id))[0];
  const cr = await newChangeRequest(admin(), space.id, 'Guide');
  await edit(admin(), space.id, cr.id, [
    { operation: 'insert_files', files: [{ name: 'dot.png', contentType: 'image/png', base64: PNG_1X1 }] },
    { operation: 'update_page', page: root.id, title: 'Welcome', document: { markdown: 'Welcome, see ![Dot](dot.png).\n' } },
    { operation: 'insert_page', ref: 'guide', title: 'Guide', document: { markdown: '# Guide\n\nHello world\n' } },
    { operation: 'insert_page', into: 'guide', title: 'Install', document: { markdown: 'Run the installer.\n' } },
  ]);
  return { spaceId: space.id, crId: cr.id };
}

/** A change request and its space that both changed one page since it was opened (other lines), the space also adding a page. */
async function updateInput(): Promise<CrInput> {
  const space = await newSpace(admin(), org.id, { title: 'Updated' });
  const root = (await contentPages(admin(), space.id))[0];
  const setup = await newChangeRequest(admin(), space.id, 'Setup');
  await edit(admin(), space.id, setup.id, [
    { operation: 'update_page', page: root.id, document: { markdown: 'one\ntwo\nthree\nfour\nfive\n' } },
  ]);
  await merge(admin(), space.id, setup.id);
  const mine = await newChangeRequest(admin(), space.id, 'Mine');
  const main = await newChangeRequest(admin(), space.id, 'Main');
  await edit(admin(), space.id, mine.id, [
    { operation: 'update_page', page: root.id, document: { markdown: 'ONE\ntwo\nthree\nfour\nfive\n' } },
  ]);
  await edit(admin(), space.id, main.id, [
    { operation: 'update_page', page: root.id, document: { markdown: 'one\ntwo\nthree\nfour\nFIVE\n' } },
    { operation: 'insert_page', title: 'From main', document: { markdown: 'Merged first.\n' } },
  ]);
  await merge(admin(), space.id, main.id);
  return { spaceId: space.id, crId: mine.id };
}

interface PdfInput extends CrInput {
  revisionId: string;
}

async function pdfInput(): Promise<PdfInput> {
  const space = await newSpace(admin(), org.id, { title: 'Handbook' });
  const root = (await contentPages(admin(), space.id))[0];
  const cr = await newChangeRequest(admin(), space.id, 'Release notes');
  await edit(admin(), space.id, cr.id, [
    { operation: 'update_page', page: root.id, title: 'Overview', document: { markdown: 'What changed in this release.\n' } },
    { operation: 'insert_page', title: 'Upgrading', document: { markdown: '## Steps\n\n1. Stop\n2. Upgrade\n3. Start\n' } },
  ]);
  const revisionId = (await admin().get(`/v1/spaces/${space.id}/change-requests/${cr.id}`)).body.revision;
  return { spaceId: space.id, crId: cr.id, revisionId };
}
const pdfPath = (p: PdfInput) => `/v1/spaces/${p.spaceId}/change-requests/${p.crId}/pdf`;

interface GitInput {
  spaceId: string;
  repo: string;
}

/** A space with some content, and a repository with one commit to export it onto. */
async function gitInput(repo: string): Promise<GitInput> {
  const { spaceId, crId } = await mergeInput();
  await merge(admin(), spaceId, crId);
  git.commit(repo, { 'README.md': '# Before\n' }, { message: 'Start', date: '2026-01-01T00:00:00Z' });
  return { spaceId, repo };
}
const exportBody = (g: GitInput) => ({ url: git.url(g.repo), ref: 'refs/heads/main', commitMessage: 'Export from docs' });
const exportRequests = (spaceId: string) =>
  sql<{ state: string; commit: string | null }>(t, 'select state, commit from git_sync_request where space_id = ?', [spaceId]);
const commitCount = (repo: string) =>
  Number(execFileSync('git', ['rev-list', '--count', 'refs/heads/main'], { cwd: join(git.root, `${repo}.git`) }).toString());

// ---------------------------------------------------------------------------------------------

type CrKind = 'merge' | 'update';
/** Where the worker dies: after the activity's transaction committed (before Temporal heard of it), or in it. */
type CrPoint = 'after its commit' | 'mid-transaction';
const CR_CASES: [CrKind, CrPoint][] = [
  ['merge', 'after its commit'],
  ['merge', 'mid-transaction'],
  ['update', 'after its commit'],
  ['update', 'mid-transaction'],
];
interface CrCase {
  kind: CrKind;
  point: CrPoint;
  input: CrInput;
  answer: Promise<Response>;
  running: Running;
  /** The change request's revision (merge: its merge revision) as the killed attempt committed it. */
  committed?: string;
}

/** The worker killed, and the one started after it. */
let killed: WorkerProcess;
let successor: WorkerProcess;
let scratch: string;
const reference = {} as {
  merge: { input: CrInput; answer: Response };
  update: { input: CrInput; answer: Response };
  pdf: { input: PdfInput; url: string };
  git: { input: GitInput; state: string };
  openapi: { slug: string };
};
const crCases: CrCase[] = [];
let pdfCase: { input: PdfInput; answer: Promise<Response>; running: Running };
let gitCase: { input: GitInput; running: Running; pushed: string };
let openapiCase: { slug: string; running: Running; hitsBefore: number };

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'workflow-crash-'));
  t = await startTestApp({ TEMPORAL_TASK_QUEUE: queue });
  killed = await startWorker();
  org = await createTestOrg(t, 'Crash org');
  git = await startGitServer();
  specs = await startSpecServer();

  // Twin inputs (the merges of the setup wait for the first worker to have bundled its workflows).
  const [mergeRef, updateRef, pdfRef, pdfCrash, gitRef, gitCrash, ...crInputs] = await Promise.all([
    mergeInput(),
    updateInput(),
    pdfInput(),
    pdfInput(),
    gitInput('export-reference'),
    gitInput('export-crash'),
    ...CR_CASES.map(([kind]) => (kind === 'merge' ? mergeInput() : updateInput())),
  ]);

  // Each job undisturbed.
  const crPath = (kind: CrKind, input: CrInput) => `/v1/spaces/${input.spaceId}/change-requests/${input.crId}/${kind}`;
  const [mergeAnswer, updateAnswer, pdfAnswer] = await Promise.all([
    admin().post(crPath('merge', mergeRef)),
    admin().post(crPath('update', updateRef)),
    admin().get(pdfPath(pdfRef)),
    admin()
      .post(`/v1/spaces/${gitRef.spaceId}/git/export`, exportBody(gitRef))
      .then((res) => expect(res.status).toBe(204)),
    admin()
      .post(`/v1/orgs/${org.id}/openapi`, { slug: 'crash-reference', source: { url: specs.url } })
      .then((res) => expect(res.status).toBe(201)),
  ]);
  reference.merge = { input: mergeRef, answer: mergeAnswer };
  reference.update = { input: updateRef, answer: updateAnswer };
  expect(pdfAnswer.status).toBe(200);
  reference.pdf = { input: pdfRef, url: pdfAnswer.body.url };
  const [gitDone] = await eventually(async () => {
    const rows = await exportRequests(gitRef.spaceId);
    return rows.length === 1 && rows[0].state !== 'queued' ? rows : undefined;
  }, 120_000);
  reference.git = { input: gitRef, state: gitDone.state };
  await eventually(
    async () => (await admin().get(`/v1/orgs/${org.id}/openapi/crash-reference`)).body.processingState === 'complete',
    120_000,
  );
  reference.openapi = { slug: 'crash-reference' };

  // Every job again, each held in its activity on the first worker.
  const holdCr = async ([kind, point]: [CrKind, CrPoint], input: CrInput): Promise<{ c: CrCase; lock: Hold }> => {
    // After the commit: held before its first statement (the space's lock), let go once the relay is frozen.
    // Mid-transaction: the activity holds the space's lock and waits for the change request's.
    const lock =
      point === 'after its commit'
        ? await hold('select 1 from space where id = $1 for no key update', [input.spaceId])
        : await hold('select 1 from change_request where id = $1 for no key update', [input.crId]);
    const answer = admin().post(crPath(kind, input));
    await blockedOn(lock);
    const running = await activityRunning(
      changeRequestJobWorkflowId(kind, input.spaceId, input.crId),
      kind === 'merge' ? 'mergeChangeRequest' : 'updateChangeRequest',
    );
    return { c: { kind, point, input, answer, running }, lock };
  };

  const holdPdf = async () => {
    // An uncommitted row of the same key: the activity prints and stores the PDF, then waits to record it.
    const lock = await hold(
      `insert into pdf_export (space_id, change_request_id, revision_id, only_page, page_id, sha256, size, page_count, created_at)
       values ($1, $2, $3, false, '', $4, 0, 0, now())`,
      [pdfCrash.spaceId, pdfCrash.crId, pdfCrash.revisionId, '0'.repeat(64)],
    );
    const answer = admin().get(pdfPath(pdfCrash));
    await blockedOn(lock);
    const running = await activityRunning(
      pdfExportWorkflowId({
        spaceId: pdfCrash.spaceId,
        changeRequestId: pdfCrash.crId,
        revisionId: pdfCrash.revisionId,
        pageId: null,
        only: false,
      }),
      'exportChangeRequestPdf',
    );
    pdfCase = { input: pdfCrash, answer, running };
    return lock;
  };

  const holdGit = async () => {
    // First held before it fetches (the space's lock), so the sync row can be locked in time;
    // then let go: it fetches, commits, pushes, and waits for the sync row to record the push.
    const spaceLock = await hold('select 1 from space where id = $1 for no key update', [gitCrash.spaceId]);
    const before = git.head(gitCrash.repo);
    expect((await admin().post(`/v1/spaces/${gitCrash.spaceId}/git/export`, exportBody(gitCrash))).status).toBe(204);
    await blockedOn(spaceLock);
    const running = await activityRunning(gitSyncWorkflowId(gitCrash.spaceId), 'runGitSyncRequest');
    const syncLock = await hold('select 1 from git_sync where space_id = $1 for no key update', [gitCrash.spaceId]);
    await spaceLock.release();
    await blockedOn(syncLock);
    const pushed = git.head(gitCrash.repo);
    expect(pushed).not.toBe(before);
    gitCase = { input: gitCrash, running, pushed };
    return syncLock;
  };

  const holdOpenApi = async () => {
    specs.hold();
    const hitsBefore = specs.hits();
    const created = await admin().post(`/v1/orgs/${org.id}/openapi`, { slug: 'crash', source: { url: specs.url } });
    expect(created.status).toBe(201);
    await eventually(async () => specs.hits() > hitsBefore, 180_000, 100);
    const workflowId = await eventually(async () => {
      for await (const run of t.temporal.workflow.list({ query: `WorkflowId STARTS_WITH "openapi-processing/${created.body.id}/"` }))
        return run.workflowId;
      return undefined;
    }, 60_000);
    openapiCase = { slug: 'crash', running: await activityRunning(workflowId, 'fetchOpenApiSpec'), hitsBefore };
  };

  const [crHeld, pdfLock, gitLock] = await Promise.all([
    Promise.all(CR_CASES.map((k, i) => holdCr(k, crInputs[i]))),
    holdPdf(),
    holdGit(),
    holdOpenApi(),
  ]);
  crCases.push(...crHeld.map((h) => h.c));

  // All seven run on the first worker. The second one starts now (it bundles meanwhile); it finds
  // nothing to do until Temporal gives up on the first worker's activities.
  successor = await startWorker();

  // Freeze the first worker's line to Temporal, and let the "after the commit" jobs commit.
  killed.relay.freeze();
  await Promise.all(
    crHeld
      .filter((h) => h.c.point === 'after its commit')
      .map(async ({ c, lock }) => {
        await lock.release();
        const [row] = await eventually(async () => {
          const rows = await sql<{
            status: string;
            revision_id: string;
            revision_merged: string | null;
            revision_merged_ancestor: string | null;
          }>(t, 'select status, revision_id, revision_merged, revision_merged_ancestor from change_request where id = ?', [c.input.crId]);
          return (c.kind === 'merge' ? rows[0].status === 'merged' : rows[0].revision_merged_ancestor !== null) ? rows : undefined;
        }, 60_000);
        c.committed = c.kind === 'merge' ? row.revision_merged! : row.revision_id;
      }),
  );
  await kill(killed);
  // The killed worker's sessions waiting on these locks now go on alone: those inside a transaction
  // roll back once they read their dead connection; the PDF's single insert completes on its own.
  for (const h of [...crHeld.filter((h) => h.c.point === 'mid-transaction').map((h) => h.lock), pdfLock, gitLock]) await h.release();
  specs.release();
}, 420_000);

afterAll(async () => {
  specs?.release();
  for (const held of holds) await held.release().catch(() => undefined);
  for (const worker of workers) {
    if (worker.child.exitCode === null && worker.child.signalCode === null) await kill(worker);
    else worker.relay.close();
  }
  await specs?.close();
  await git?.close();
  await t?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe('a worker killed while jobs are in their activities', () => {
  it('git export killed after its push: recorded once, applied, with no second commit', async () => {
    const { input, running, pushed } = gitCase;
    const rows = await eventually(
      async () => {
        const found = await exportRequests(input.spaceId);
        return found.length === 1 && found[0].state !== 'queued' ? found : undefined;
      },
      180_000,
      500,
    );
    expect(reference.git.state).toBe('applied');
    expect(rows).toEqual([{ state: reference.git.state, commit: pushed }]);
    expect(git.head(input.repo)).toBe(pushed);
    expect(commitCount(input.repo)).toBe(commitCount(reference.git.input.repo));
    expect(git.read(input.repo)).toEqual(git.read(reference.git.input.repo));
    const info = (await admin().get(`/v1/spaces/${input.spaceId}/git/info`)).body;
    const referenceInfo = (await admin().get(`/v1/spaces/${reference.git.input.spaceId}/git/info`)).body;
    expect(info).toMatchObject({ status: referenceInfo.status, lastOperation: 'export', lastSyncedCommit: pushed });
    expect(await changeRequests(input.spaceId)).toBe(await changeRequests(reference.git.input.spaceId));
    await expectRetriedOnce(running, 'runGitSyncRequest');
  });

  it.each(CR_CASES)('change-request %s killed %s: one revision, the answer and content of an undisturbed run', async (kind, point) => {
    const c = crCases.find((x) => x.kind === kind && x.point === point)!;
    const ref = reference[kind];
    const path = `/v1/spaces/${c.input.spaceId}/change-requests/${c.input.crId}/${kind}`;
    const res = await answered(c.answer, () => admin().post(path));
    expect(res.status).toBe(200);
    expect(ref.answer.status).toBe(200);
    expect(res.body).toEqual({ result: ref.answer.body.result, revision: expect.any(String) });
    if (c.committed) expect(res.body.revision).toBe(c.committed);
    expect(await revisionsOfType(c.input.spaceId, kind)).toBe(1);
    expect(await revisionsOfType(ref.input.spaceId, kind)).toBe(1);
    expect(await changeRequests(c.input.spaceId)).toBe(await changeRequests(ref.input.spaceId));

    const cr = (await admin().get(`/v1/spaces/${c.input.spaceId}/change-requests/${c.input.crId}`)).body;
    const refCr = (await admin().get(`/v1/spaces/${ref.input.spaceId}/change-requests/${ref.input.crId}`)).body;
    expect(cr.status).toBe(refCr.status);
    if (kind === 'merge') {
      expect(cr.revisionMerged).toBe(res.body.revision);
      expect((await admin().get(`/v1/spaces/${c.input.spaceId}`)).body.revision).toBe(res.body.revision);
      expect(shape(await contentPages(admin(), c.input.spaceId))).toEqual(shape(await contentPages(admin(), ref.input.spaceId)));
      const files = async (spaceId: string) =>
        (await admin().get(`/v1/spaces/${spaceId}/content`)).body.files.map((f: { name: string; size: number }) => [f.name, f.size]);
      expect(await files(c.input.spaceId)).toEqual(await files(ref.input.spaceId));
      const sections = async (spaceId: string) =>
        (await sql<{ n: string }>(t, 'select count(*) as n from search_section where space_id = ?', [spaceId]))[0].n;
      await Promise.all([searchCaughtUp(t, c.input.spaceId), searchCaughtUp(t, ref.input.spaceId)]);
      expect(await sections(c.input.spaceId)).toBe(await sections(ref.input.spaceId));
    } else {
      expect(cr.revision).toBe(res.body.revision);
      expect(cr.revisionMergedAncestor).toBe((await admin().get(`/v1/spaces/${c.input.spaceId}`)).body.revision);
      expect(shape(await contentPages(admin(), c.input.spaceId, c.input.crId))).toEqual(
        shape(await contentPages(admin(), ref.input.spaceId, ref.input.crId)),
      );
    }
    await expectRetriedOnce(c.running, kind === 'merge' ? 'mergeChangeRequest' : 'updateChangeRequest');
  });

  it('PDF export killed while recording: one record, the PDF an undisturbed run prints', async () => {
    const { input, answer, running } = pdfCase;
    const res = await answered(answer, () => admin().get(pdfPath(input)));
    expect(res.status).toBe(200);
    const sha = (url: string) => /\/pdf\/([0-9a-f]{64})\?/.exec(url)![1];
    const rows = await sql<{ sha256: string }>(t, 'select sha256 from pdf_export where change_request_id = ?', [input.crId]);
    expect(rows).toEqual([{ sha256: sha(res.body.url) }]);
    const download = async (url: string) => {
      const parsed = new URL(url);
      const got = await t.app.inject({ method: 'GET', url: parsed.pathname + parsed.search });
      expect(got.statusCode).toBe(200);
      return got.rawPayload;
    };
    let n = 0;
    const poppler = (tool: 'pdftotext' | 'pdfinfo', bytes: Buffer) => {
      const file = join(scratch, `${++n}.pdf`);
      writeFileSync(file, bytes);
      return execFileSync(tool, [file, ...(tool === 'pdftotext' ? ['-'] : [])], { encoding: 'utf8' });
    };
    const [mine, theirs] = await Promise.all([download(res.body.url), download(reference.pdf.url)]);
    expect(poppler('pdftotext', mine)).toBe(poppler('pdftotext', theirs));
    const pages = (info: string) => /^Pages:\s+(\d+)/m.exec(info)![1];
    expect(pages(poppler('pdfinfo', mine))).toBe(pages(poppler('pdfinfo', theirs)));
    await expectRetriedOnce(running, 'exportChangeRequestPdf');
  });

  it('OpenAPI processing killed while fetching: one version, the content of an undisturbed run', async () => {
    const { slug, running, hitsBefore } = openapiCase;
    const base = `/v1/orgs/${org.id}/openapi`;
    const spec = await eventually(async () => {
      const body = (await admin().get(`${base}/${slug}`)).body;
      return body.processingState === 'complete' ? body : undefined;
    }, 180_000);
    const referenceSpec = (await admin().get(`${base}/${reference.openapi.slug}`)).body;
    expect(spec.lastProcessedErrorCount).toBe(0);
    expect(spec.lastProcessErrorCode).toBe(referenceSpec.lastProcessErrorCode);
    const versions = (await admin().get(`${base}/${slug}/versions`)).body.items;
    expect(versions.map((v: { id: string }) => v.id)).toEqual([spec.lastVersion]);
    const content = (await admin().get(`${base}/${slug}/versions/latest/content`)).body;
    expect(content).toEqual((await admin().get(`${base}/${reference.openapi.slug}/versions/latest/content`)).body);
    // Fetched by the killed attempt, and again by the retry.
    expect(specs.hits() - hitsBefore).toBeGreaterThanOrEqual(2);
    await expectRetriedOnce(running, 'fetchOpenApiSpec');
  });
});

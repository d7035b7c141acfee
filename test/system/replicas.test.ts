import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import protos from '@temporalio/proto';
import { createTestOrg, eventually, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { sql } from '../support/fixtures.ts';
import { startGitServer, type GitServer } from '../support/git-server.ts';
import { createScratchDatabase, freePort } from '../../src/lib/infra.ts';
import { spaceDeletionWorkflowId } from '../../src/temporal/space-deletion.ts';
import { changeRequestJobWorkflowId } from '../../src/temporal/change-request-merge.ts';
import { initOrm } from '../../src/db/orm.ts';
import { findOrCreateUser, issueToken, revokeToken } from '../../src/db/accounts.ts';

/**
 * The service as several replicas: two API processes and two worker processes, as production
 * runs them, on the suite's database and Temporal server and a task queue of this file's own.
 * Every client request alternates between the two APIs. The processes share what replicas share
 * (database, Temporal, secrets key, blob store) and nothing else: each has a data directory of
 * its own, so each worker keeps its own git caches. Shows that concurrent merges into one space
 * serialize, change-request numbers stay gapless, a deletion purges once, a git push applies once,
 * and that several processes may migrate one database at the same time.
 */

const enums = protos.temporal.api.enums.v1;
const queue = `replicas-${randomBytes(4).toString('hex')}`;
const scratch = mkdtempSync(join(tmpdir(), 'replicas-'));
const shared: NodeJS.ProcessEnv = {
  ...process.env,
  TEMPORAL_TASK_QUEUE: queue,
  SECRETS_KEY: randomBytes(32).toString('base64'),
  BLOB_DIR: join(scratch, 'blobs'),
  PUBLIC_URL: 'http://docs.test',
  SPACE_RETENTION: '2s',
  RATE_LIMIT_MAX: '0',
  LOG_LEVEL: 'warn',
};

let t: TestApp;
let org: TestOrg;
let git: GitServer;
const children: { name: string; child: ChildProcess; log: string }[] = [];
let origins: string[] = [];
let workerPids: number[] = [];

function start(name: string, script: string, env: NodeJS.ProcessEnv): ChildProcess {
  const log = join(scratch, `${name}.log`);
  const out = openSync(log, 'a');
  const child = spawn(process.execPath, [script], {
    env: { ...shared, DATA_DIR: join(scratch, name), ...env },
    stdio: ['ignore', out, out],
  });
  children.push({ name, child, log });
  return child;
}

/** The end of a child's log, for a failure message. */
const tail = (name: string) => {
  const found = children.find((c) => c.name === name);
  return found ? readFileSync(found.log, 'utf8').slice(-2000) : '';
};

async function untilReady(name: string, origin: string): Promise<void> {
  try {
    await eventually(async () => (await fetch(`${origin}/readyz`)).status === 200, 150_000, 250);
  } catch (error) {
    throw new Error(`${name} did not get ready: ${(error as Error).message}\n${tail(name)}`, { cause: error });
  }
}

/** Both worker processes poll the queue for workflow and activity tasks. */
async function untilPolling(pids: number[]): Promise<void> {
  const pollers = async (taskQueueType: protos.temporal.api.enums.v1.TaskQueueType) =>
    (
      await t.temporal.workflowService.describeTaskQueue({
        namespace: t.config.temporalNamespace,
        taskQueue: { name: queue, kind: enums.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
        taskQueueType,
      })
    ).pollers?.map((p) => p.identity ?? '') ?? [];
  const polling = async () => {
    const [workflow, activity] = await Promise.all([
      pollers(enums.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW),
      pollers(enums.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY),
    ]);
    return pids.every((pid) => [workflow, activity].every((ids) => ids.some((id) => id.startsWith(`${pid}@`))));
  };
  try {
    await eventually(polling, 180_000, 500);
  } catch (error) {
    throw new Error(`the workers did not start polling: ${(error as Error).message}\n${tail('worker-1')}\n${tail('worker-2')}`, {
      cause: error,
    });
  }
}

beforeAll(async () => {
  const started = Date.now();
  mkdirSync(shared.BLOB_DIR!, { recursive: true });
  const ports = [await freePort(), await freePort()];
  origins = ports.map((port) => `http://127.0.0.1:${port}`);
  // Started together: each worker bundles the workflow code first, which takes a while on a busy machine.
  workerPids = ['worker-1', 'worker-2'].map((name) => start(name, 'src/worker.ts', {}).pid!);
  ports.forEach((port, i) => start(`api-${i + 1}`, 'src/api/server.ts', { PORT: String(port), HOST: '127.0.0.1' }));
  [t, git] = await Promise.all([startTestApp({ TEMPORAL_TASK_QUEUE: queue }), startGitServer()]);
  org = await createTestOrg(t, 'Replicas org');
  const since = (start: number) => async () => Date.now() - start;
  const [apisMs, workersMs] = await Promise.all([
    Promise.all(origins.map((origin, i) => untilReady(`api-${i + 1}`, origin))).then(since(started)),
    untilPolling(workerPids).then(since(started)),
  ]);
  report('startup', { apisReadyMs: apisMs, workersPollingMs: workersMs });
}, 240_000);

afterAll(async () => {
  report('memory', Object.fromEntries(children.map(({ name, child }) => [name, residentMb(child.pid)])));
  // Jobs still waiting (a git sync idles two minutes before it ends) would never run again on this queue.
  if (t) {
    for await (const run of t.temporal.workflow.list({ query: `TaskQueue = "${queue}" AND ExecutionStatus = "Running"` })) {
      await t.temporal.workflow
        .getHandle(run.workflowId, run.runId)
        .terminate('the test is over')
        .catch(() => undefined);
    }
  }
  await Promise.all(
    children.map(async ({ child }) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(timer);
    }),
  );
  await git?.close();
  await t?.close();
  rmSync(scratch, { recursive: true, force: true });
}, 60_000);

interface Answer {
  status: number;
  body: any;
}

/** A request to one of the API processes, over HTTP. */
async function send(
  origin: string,
  method: string,
  path: string,
  options: { token?: string; body?: unknown; raw?: string; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const res = await fetch(`${origin}${path}`, {
    method,
    headers: {
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      ...(options.body !== undefined || options.raw !== undefined ? { 'content-type': 'application/json' } : {}),
      ...options.headers,
    },
    body: options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body)),
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: kept as text
  }
  return { status: res.status, body };
}

/** The admin's client on API process `n % 2`: callers alternate by passing a counter. */
function via(n: number) {
  const origin = origins[n % 2];
  const token = org.members.admin.token;
  return {
    get: (path: string) => send(origin, 'GET', path, { token }),
    post: (path: string, body?: unknown) => send(origin, 'POST', path, { token, body }),
    put: (path: string, body?: unknown) => send(origin, 'PUT', path, { token, body }),
    patch: (path: string, body?: unknown) => send(origin, 'PATCH', path, { token, body }),
    delete: (path: string) => send(origin, 'DELETE', path, { token }),
  };
}

async function newSpace(n: number, title: string): Promise<string> {
  const res = await via(n).post(`/v1/orgs/${org.id}/spaces`, { title });
  expect(res.status).toBe(201);
  return res.body.id;
}

async function newChangeRequest(n: number, spaceId: string, subject: string): Promise<{ id: string; number: number }> {
  const res = await via(n).post(`/v1/spaces/${spaceId}/change-requests`, { subject });
  expect(res.status).toBe(201);
  return res.body;
}

async function editChangeRequest(n: number, spaceId: string, crId: string, changes: unknown[]): Promise<void> {
  const res = await via(n).post(`/v1/spaces/${spaceId}/change-requests/${crId}/content?compat=false`, { changes });
  expect(res.status).toBe(200);
}

/** Merges through API `n % 2`; a 503 (the merge outlasted the API's wait) is asked again, which joins the same job. */
async function mergeChangeRequest(n: number, spaceId: string, crId: string): Promise<{ result: string; revision: string }> {
  for (;;) {
    const res = await via(n).post(`/v1/spaces/${spaceId}/change-requests/${crId}/merge`);
    if (res.status === 503) continue;
    expect(res.status).toBe(200);
    return res.body;
  }
}

/** Which worker process (1 or 2) ran each activity of a workflow, by its identity. */
async function activityWorkers(workflowId: string): Promise<number[]> {
  const history = await t.temporal.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? [])
    .map((e) => e.activityTaskStartedEventAttributes?.identity)
    .filter((id): id is string => typeof id === 'string')
    .map((id) => workerPids.findIndex((pid) => id.startsWith(`${pid}@`)) + 1);
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

/** The answers of one cache (`space` by default) an API process has served from what it kept (its /metrics). */
async function keptServed(origin: string, cache = 'space'): Promise<number> {
  const text = await (await fetch(`${origin}/metrics`)).text();
  return Number(new RegExp(`^kept_answers_total\\{cache="${cache}",outcome="served"\\} (\\d+)`, 'm').exec(text)?.[1] ?? 0);
}

/**
 * Reads with `read` through `origin` until one is served there from what `cache` kept: a write
 * announced meanwhile (by another test file's process too) makes a read afresh, and the next one
 * is served. Every read must be answered 200.
 */
async function servedFromKept(origin: string, cache: string, read: () => Promise<Answer>): Promise<Answer> {
  const before = await keptServed(origin, cache);
  for (let i = 0; i < 50; i++) {
    const res = await read();
    expect(res.status).toBe(200);
    if ((await keptServed(origin, cache)) > before) return res;
  }
  throw new Error(`no answer of ${cache} was served from what was kept in 50 reads`);
}

describe('two API processes and two workers on one database', () => {
  it('serializes concurrent merges into one space: every change lands, on one chain of revisions', async () => {
    const N = 8;
    const spaceId = await newSpace(0, 'Merged from everywhere');
    const seed = await newChangeRequest(1, spaceId, 'Pages');
    await editChangeRequest(
      0,
      spaceId,
      seed.id,
      range(N).map((i) => ({ operation: 'insert_page', title: `Page ${i}`, document: { markdown: `Text of page ${i}.\n` } })),
    );
    const base = await mergeChangeRequest(1, spaceId, seed.id);
    expect(base.result).toBe('merge');
    const pages: { id: string; title: string }[] = (await via(0).get(`/v1/spaces/${spaceId}/content/pages`)).body.pages;
    const pageOf = (i: number) => pages.find((p) => p.title === `Page ${i}`)!.id;

    // One change request a page, each opened on one API and edited through the other.
    const crs = await Promise.all(
      range(N).map(async (i) => {
        const cr = await newChangeRequest(i, spaceId, `Edit page ${i}`);
        await editChangeRequest(i + 1, spaceId, cr.id, [
          {
            operation: 'update_page',
            page: pageOf(i),
            document: { markdown: `Text of page ${i}.\n\nChanged by change request #${cr.number}.\n` },
          },
        ]);
        return cr;
      }),
    );
    const started = Date.now();
    const merges = await Promise.all(crs.map((cr, i) => mergeChangeRequest(i, spaceId, cr.id)));
    const mergeMs = Date.now() - started;
    expect(merges.map((m) => m.result)).toEqual(range(N).map(() => 'merge'));

    // Every change is in the space's content, read back through both APIs.
    for (const [i, cr] of crs.entries()) {
      const page = (await via(i).get(`/v1/spaces/${spaceId}/content/page/${pageOf(i)}`)).body;
      expect(page.markdown ?? page.document?.markdown).toContain(`Changed by change request #${cr.number}.`);
    }

    // The merge revisions form one chain from the seed's merge to the space's revision: each
    // merge's first parent is the space revision the previous one made (no update was lost).
    const head: string = (await via(1).get(`/v1/spaces/${spaceId}`)).body.revision;
    const rows = await sql<{ id: string; parents: string[]; type: string }>(
      t,
      'select id, parents, type from revision where space_id = ?',
      [spaceId],
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    const chain: string[] = [];
    for (let at = head; at !== base.revision; at = byId.get(at)!.parents[0]) {
      expect(byId.get(at)?.type).toBe('merge');
      chain.push(at);
      expect(chain.length).toBeLessThanOrEqual(N);
    }
    expect(chain.sort()).toEqual(merges.map((m) => m.revision).sort());
    // Each merge's second parent is its own change request's head.
    const heads = await Promise.all(crs.map(async (cr, i) => (await via(i).get(`/v1/spaces/${spaceId}/change-requests/${cr.id}`)).body));
    for (const [i, merged] of merges.entries()) {
      expect(heads[i]).toMatchObject({ status: 'merged' });
      expect(byId.get(merged.revision)!.parents[1]).toBe(heads[i].revision);
    }

    const ranOn = (await Promise.all(crs.map((cr) => activityWorkers(changeRequestJobWorkflowId('merge', spaceId, cr.id))))).flat();
    expect(ranOn.every((w) => w === 1 || w === 2)).toBe(true);
    report('merges', { changeRequests: N, wallMs: mergeMs, activitiesPerWorker: [1, 2].map((w) => ranOn.filter((x) => x === w).length) });
  });

  it('reads what was just written through the other process: 1,000 write/read pairs, alternating sides, none stale', async () => {
    const N = 1000;
    const spaceId = await newSpace(0, 'Read your writes');
    const stale: { pair: number; wrote: string; read: string }[] = [];
    const servedBefore = await Promise.all(origins.map((origin) => keptServed(origin)));
    const started = Date.now();
    for (const i of range(N)) {
      const writer = via(i);
      const reader = via(i + 1);
      // The reader's process keeps its answer: with no write heard since, the next read may be served from it.
      expect((await reader.get(`/v1/spaces/${spaceId}`)).status).toBe(200);
      const title = `Title ${i}`;
      expect((await writer.patch(`/v1/spaces/${spaceId}`, { title })).status).toBe(200);
      const after = await reader.get(`/v1/spaces/${spaceId}`);
      expect(after.status).toBe(200);
      if (after.body.title !== title) stale.push({ pair: i, wrote: title, read: after.body.title });
      // Read again with nothing written since: served from what the read before kept.
      const again = await reader.get(`/v1/spaces/${spaceId}`);
      if (again.body.title !== title) stale.push({ pair: i, wrote: title, read: again.body.title });
    }
    const served = (await Promise.all(origins.map((origin) => keptServed(origin)))).map((n, i) => n - servedBefore[i]);
    report('read your writes', { pairs: N, stale: stale.length, wallMs: Date.now() - started, servedFromKept: served });
    expect(stale).toEqual([]);
    // The answers were kept and served between writes (the check above is not passed by keeping
    // nothing). Alone, every "again" read is served (1,000); writes of other test files running at
    // the same time, announced on the same database, make some of them read afresh.
    expect(served.reduce((a, b) => a + b, 0)).toBeGreaterThan(N / 10);
  }, 300_000);

  it('refuses a token revoked through one process on the other at once: site lookup tokens deleted, API tokens revoked', async () => {
    const N = 20;
    const lookup = (n: number, token: string) =>
      send(origins[n % 2], 'POST', '/v1/urls/published', { token, body: { url: 'https://nowhere.replicas.test/' } });
    const admitted = (status: number) => status !== 401 && status !== 403;
    for (const i of range(N)) {
      const created = await via(i).post(`/v1/orgs/${org.id}/site-lookup-tokens`, { label: `Renderer ${i}` });
      expect(created.status).toBe(201);
      // Verified, and kept, by the other process.
      expect(admitted((await lookup(i + 1, created.body.token)).status)).toBe(true);
      expect(admitted((await lookup(i + 1, created.body.token)).status)).toBe(true);
      expect((await via(i).delete(`/v1/orgs/${org.id}/site-lookup-tokens/${created.body.id}`)).status).toBe(205);
      expect((await lookup(i + 1, created.body.token)).status).toBe(401);
    }
    for (const i of range(N)) {
      const em = t.orm.em.fork();
      const user = await findOrCreateUser(em, `revoked-${i}@replicas.test`, `Revoked ${i}`);
      const { token, tokenId } = await issueToken(em, user.id, 'revoked at once');
      await Promise.all(origins.map(async (origin) => expect((await send(origin, 'GET', '/v1/user', { token })).status).toBe(200)));
      await revokeToken(t.orm.em.fork(), { tokenId });
      const after = await Promise.all(origins.map(async (origin) => (await send(origin, 'GET', '/v1/user', { token })).status));
      expect(after).toEqual([401, 401]);
    }
  });

  it("refuses a site visitor's token on the other process at once once its site is unpublished", async () => {
    const spaceId = await newSpace(0, 'Published to visitors');
    const created = await via(0).post(`/v1/orgs/${org.id}/sites`, { title: 'Visited', visibility: 'public', spaces: [spaceId] });
    expect(created.status).toBe(201);
    const base = `/v1/orgs/${org.id}/sites/${created.body.id}`;
    for (const i of range(10)) {
      expect((await via(i).post(`${base}/publish`)).status).toBe(200);
      const resolved = await via(i).post('/v1/urls/published', { url: `http://docs.test/sites/${org.id}/${created.body.id}/` });
      expect(resolved.status).toBe(200);
      const visitor = (n: number) => send(origins[n % 2], 'GET', `/v1/spaces/${spaceId}`, { token: resolved.body.apiToken });
      // Read twice through the other process: its site's state is kept there.
      expect((await visitor(i + 1)).status).toBe(200);
      expect((await visitor(i + 1)).status).toBe(200);
      expect((await via(i).post(`${base}/unpublish`)).status).toBe(200);
      expect((await visitor(i + 1)).status).toBe(401);
    }
  });

  it("refuses a site visitor's kept published site and revision on the other process at once: site unpublished, space deleted, share link deactivated", async () => {
    /** A site of a new space published through the first process, and its visitor's reads through the second, kept there. */
    async function visited(title: string, visibility: 'public' | 'share-link' = 'public') {
      const spaceId = await newSpace(0, title);
      const created = await via(0).post(`/v1/orgs/${org.id}/sites`, { title, visibility, spaces: [spaceId] });
      expect(created.status).toBe(201);
      const base = `/v1/orgs/${org.id}/sites/${created.body.id}`;
      expect((await via(0).post(`${base}/publish`)).status).toBe(200);
      const link = visibility === 'share-link' ? (await via(0).post(`${base}/share-links`, { name: 'Partner' })).body : undefined;
      const url = `http://docs.test/sites/${org.id}/${created.body.id}/${link ? `?shareKey=${link.key}` : ''}`;
      const resolved = await via(0).post('/v1/urls/published', { url });
      expect(resolved.status).toBe(200);
      const token = resolved.body.apiToken as string;
      const site = () => send(origins[1], 'GET', `${base}/published`, { token });
      const revision = () => send(origins[1], 'GET', `/v1/spaces/${spaceId}/revisions/${resolved.body.revision}?metadata=true`, { token });
      // Served from what the second process kept, while nothing changes: the refusals below are not
      // passed by keeping nothing.
      expect(JSON.stringify((await servedFromKept(origins[1], 'publishedSites', site)).body)).toContain(spaceId);
      expect((await servedFromKept(origins[1], 'visitorRevisions', revision)).body.id).toBe(resolved.body.revision);
      return { spaceId, base, link, site, revision };
    }

    // The site renamed: the next answer has the new title, not the one kept.
    const unpublished = await visited('Unpublished while read');
    expect((await via(0).patch(unpublished.base, { title: 'Renamed while read' })).status).toBe(200);
    expect((await unpublished.site()).body.site.title).toBe('Renamed while read');
    // The site unpublished: the visitor's token is refused, whatever was kept.
    await servedFromKept(origins[1], 'publishedSites', unpublished.site);
    expect((await via(0).post(`${unpublished.base}/unpublish`)).status).toBe(200);
    expect((await unpublished.site()).status).toBe(401);
    expect((await unpublished.revision()).status).toBe(401);

    // The space deleted: its revision is no longer readable, and the published site no longer lists it.
    const deleted = await visited('Deleted while read');
    expect((await via(0).delete(`/v1/spaces/${deleted.spaceId}`)).status).toBe(205);
    expect((await deleted.revision()).status).toBe(404);
    const without = await deleted.site();
    expect(without.status).toBe(200);
    expect(JSON.stringify(without.body)).not.toContain(deleted.spaceId);

    // The share link the token came through deactivated.
    const shared = await visited('Shared while read', 'share-link');
    expect((await via(0).patch(`${shared.base}/share-links/${shared.link.id}`, { active: false })).status).toBe(200);
    expect((await shared.site()).status).toBe(401);
    expect((await shared.revision()).status).toBe(401);
  });

  it('numbers change requests created concurrently through both APIs 1..N, gapless and unique', async () => {
    const N = 30;
    const spaceId = await newSpace(1, 'Numbered');
    const started = Date.now();
    const created = await Promise.all(range(N).map((i) => newChangeRequest(i, spaceId, `Change ${i}`)));
    const createMs = Date.now() - started;
    expect(created.map((cr) => cr.number).sort((a, b) => a - b)).toEqual(range(N).map((i) => i + 1));
    expect(new Set(created.map((cr) => cr.id)).size).toBe(N);
    const listed = await via(0).get(`/v1/spaces/${spaceId}/change-requests?limit=100`);
    expect(listed.status).toBe(200);
    expect(listed.body.items.map((cr: { number: number }) => cr.number).sort((a: number, b: number) => a - b)).toEqual(
      range(N).map((i) => i + 1),
    );
    report('numbers', { changeRequests: N, wallMs: createMs });
  });

  it('purges a space deleted through both APIs at once exactly once', async () => {
    const spaceIds = await Promise.all(range(3).map((i) => newSpace(i, `Doomed ${i}`)));
    for (const [i, spaceId] of spaceIds.entries()) {
      const cr = await newChangeRequest(i, spaceId, 'Something to purge');
      await editChangeRequest(i + 1, spaceId, cr.id, [{ operation: 'insert_page', title: 'Gone soon', document: { markdown: 'Bye.\n' } }]);
    }
    // The same deletion sent to both APIs at once: one deletes, the other finds the space deleted.
    const answers = await Promise.all(spaceIds.map((spaceId) => Promise.all([0, 1].map((n) => via(n).delete(`/v1/spaces/${spaceId}`)))));
    for (const pair of answers) expect(pair.map((a) => a.status).sort()).toEqual([205, 404]);

    for (const spaceId of spaceIds) {
      const workflowId = spaceDeletionWorkflowId(spaceId);
      expect(await t.temporal.workflow.getHandle(workflowId).result()).toMatchObject({ state: 'purged' });
      // One run of the deletion, completed; its purge ran once and succeeded at the first attempt.
      const runs = await eventually(async () => {
        const found: string[] = [];
        for await (const run of t.temporal.workflow.list({ query: `WorkflowId = "${workflowId}"` })) found.push(run.status.name);
        return found.includes('COMPLETED') ? found : undefined;
      });
      expect(runs).toEqual(['COMPLETED']);
      const events = (await t.temporal.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
      const scheduled = events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'purgeDeletedSpace');
      expect(scheduled).toHaveLength(1);
      // The purge's own events (the workflow then collects the purged space's blobs in an activity of its own).
      const purgeId = String(scheduled[0].eventId);
      const ofPurge = (scheduledEventId: unknown) => String(scheduledEventId) === purgeId;
      expect(events.filter((e) => ofPurge(e.activityTaskCompletedEventAttributes?.scheduledEventId))).toHaveLength(1);
      expect(events.filter((e) => e.activityTaskFailedEventAttributes || e.activityTaskTimedOutEventAttributes)).toHaveLength(0);
      expect(
        events
          .filter((e) => ofPurge(e.activityTaskStartedEventAttributes?.scheduledEventId))
          .map((e) => e.activityTaskStartedEventAttributes!.attempt),
      ).toEqual([1]);
      for (const table of ['space', 'revision', 'change_request']) {
        const column = table === 'space' ? 'id' : 'space_id';
        expect(await sql(t, `select 1 from ${table} where ${column} = ?`, [spaceId])).toEqual([]);
      }
    }
    const ranOn = (await Promise.all(spaceIds.map((id) => activityWorkers(spaceDeletionWorkflowId(id))))).flat();
    report('purges', { spaces: spaceIds.length, activitiesPerWorker: [1, 2].map((w) => ranOn.filter((x) => x === w).length) });
  });

  it('applies a push delivered to both APIs, and an import sent to both, once', async () => {
    const revisions = async (spaceId: string) =>
      Number((await sql<{ n: string }>(t, 'select count(*) as n from revision where space_id = ?', [spaceId]))[0].n);
    const requests = async (spaceId: string) =>
      (await sql<{ state: string }>(t, 'select state from git_sync_request where space_id = ? order by id', [spaceId])).map((r) => r.state);
    const settled = (spaceId: string) =>
      eventually(async () => {
        const states = await requests(spaceId);
        return states.length > 0 && !states.includes('queued') ? states : undefined;
      }, 120_000);

    // A push webhook: the same delivery reaches both APIs at the same time.
    const pushed = git.commit('replicated-hook', { 'README.md': '# Pushed\n\nFrom a webhook.\n' });
    const hooked = await newSpace(0, 'Hooked');
    const secret = 'replicas-webhook-secret';
    const configured = await via(1).put(`/v1/spaces/${hooked}/git/webhook`, {
      provider: 'github',
      url: git.url('replicated-hook'),
      branch: 'main',
      secret,
    });
    expect(configured.status).toBe(200);
    const payload = JSON.stringify({ ref: 'refs/heads/main', after: pushed, head_commit: { timestamp: new Date().toISOString() } });
    const headers = {
      'x-github-event': 'push',
      'x-github-delivery': `delivery-${randomBytes(4).toString('hex')}`,
      'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(payload).digest('hex')}`,
    };
    const hookRevisions = await revisions(hooked);
    const deliveries = await Promise.all(origins.map((origin) => send(origin, 'POST', `/hooks/git/${hooked}`, { raw: payload, headers })));
    expect(deliveries.map((d) => d.body.status).sort()).toEqual(['accepted', 'duplicate']);

    // An import: the same request (same repository, ref and timestamp) sent to both APIs at once.
    const imported = git.commit('replicated-import', { 'README.md': '# Imported\n\nFrom an import.\n' });
    const importing = await newSpace(1, 'Imported');
    const importRevisions = await revisions(importing);
    const body = { url: git.url('replicated-import'), ref: 'refs/heads/main', timestamp: new Date().toISOString() };
    const answers = await Promise.all([0, 1].map((n) => via(n).post(`/v1/spaces/${importing}/git/import`, body)));
    expect(answers.map((a) => a.status)).toEqual([204, 204]);

    expect(await settled(hooked)).toEqual(['applied']);
    expect(await settled(importing)).toEqual(['applied']);
    expect(await revisions(hooked)).toBe(hookRevisions + 1);
    expect(await revisions(importing)).toBe(importRevisions + 1);
    expect((await via(1).get(`/v1/spaces/${hooked}/git/info`)).body).toMatchObject({ lastSyncedCommit: pushed });
    expect((await via(0).get(`/v1/spaces/${importing}/git/info`)).body).toMatchObject({ lastSyncedCommit: imported });
    const titles = async (n: number, spaceId: string) =>
      (await via(n).get(`/v1/spaces/${spaceId}/content/pages`)).body.pages.map((p: { title: string }) => p.title);
    expect(await titles(0, hooked)).toEqual(['Pushed']);
    expect(await titles(1, importing)).toEqual(['Imported']);
  });

  it('migrates one database from several processes at the same time', async () => {
    const db = await createScratchDatabase(process.env.DATABASE_URL!, `docs_replicas_${randomBytes(4).toString('hex')}`);
    try {
      const started = Date.now();
      const runs = range(3).map(
        (i) =>
          new Promise<{ code: number | null; output: string }>((done) => {
            const child = spawn(process.execPath, ['src/db/migrate.ts'], {
              env: { ...shared, DATABASE_URL: db.url, DATA_DIR: join(scratch, `migrate-${i}`) },
              stdio: ['ignore', 'pipe', 'pipe'],
            });
            let output = '';
            child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
            child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
            child.once('exit', (code) => done({ code, output }));
          }),
      );
      const results = await Promise.all(runs);
      report('migrations', { processes: runs.length, wallMs: Date.now() - started });
      expect(results.map((r) => [r.code, r.output.includes('Error')])).toEqual(range(3).map(() => [0, false]));
      // One process applied every migration; the others found the database up to date.
      expect(results.filter((r) => r.output.includes('Applied:'))).toHaveLength(1);
      expect(results.filter((r) => r.output.includes('up to date'))).toHaveLength(2);
      const orm = await initOrm({ databaseUrl: db.url, poolMax: 1 });
      try {
        const [logged] = await orm.em
          .fork()
          .getConnection()
          .execute<{ n: string; distinct: string }[]>('select count(*) as n, count(distinct name) as distinct from mikro_orm_migrations');
        expect(Number(logged.n)).toBeGreaterThan(0);
        expect(logged.distinct).toBe(logged.n);
      } finally {
        await orm.close();
      }
    } finally {
      await db.stop();
    }
  });
});

/** Resident memory of a process in MB (Linux), for the report. */
function residentMb(pid: number | undefined): number | undefined {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? undefined : Math.round(Number(kb) / 1024);
  } catch {
    return undefined;
  }
}

/** Figures of the run, printed when REPLICAS_REPORT is set (they go in the README's Scaling section). */
function report(what: string, figures: Record<string, unknown>): void {
  if (process.env.REPLICAS_REPORT) process.stdout.write(`replicas ${what}: ${JSON.stringify(figures)}\n`);
}

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, closeSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, startEmbeddedPostgres } from '../../src/lib/infra.ts';
import { initOrm, migrate } from '../../src/db/orm.ts';
import { createOrganization, findOrCreateUser, issueToken, setMembership } from '../../src/db/accounts.ts';
import { eventually } from '../support/harness.ts';

/**
 * Restarts under a write load. Clients keep writing (collections; spaces, which are a multi-row
 * transaction; pages through change-request content, another) while the API process is stopped
 * with SIGTERM and started again, PostgreSQL is stopped for a few seconds and started again, and
 * the API process is killed with SIGKILL and started again.
 *
 * Afterwards every acknowledged write reads back with what was written; no answer at any time is
 * a 4xx or a 500; a 503 (in the error shape, with Retry-After) or a failed connection happens only
 * while something is down (from the moment it is stopped until the API is ready again, plus a
 * second); and the API comes back from the database restart by itself.
 *
 * It stops a database, so it runs an embedded PostgreSQL of its own, and an API process of its own.
 */

type Kind = 'collection' | 'space' | 'page';
const KINDS: Kind[] = ['collection', 'space', 'page'];
const CLIENTS = 4;
/** Added to the end of every outage: a request answered just after readiness is still counted in it. */
const GRACE_MS = 1000;

interface Answer {
  kind: Kind;
  client: number;
  start: number;
  end: number;
  /** 0: no HTTP answer (connection refused or reset, timeout). */
  status: number;
  error?: string;
  body?: any;
  retryAfter?: string | null;
  /** What was written: read back afterwards when the write was acknowledged. */
  written: { title: string; markdown?: string };
}

interface Outage {
  what: string;
  from: number;
  to: number;
}

let dir: string;
let pgDir: string;
let pgPort: number;
let pg: { url: string; stop(): Promise<void> };
let base: string;
let apiEnv: NodeJS.ProcessEnv;
let apiLog: number;
let api: { child: ChildProcess; exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }> } | undefined;
let token: string;
let orgId: string;

function startApi() {
  const child = spawn(process.execPath, ['src/api/server.ts'], { env: apiEnv, stdio: ['ignore', apiLog, apiLog] });
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  api = { child, exit };
  return api;
}

interface Reply {
  status: number;
  body?: any;
  retryAfter?: string | null;
  error?: string;
}

async function call(method: string, path: string, body?: unknown): Promise<Reply> {
  try {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(60_000),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // kept as text
    }
    return { status: res.status, body: parsed, retryAfter: res.headers.get('retry-after') };
  } catch (error) {
    const e = error as Error & { cause?: { code?: string; message?: string } };
    return { status: 0, error: e.cause?.code ?? e.cause?.message ?? e.name };
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const isOk = (a: { status: number }) => a.status >= 200 && a.status < 300;

async function waitReady(): Promise<void> {
  await eventually(async () => (await call('GET', '/readyz')).status === 200, 120_000, 100);
}

beforeAll(async () => {
  dir = mkdtempSync(join(process.env.TEST_SCRATCH_DIR ?? tmpdir(), 'restart-'));
  // As root, the embedded PostgreSQL runs as the `postgres` user, which must be able to enter it.
  chmodSync(dir, 0o755);
  pgDir = join(dir, 'pg');
  pgPort = await freePort();
  pg = await startEmbeddedPostgres(pgDir, pgPort);
  const orm = await initOrm({ databaseUrl: pg.url, poolMax: 2 });
  try {
    await migrate(orm);
    const em = orm.em.fork();
    const org = await createOrganization(em, 'Restart org');
    const user = await findOrCreateUser(em, 'restart-admin@example.com', 'Restart admin');
    await setMembership(em, org.id, user.id, 'admin');
    ({ token } = await issueToken(em, user.id, 'restart test'));
    orgId = org.id;
  } finally {
    await orm.close();
  }
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  apiEnv = {
    ...process.env,
    DATABASE_URL: pg.url,
    HOST: '127.0.0.1',
    PORT: String(port),
    PUBLIC_URL: base,
    RATE_LIMIT_MAX: '0',
    // Load shedding off: its 503s come from a busy machine, not from something being down, which is
    // what this test measures (test/security/load-shedding.test.ts tests the shedding).
    OVERLOAD_EVENT_LOOP_DELAY: '0s',
    DATA_DIR: join(dir, 'data'),
  };
  apiLog = openSync(join(dir, 'api.log'), 'a');
  startApi();
  await waitReady();
}, 180_000);

afterAll(async () => {
  if (api && api.child.exitCode === null && api.child.signalCode === null) {
    api.child.kill('SIGTERM');
    await api.exit;
  }
  if (apiLog !== undefined) closeSync(apiLog);
  await pg?.stop();
  if (dir && !process.env.KEEP_TEST_LOGS) rmSync(dir, { recursive: true, force: true });
});

describe('restarting the API and PostgreSQL under a write load', () => {
  it('keeps every acknowledged write and answers 5xx only while something is down', async () => {
    // What the clients write into: one collection for the spaces, one space with a change request per client for the pages.
    const collection = await call('POST', `/v1/orgs/${orgId}/collections`, { title: 'Spaces written under load' });
    expect(collection.status).toBe(201);
    const space = await call('POST', `/v1/orgs/${orgId}/spaces`, { title: 'Pages written under load' });
    expect(space.status).toBe(201);
    const changeRequests: string[] = [];
    for (let n = 0; n < CLIENTS; n++) {
      const cr = await call('POST', `/v1/spaces/${space.body.id}/change-requests`, { subject: `Client ${n}` });
      expect(cr.status).toBe(201);
      changeRequests.push(cr.body.id);
    }

    const answers: Answer[] = [];
    const outages: Outage[] = [];
    let stopping = false;

    const write = (kind: Kind, n: number, i: number): [Promise<Reply>, Answer['written']] => {
      const title = `${kind} ${n}.${i}`;
      if (kind === 'collection') return [call('POST', `/v1/orgs/${orgId}/collections`, { title }), { title }];
      if (kind === 'space') return [call('POST', `/v1/orgs/${orgId}/spaces`, { title, parent: collection.body.id }), { title }];
      const markdown = `Written by client ${n} in request ${i}.\n`;
      const changes = [{ operation: 'insert_page', title, document: { markdown } }];
      return [
        call('POST', `/v1/spaces/${space.body.id}/change-requests/${changeRequests[n]}/content?compat=false`, { changes }),
        { title, markdown },
      ];
    };
    const client = async (n: number) => {
      for (let i = 0; !stopping; i++) {
        const kind = KINDS[(n + i) % KINDS.length];
        const start = Date.now();
        const [pending, written] = write(kind, n, i);
        const reply = await pending;
        answers.push({ kind, client: n, start, end: Date.now(), written, ...reply });
        // Without a server to answer, connections fail at once: no need to spin.
        await sleep(reply.status === 0 ? 100 : 10);
      }
    };
    /** Waits until every kind of write has been acknowledged `count` times since `since`. */
    const steady = (since: number, count = 5) =>
      eventually(
        async () => KINDS.every((kind) => answers.filter((a) => a.kind === kind && isOk(a) && a.start >= since).length >= count),
        120_000,
        100,
      );
    const load = Array.from({ length: CLIENTS }, (_, n) => client(n));
    const figures: Record<string, unknown> = {};

    try {
      await steady(0);

      // 1. The API stops gracefully (SIGTERM) and starts again.
      const sigterm: Outage = { what: 'API SIGTERM', from: Date.now(), to: 0 };
      api!.child.kill('SIGTERM');
      expect(await api!.exit).toEqual({ code: 0, signal: null });
      const stoppedAfter = Date.now() - sigterm.from;
      const spawned = Date.now();
      startApi();
      await waitReady();
      sigterm.to = Date.now() + GRACE_MS;
      outages.push(sigterm);
      figures.apiSigterm = { shutdownMs: stoppedAfter, readyAfterStartMs: Date.now() - spawned };
      await steady(sigterm.to);

      // 2. PostgreSQL stops for a few seconds and starts again; the API stays up.
      const database: Outage = { what: 'PostgreSQL restart', from: Date.now(), to: 0 };
      await pg.stop();
      const ready = await call('GET', '/readyz');
      expect(ready.status).toBe(503);
      expect(ready.body.checks.database).not.toBe('ok');
      expect(ready.body.checks.temporal).toBe('ok');
      expect((await call('GET', '/healthz')).status).toBe(200);
      const refused = await call('POST', `/v1/orgs/${orgId}/collections`, { title: 'While the database is down' });
      expect(refused).toMatchObject({ status: 503, body: { error: { code: 503, message: expect.any(String) } } });
      expect(Number(refused.retryAfter)).toBeGreaterThan(0);
      await sleep(3000);
      // The clients met the outage too (what they were answered is checked below).
      await eventually(async () => answers.some((a) => a.status === 503 && a.start >= database.from), 60_000, 100);
      pg = await startEmbeddedPostgres(pgDir, pgPort);
      const pgStarted = Date.now();
      await waitReady();
      const apiReadyMs = Date.now() - pgStarted;
      database.to = Date.now() + GRACE_MS;
      outages.push(database);
      await steady(database.to);
      const firstWrite = Math.min(...answers.filter((a) => isOk(a) && a.start >= pgStarted).map((a) => a.end));
      figures.postgres = {
        downMs: pgStarted - database.from,
        readyAfterStartMs: apiReadyMs,
        firstWriteAfterStartMs: firstWrite - pgStarted,
      };

      // 3. The API is killed (SIGKILL) and starts again.
      const sigkill: Outage = { what: 'API SIGKILL', from: Date.now(), to: 0 };
      api!.child.kill('SIGKILL');
      expect(await api!.exit).toEqual({ code: null, signal: 'SIGKILL' });
      const respawned = Date.now();
      startApi();
      await waitReady();
      sigkill.to = Date.now() + GRACE_MS;
      outages.push(sigkill);
      figures.apiSigkill = { readyAfterStartMs: Date.now() - respawned };
      await steady(sigkill.to);
    } finally {
      stopping = true;
      await Promise.all(load);
    }

    // Every answer, by when it happened.
    const during = (a: Answer) => outages.find((o) => a.start <= o.to && a.end >= o.from);
    const byStatus = (list: Answer[]) =>
      list.reduce<Record<string, number>>((acc, a) => {
        const key = a.status === 0 ? `no answer (${a.error})` : String(a.status);
        acc[key] = (acc[key] ?? 0) + 1;
        return acc;
      }, {});
    const outside = answers.filter((a) => !during(a));
    const acknowledged = answers.filter(isOk);
    figures.answers = answers.length;
    figures.acknowledged = Object.fromEntries(KINDS.map((k) => [k, acknowledged.filter((a) => a.kind === k).length]));
    figures.outages = outages.map((o) => ({
      what: o.what,
      ms: o.to - o.from,
      answers: byStatus(answers.filter((a) => during(a) === o)),
    }));
    console.log(`restart under load: ${JSON.stringify(figures, null, 2)}`);

    // Outside the outages, every write is acknowledged (a failure shows when and what was answered).
    const first = outages[0]?.from ?? 0;
    expect(
      outside.filter((a) => !isOk(a)).map((a) => ({ at: a.start - first, status: a.status, message: a.body?.error?.message ?? a.error })),
    ).toEqual([]);
    // Inside them, a write is acknowledged, refused with a 503 in the error shape, or finds no server.
    const unexpected = answers.filter((a) => !isOk(a) && a.status !== 0 && a.status !== 503);
    expect(unexpected.map((a) => ({ status: a.status, body: a.body }))).toEqual([]);
    for (const a of answers.filter((x) => x.status === 503)) {
      expect(a.body).toEqual({ error: { code: 503, message: expect.any(String) } });
      expect(Number(a.retryAfter)).toBeGreaterThan(0);
    }
    // While PostgreSQL is down the API keeps answering: connections fail only while the API itself is down.
    const databaseOutage = outages.find((o) => o.what === 'PostgreSQL restart')!;
    expect(answers.filter((a) => a.status === 0 && during(a) === databaseOutage && a.start > databaseOutage.from)).toEqual([]);
    expect(answers.some((a) => a.status === 503 && during(a) === databaseOutage)).toBe(true);

    // Every acknowledged write reads back with what was written.
    const mismatches: unknown[] = [];
    const queue = [...acknowledged];
    const check = async () => {
      for (let a = queue.shift(); a; a = queue.shift()) {
        if (a.kind === 'collection') {
          const got = await call('GET', `/v1/collections/${a.body.id}`);
          if (got.status !== 200 || got.body.title !== a.written.title) mismatches.push({ a, got });
        } else if (a.kind === 'space') {
          const got = await call('GET', `/v1/spaces/${a.body.id}`);
          if (got.status !== 200 || got.body.title !== a.written.title || got.body.parent !== collection.body.id)
            mismatches.push({ a, got });
        } else {
          const pageId = a.body.changes[0].page.id;
          const got = await call(
            'GET',
            `/v1/spaces/${space.body.id}/change-requests/${changeRequests[a.client]}/content/page/${pageId}?format=markdown`,
          );
          if (got.status !== 200 || got.body.title !== a.written.title || got.body.markdown !== a.written.markdown)
            mismatches.push({ a, got });
        }
      }
    };
    await Promise.all(Array.from({ length: CLIENTS }, check));
    expect(mismatches).toEqual([]);
  }, 300_000);
});

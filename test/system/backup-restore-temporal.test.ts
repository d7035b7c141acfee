import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Connection, Client, type WorkflowHandle } from '@temporalio/client';
import { mkdtemp, rm } from 'node:fs/promises';
import pg from 'pg';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { initOrm, migrate } from '../../src/db/orm.ts';
import { newId } from '../../src/domain/ids.ts';
import { backup, restore } from '../../src/lib/backup.ts';
import { createScratchDatabase } from '../../src/lib/infra.ts';
import { spaceDeletionWorkflowId } from '../../src/temporal/space-deletion.ts';
import { purgeNowSignal, statusQuery, type SpaceDeletionStatus } from '../../src/workflows/space-deletion.ts';
import { edit, merge, newChangeRequest, newSpace, PNG_2X3 } from '../support/fixtures.ts';
import { client, createTestOrg, eventually, startTestApp, type Api, type TestApp, type TestOrg } from '../support/harness.ts';
import { json, petstore30, startFixtureServer, type FixtureServer } from '../support/openapi-fixtures.ts';
import {
  findTemporalServerTools,
  missingToolsMessage,
  startTemporalOnPostgres,
  startWorkerProcess,
  TEMPORAL_SERVER_VERSION,
  type TemporalOnPostgres,
} from '../support/temporal-postgres.ts';

/**
 * Backups restore Temporal's persistence too: a Temporal server of the release the Compose stack
 * runs (1.29.1), on PostgreSQL, is backed up with the functions of `npm run backup` while jobs run
 * on it (two space deletions waiting out a 7-day SPACE_RETENTION on a durable timer, an OpenAPI
 * refresh schedule), then stopped and wiped with the service (its two databases and the service's
 * dropped, the blob directory deleted), restored with those of `npm run restore`, and started again
 * on the restored databases at other ports. The jobs are there and carry on: the same runs, still
 * running with their timers pending, found by their search attributes; a restored space's deletion
 * ends on the API's restore, and the space reads back with its pages and file bytes; the other
 * deletion purges its space when told to; the schedule starts a run on the new worker.
 *
 * Needs the server and its SQL tool built from the Go module proxy (test/support/temporal-postgres.ts
 * says how; .ci/run does it): skipped with that message when they are missing, except in CI, where it
 * fails instead.
 */

const { tools, missing } = findTemporalServerTools();
const inCi = !!process.env.CI && process.env.CI !== 'false';
if (!tools && !inCi) console.warn(`backup-restore-temporal.test.ts skipped: ${missingToolsMessage(missing)}`);
const suite = tools || inCi ? describe : describe.skip;

const run = newId(8).toLowerCase();
const queue = `backup-temporal-${run}`;
const RETENTION_MS = 7 * 24 * 3600_000;

let scratch: string;
let database: { url: string; stop(): Promise<unknown> } | undefined;
let temporal: TemporalOnPostgres | undefined;
let fixtures: FixtureServer | undefined;
let worker: { stop(): Promise<void> } | undefined;
let t: TestApp | undefined;
let org: TestOrg;
let env: Record<string, string>;

/** The instance's settings with the Temporal server's current address. */
const envNow = () => ({ ...env, TEMPORAL_ADDRESS: temporal!.address() });

beforeAll(async () => {
  if (!tools && !inCi) return;
  if (!tools) throw new Error(`CI=${process.env.CI}: ${missingToolsMessage(missing)}`);
  scratch = await mkdtemp(join(tmpdir(), 'docs-backup-temporal-'));
  temporal = await startTemporalOnPostgres({ tools, serverUrl: process.env.DATABASE_URL!, run, dir: join(scratch, 'temporal') });
  database = await createScratchDatabase(process.env.DATABASE_URL!, `docs_backup_temporal_${run}`);
  const orm = await initOrm({ databaseUrl: database.url, poolMax: 2 });
  await migrate(orm);
  await orm.close();
  fixtures = await startFixtureServer();
  fixtures.docs.set('/petstore.json', json(petstore30));
  env = {
    DATABASE_URL: database.url,
    DATA_DIR: join(scratch, 'data'),
    BLOB_DIR: join(scratch, 'blobs'),
    SECRETS_KEY: Buffer.alloc(32, 7).toString('base64'),
    TEMPORAL_NAMESPACE: 'default',
    TEMPORAL_TASK_QUEUE: queue,
    SPACE_RETENTION: '7d',
    OPENAPI_REFRESH_INTERVAL: '6h',
    BLOB_COLLECT_EVERY: '0',
    FETCH_ALLOW_HOSTS: '127.0.0.1',
  };
  // The worker registers the search attributes the API's jobs carry: it starts first.
  worker = await startWorkerProcess(envNow());
  t = await startTestApp(envNow());
  org = await createTestOrg(t, 'Backup with Temporal org');
}, 240_000);

afterAll(async () => {
  for (const step of [
    () => t?.close(),
    () => worker?.stop(),
    () => fixtures?.close(),
    () => temporal?.close(),
    () => database?.stop(),
    () => scratch && rm(scratch, { recursive: true, force: true }),
  ]) {
    try {
      await step();
    } catch (error) {
      console.error('cleanup:', (error as Error).message);
    }
  }
}, 120_000);

const PNG = Buffer.from(PNG_2X3, 'base64');
const NOTES = Buffer.from('Archived notes\n'.repeat(100));

/** The bytes a file's download link leads to, read with the caller's token. */
async function bytes(app: TestApp, link: string, token: string): Promise<Buffer> {
  const url = new URL(link);
  const res = await app.app.inject({ url: url.pathname + url.search, headers: { authorization: `Bearer ${token}` } });
  expect({ link: url.pathname, status: res.statusCode }).toEqual({ link: url.pathname, status: 200 });
  return res.rawPayload;
}

/** A space's page tree and every file with its bytes, as the API answers them. */
async function contentOf(app: TestApp, api: Api, token: string, spaceId: string) {
  const pages = await api.get(`/v1/spaces/${spaceId}/content/pages`);
  expect(pages.status).toBe(200);
  const files = await api.get(`/v1/spaces/${spaceId}/content/files`);
  expect(files.status).toBe(200);
  const out: Record<string, unknown> = {
    pages: (pages.body.pages as { title: string; pages?: { title: string }[] }[]).map((p) => [
      p.title,
      (p.pages ?? []).map((c) => c.title),
    ]),
  };
  for (const file of files.body.items as { name: string; downloadURL: string }[]) {
    out[file.name] = (await bytes(app, file.downloadURL, token)).toString('base64');
  }
  return out;
}

/** The OpenAPI spec once its processing completed after `after` (a previous lastProcessedAt). */
function processed(api: Api, after?: string) {
  return eventually(async () => {
    const body = (await api.get(`/v1/orgs/${org.id}/openapi/petstore`)).body;
    return body.processingState === 'complete' && body.lastProcessedAt && body.lastProcessedAt !== after ? body : undefined;
  }, 90_000);
}

/** Drops the database `url` names, as a wipe would (connected to the server's `postgres` database). */
async function dropDatabase(url: string): Promise<void> {
  const server = new URL(url);
  const name = server.pathname.slice(1);
  server.pathname = '/postgres';
  const connection = new pg.Client({ connectionString: server.toString() });
  await connection.connect();
  try {
    await connection.query(`drop database ${name} with (force)`);
  } finally {
    await connection.end();
  }
}

/** Timers a run started and has not fired or cancelled, from its history: [timer id, seconds to fire]. */
async function pendingTimers(handle: WorkflowHandle): Promise<[string, number][]> {
  const { events } = await handle.fetchHistory();
  const open = new Map<string, number>();
  for (const event of events ?? []) {
    const started = event.timerStartedEventAttributes;
    if (started?.timerId) open.set(started.timerId, Number(started.startToFireTimeout?.seconds ?? 0));
    const ended = event.timerFiredEventAttributes ?? event.timerCanceledEventAttributes;
    if (ended?.timerId) open.delete(ended.timerId);
  }
  return [...open];
}

suite(`backup and restore with Temporal ${TEMPORAL_SERVER_VERSION} on PostgreSQL`, () => {
  it('restores the jobs running at backup time: deletions on their timers, a refresh schedule', async () => {
    const app = t!;
    const admin = org.members.admin.api;
    const token = org.members.admin.token;

    // A space with nested pages and two files; another with one page: both deleted before the backup.
    const archive = await newSpace(admin, org.id, { title: 'Archive' });
    const cr = await newChangeRequest(admin, archive.id, 'Pages');
    await edit(admin, archive.id, cr.id, [
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
    await merge(admin, archive.id, cr.id);
    const archiveContent = await contentOf(app, admin, token, archive.id);
    expect(archiveContent.pages).toContainEqual(['Guide', ['Install']]);
    expect(archiveContent).toMatchObject({ 'diagram.png': PNG.toString('base64'), 'notes.txt': NOTES.toString('base64') });
    const obsolete = await newSpace(admin, org.id, { title: 'Obsolete' });
    const cr2 = await newChangeRequest(admin, obsolete.id, 'Page');
    await edit(admin, obsolete.id, cr2.id, [{ operation: 'insert_page', title: 'Old', document: { markdown: 'Old news.\n' } }]);
    await merge(admin, obsolete.id, cr2.id);

    // An OpenAPI spec fetched from a URL: processed once, then refreshed by its schedule.
    const spec = await admin.post(`/v1/orgs/${org.id}/openapi`, { slug: 'petstore', source: { url: `${fixtures!.base}/petstore.json` } });
    expect(spec.status).toBe(201);
    const first = await processed(admin);
    const scheduleId = `openapi-refresh/${spec.body.id}`;
    await eventually(async () => (await app.temporal.schedule.getHandle(scheduleId).describe()).info.runningActions.length === 0, 60_000);

    // The deletions: each waits out SPACE_RETENTION on a timer once the worker ran its first task.
    for (const space of [archive, obsolete]) expect((await admin.delete(`/v1/spaces/${space.id}`)).status).toBe(205);
    const handles = [archive, obsolete].map((space) => app.temporal.workflow.getHandle(spaceDeletionWorkflowId(space.id)));
    for (const handle of handles) await eventually(async () => (await pendingTimers(handle)).length === 1, 60_000);
    const runsBefore = await Promise.all(handles.map(async (h) => (await h.describe()).runId));
    const archiveStatus = (await handles[0].query(statusQuery)) as SpaceDeletionStatus;
    expect(archiveStatus.state).toBe('waiting');
    expect((await admin.get(`/v1/spaces/${archive.id}`)).status).toBe(404);

    // Back up with Temporal's databases, while those jobs run.
    const backupDir = join(scratch, 'backup');
    const manifest = await backup({
      to: backupDir,
      databaseUrl: database!.url,
      temporalDatabaseUrls: [temporal!.databaseUrl, temporal!.visibilityDatabaseUrl],
      blobs: { kind: 'local', dir: env.BLOB_DIR },
    });
    expect(manifest.databases.map((d) => [d.role, d.database])).toEqual([
      ['temporal', `temporal_${run}`],
      ['temporal', `temporal_visibility_${run}`],
      ['service', `docs_backup_temporal_${run}`],
    ]);
    for (const dump of manifest.databases) expect(dump.tables).toBeGreaterThan(0);

    // Everything stops; the three databases are dropped and the blob directory deleted.
    await t!.close();
    t = undefined;
    await worker!.stop();
    await temporal!.stop();
    for (const url of [temporal!.databaseUrl, temporal!.visibilityDatabaseUrl, database!.url]) await dropDatabase(url);
    await rm(env.BLOB_DIR, { recursive: true, force: true });

    const report = await restore({
      from: backupDir,
      databaseUrl: database!.url,
      temporalDatabaseUrls: [temporal!.databaseUrl, temporal!.visibilityDatabaseUrl],
      blobs: { kind: 'local', dir: env.BLOB_DIR },
    });
    expect(report.databases.map((d) => [d.role, d.database, d.created])).toEqual([
      ['temporal', `temporal_${run}`, true],
      ['temporal', `temporal_visibility_${run}`, true],
      ['service', `docs_backup_temporal_${run}`, true],
    ]);
    expect(report.missingBlobs).toEqual([]);

    // Temporal again, on the restored databases (at other ports), before any worker: the same runs,
    // still running, their timers pending, found through the restored visibility store.
    await temporal!.start();
    const connection = await Connection.connect({ address: temporal!.address() });
    try {
      const restored = new Client({ connection, namespace: 'default' });
      const again = [archive, obsolete].map((space) => restored.workflow.getHandle(spaceDeletionWorkflowId(space.id)));
      for (const [i, handle] of again.entries()) {
        const described = await handle.describe();
        expect({ status: described.status.name, runId: described.runId }).toEqual({ status: 'RUNNING', runId: runsBefore[i] });
        const timers = await pendingTimers(handle);
        expect(timers).toHaveLength(1);
        // The 7-day retention, less the moment between the deletion and the timer's start.
        expect(timers[0][1]).toBeGreaterThan(RETENTION_MS / 1000 - 600);
        expect(timers[0][1]).toBeLessThanOrEqual(RETENTION_MS / 1000);
      }
      const listed: string[] = [];
      for await (const execution of restored.workflow.list({
        query: `DocsOrganizationId = "${org.id}" AND DocsJobKind = "space-deletion" AND ExecutionStatus = "Running"`,
      })) {
        listed.push(execution.workflowId);
      }
      expect(listed.sort()).toEqual([archive.id, obsolete.id].map(spaceDeletionWorkflowId).sort());
      // A schedule is described by querying its scheduler run, which the server's own worker
      // service runs once it has joined the restarted cluster: retried until then.
      const schedule = await eventually(() => restored.schedule.getHandle(scheduleId).describe(), 60_000);
      expect(schedule.spec.intervals).toEqual([expect.objectContaining({ every: 6 * 3600_000 })]);
      expect(schedule.state.paused).toBe(false);

      // A worker and an API on the restored instance.
      worker = await startWorkerProcess(envNow());
      t = await startTestApp(envNow());
      const api = client(t.app, token);

      // The restored run replays on the new worker: still waiting, for the same purge time.
      expect(await again[0].query(statusQuery)).toEqual(archiveStatus);

      // Restoring the space through the API ends its deletion; it reads back with its pages and files.
      const back = await api.post(`/v1/spaces/${archive.id}/restore`);
      expect(back.status).toBe(200);
      expect(await again[0].result()).toMatchObject({ state: 'restored' });
      expect(await contentOf(t, api, token, archive.id)).toEqual(archiveContent);

      // The other deletion purges its space when told to skip the rest of the retention.
      await again[1].signal(purgeNowSignal);
      expect(await again[1].result()).toMatchObject({ state: 'purged' });
      expect((await api.get(`/v1/spaces/${obsolete.id}`)).status).toBe(404);
      expect((await api.post(`/v1/spaces/${obsolete.id}/restore`)).status).toBe(404);

      // The refresh schedule starts a run on the restored server, which the new worker processes.
      await restored.schedule.getHandle(scheduleId).trigger();
      const refreshed = await processed(api, first.lastProcessedAt);
      expect(refreshed.lastVersion).toBe(first.lastVersion);
    } finally {
      await connection.close();
    }
  }, 300_000);
});

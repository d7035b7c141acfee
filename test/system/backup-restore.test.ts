import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { insertGitSyncRequest, markGitSyncRequestsSignalled, requestSecretContext } from '../../src/db/git-sync.ts';
import { initOrm, migrate } from '../../src/db/orm.ts';
import { newId } from '../../src/domain/ids.ts';
import { BackupInputError, backup, restore } from '../../src/lib/backup.ts';
import { createScratchDatabase } from '../../src/lib/infra.ts';
import { secretBox } from '../../src/lib/secrets.ts';
import { edit, merge, newChangeRequest, newSpace, PNG_2X3 } from '../support/fixtures.ts';
import { startGitServer, type GitServer } from '../support/git-server.ts';
import { client, createTestOrg, eventually, startTestApp, type Api, type TestApp, type TestOrg } from '../support/harness.ts';

/**
 * A populated instance backed up with the functions of `npm run backup`, wiped (its database
 * dropped, its blob directory deleted), restored with those of `npm run restore`, and read back
 * through a new API on the restored database: every page, every file's bytes (through the signed
 * links the API gives, one of them minted before the backup), the change requests, the Git Sync
 * state and the published site, equal to before. A Git Sync request that was queued at backup time
 * (recorded as handed to the job service, as a request whose signal Temporal's copy lacks would
 * be) is sent again after the restore and applied, its sealed credentials opened with the kept key.
 *
 * The instance has a database, a blob directory, a secrets key and a worker process of its own
 * (on a task queue of this file's own); the worker keeps running through the wipe and the restore,
 * and reconnects to the restored database.
 */

const run = newId(8).toLowerCase();
const queue = `backup-${run}`;
const secretsKey = randomBytes(32);
const at = (n: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString();

let scratch: string;
let database: { url: string; stop(): Promise<unknown> };
let env: Record<string, string>;
let worker: ChildProcess;
let t: TestApp;
let restored: TestApp | undefined;
let org: TestOrg;
let git: GitServer;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'docs-backup-'));
  database = await createScratchDatabase(process.env.DATABASE_URL!, `docs_backup_${run}`);
  const orm = await initOrm({ databaseUrl: database.url, poolMax: 2 });
  await migrate(orm);
  await orm.close();
  env = {
    DATABASE_URL: database.url,
    DATA_DIR: join(scratch, 'data'),
    BLOB_DIR: join(scratch, 'blobs'),
    SECRETS_KEY: secretsKey.toString('base64'),
    TEMPORAL_TASK_QUEUE: queue,
    FETCH_ALLOW_HOSTS: '127.0.0.1',
  };
  worker = spawn(process.execPath, ['src/worker.ts'], {
    env: { ...process.env, ...env, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const started = new Promise<void>((resolve, reject) => {
    let seen = '';
    const keep = (chunk: Buffer) => {
      seen = (seen + chunk.toString()).slice(-4000);
      if (seen.includes('worker started')) resolve();
    };
    worker.stdout!.on('data', keep);
    worker.stderr!.on('data', keep);
    worker.once('exit', (code) => reject(new Error(`the worker exited with ${code}:\n${seen}`)));
  });
  t = await startTestApp(env);
  org = await createTestOrg(t, 'Backup org');
  git = await startGitServer();
  await started;
}, 120_000);

afterAll(async () => {
  if (worker && worker.exitCode === null) {
    worker.kill('SIGTERM');
    await new Promise((r) => worker.once('exit', r));
  }
  await git?.close();
  await restored?.close();
  await t?.close().catch(() => {});
  await database?.stop();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

const PNG = Buffer.from(PNG_2X3, 'base64');
const NOTES = Buffer.from('Release notes\n'.repeat(200));
const REPO = {
  'README.md': '# Welcome\n\nStart with [install](install.md).\n\n![logo](.gitbook/assets/logo.png)\n',
  'install.md': '# Install\n\nRun the installer.\n',
  'SUMMARY.md': '# Table of contents\n\n* [Welcome](README.md)\n* [Install](install.md)\n',
  '.gitbook/assets/logo.png': Buffer.from(PNG_2X3, 'base64'),
};

/** Fields minted afresh on every answer (tokens, signed links): compared by what they lead to instead. */
const FRESH = new Set(['apiToken', 'downloadURL', 'url', 'expires', 'expiresAt']);
function stable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stable);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([key]) => !FRESH.has(key))
        .map(([key, v]) => [key, stable(v)]),
    );
  }
  return value;
}

async function ok(api: Api, url: string) {
  const res = await api.get(url);
  expect({ url, status: res.status }).toEqual({ url, status: 200 });
  return res.body;
}

/** The bytes a link of the API leads to: with the caller's token, or none for a signed link. */
async function bytes(app: TestApp, link: string, token?: string): Promise<Buffer> {
  const url = new URL(link);
  const res = await app.app.inject({ url: url.pathname + url.search, headers: token ? { authorization: `Bearer ${token}` } : {} });
  expect({ link: url.pathname, status: res.statusCode }).toEqual({ link: url.pathname, status: 200 });
  return res.rawPayload;
}

interface Instance {
  spaces: string[];
  changeRequests: { spaceId: string; id: string }[];
  gitSpace: string;
  siteId: string;
}

/** Everything a reader and an editor see of the instance, with every file's bytes. */
async function readAll(app: TestApp, token: string, instance: Instance) {
  const api = client(app.app, token);
  const out: Record<string, unknown> = {};
  for (const spaceId of instance.spaces) {
    out[`space ${spaceId}`] = stable(await ok(api, `/v1/spaces/${spaceId}`));
    out[`content ${spaceId}`] = stable(await ok(api, `/v1/spaces/${spaceId}/content`));
    const tree = (await ok(api, `/v1/spaces/${spaceId}/content/pages`)).pages as { id: string; pages?: unknown[] }[];
    out[`pages ${spaceId}`] = stable(tree);
    const all: { id: string; pages?: unknown[] }[] = [];
    const walk = (list: { id: string; pages?: unknown[] }[]) => list.forEach((p) => (all.push(p), walk((p.pages ?? []) as typeof list)));
    walk(tree);
    for (const page of all) out[`page ${page.id}`] = stable(await ok(api, `/v1/spaces/${spaceId}/content/page/${page.id}`));
    const files = (await ok(api, `/v1/spaces/${spaceId}/content/files`)).items as { id: string; downloadURL: string }[];
    out[`files ${spaceId}`] = stable(files);
    for (const file of files) out[`bytes ${file.id}`] = (await bytes(app, file.downloadURL, token)).toString('base64');
  }
  for (const cr of instance.changeRequests) {
    const body = await ok(api, `/v1/spaces/${cr.spaceId}/change-requests/${cr.id}`);
    out[`change request ${cr.id}`] = stable(body);
    out[`change request pages ${cr.id}`] = stable(await ok(api, `/v1/spaces/${cr.spaceId}/revisions/${body.revision}/pages`));
  }
  out['git info'] = stable(await ok(api, `/v1/spaces/${instance.gitSpace}/git/info`));
  out['site'] = stable(await ok(api, `/v1/orgs/${org.id}/sites/${instance.siteId}`));
  // The published site as its reader sees it: the URL lookup, then the page and the files with its visitor token.
  const lookup = await api.post('/v1/urls/published', { url: `${app.config.sitesUrl}/${org.id}/${instance.siteId}/` });
  expect(lookup.status).toBe(200);
  out['lookup'] = stable(lookup.body);
  const visitor = client(app.app, lookup.body.apiToken);
  const { space, revision, page } = lookup.body as { space: string; revision: string; page: string };
  expect(page).toBeTruthy();
  const publishedTree = (await ok(visitor, `/v1/spaces/${space}/revisions/${revision}/pages`)).pages as { id: string }[];
  out['published pages'] = stable(publishedTree);
  for (const { id } of publishedTree) {
    out[`published page ${id}`] = stable(
      await ok(visitor, `/v1/spaces/${space}/revisions/${revision}/page/${id}/document?evaluated=deterministic-only`),
    );
  }
  const published = (await ok(visitor, `/v1/spaces/${instance.spaces[0]}/content/files`)).items as { id: string }[];
  for (const file of published) {
    const signed = (await ok(visitor, `/v1/spaces/${instance.spaces[0]}/content/files/${file.id}`)).downloadURL as string;
    expect(new URL(signed).searchParams.get('signature')).toBeTruthy();
    out[`published bytes ${file.id}`] = (await bytes(app, signed)).toString('base64');
  }
  return out;
}

describe('backup and restore', () => {
  it('restores a wiped instance from its backup: every page, file, change request, Git Sync state and site reads back the same', async () => {
    const admin = org.members.admin.api;

    // Content: a space with nested pages and two files, merged; a second change request left open.
    const docs = await newSpace(admin, org.id, { title: 'Handbook' });
    const first = await newChangeRequest(admin, docs.id, 'First pages');
    const inserted = await edit(admin, docs.id, first.id, [
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
    const open = await newChangeRequest(admin, docs.id, 'Still in review');
    const guide = inserted.changes.find((c) => c.ref === 'guide')!.page.id;
    await edit(admin, docs.id, open.id, [{ operation: 'update_page', page: guide, document: { markdown: '# Guide\n\nHello again\n' } }]);

    // Git Sync: a space imported from a repository.
    const commit = git.commit('handbook', REPO, { message: 'Docs' });
    const synced = await newSpace(admin, org.id, { title: 'Synced' });
    const imported = await admin.post(`/v1/spaces/${synced.id}/git/import`, {
      url: git.url('handbook'),
      ref: 'refs/heads/main',
      timestamp: at(1),
    });
    expect(imported.status).toBe(204);
    await eventually(async () => (await admin.get(`/v1/spaces/${synced.id}/git/info`)).body?.lastSyncedCommit === commit, 90_000);

    // A published site of the first space.
    const site = (await admin.post(`/v1/orgs/${org.id}/sites`, { title: 'Handbook site', spaces: [docs.id] })).body;
    expect((await admin.post(`/v1/orgs/${org.id}/sites/${site.id}/publish`)).status).toBe(200);

    // A request queued at backup time: recorded and marked as handed over, but not known to this Temporal.
    const later = git.commit('handbook', {
      'changelog.md': '# Changelog\n\nFirst release.\n',
      'SUMMARY.md': `${REPO['SUMMARY.md']}* [Changelog](changelog.md)\n`,
    });
    const requestId = `req-${newId()}`;
    const em = t.orm.em.fork();
    await insertGitSyncRequest(em, {
      id: requestId,
      spaceId: synced.id,
      kind: 'import',
      requestedAt: new Date(at(2)),
      params: { url: git.url('handbook', false), ref: 'refs/heads/main' },
      credentials: secretBox(secretsKey).seal(
        JSON.stringify({ username: 'git-user', password: 's3cret-pass' }),
        requestSecretContext(requestId),
      ),
      requestedBy: null,
    });
    await markGitSyncRequestsSignalled(em, [requestId]);

    const instance: Instance = {
      spaces: [docs.id, synced.id],
      changeRequests: [
        { spaceId: docs.id, id: first.id },
        { spaceId: docs.id, id: open.id },
      ],
      gitSpace: synced.id,
      siteId: site.id,
    };
    const token = org.members.admin.token;
    const before = await readAll(t, token, instance);
    expect(Object.keys(before).filter((k) => k.startsWith('published bytes'))).toHaveLength(2);
    expect(Object.keys(before).filter((k) => k.startsWith('page '))).toHaveLength(5);
    expect(Object.keys(before).filter((k) => k.startsWith('bytes '))).toHaveLength(3);
    // A signed link handed out before the backup.
    const lookup = await admin.post('/v1/urls/published', { url: `${t.config.sitesUrl}/${org.id}/${site.id}/` });
    const notesId = inserted.insertedFiles.find((f: { name: string }) => f.name === 'notes.txt').id;
    const earlyLink = (await client(t.app, lookup.body.apiToken).get(`/v1/spaces/${docs.id}/content/files/${notesId}`)).body
      .downloadURL as string;

    // Back up, then wipe: the database dropped, the blob directory deleted.
    const backupDir = join(scratch, 'backup');
    const manifest = await backup({ to: backupDir, databaseUrl: database.url, blobs: { kind: 'local', dir: env.BLOB_DIR } });
    expect(manifest.databases).toMatchObject([
      { role: 'service', database: `docs_backup_${run}`, file: `service-docs_backup_${run}.dump` },
    ]);
    expect(manifest.blobs.count).toBeGreaterThanOrEqual(3);
    expect(manifest.blobs.copied).toBe(manifest.blobs.count);
    expect(JSON.stringify(manifest)).not.toContain(secretsKey.toString('base64'));
    // A second backup into the same directory copies no blob again.
    expect((await backup({ to: backupDir, databaseUrl: database.url, blobs: { kind: 'local', dir: env.BLOB_DIR } })).blobs.copied).toBe(0);

    await t.close();
    await database.stop();
    await rm(env.BLOB_DIR, { recursive: true, force: true });

    // Restore into the dropped (so created again) database and an empty blob directory.
    const report = await restore({ from: backupDir, databaseUrl: database.url, blobs: { kind: 'local', dir: env.BLOB_DIR } });
    expect(report.databases).toMatchObject([{ role: 'service', created: true }]);
    expect(report.blobs.copied).toBe(manifest.blobs.count);
    // The diagram and the repository's logo are the same bytes: one blob.
    expect(report.referencedBlobs).toBe(2);
    expect(report.missingBlobs).toEqual([]);
    expect(report.gitSyncRequestsResent).toBe(1);
    expect((await readdir(env.BLOB_DIR)).length).toBeGreaterThan(0);
    // A second restore over it is refused: the database holds tables now.
    await expect(restore({ from: backupDir, databaseUrl: database.url, blobs: { kind: 'local', dir: env.BLOB_DIR } })).rejects.toThrow(
      BackupInputError,
    );

    // A new API on the restored database and blob directory reads everything back the same.
    restored = await startTestApp({ ...env, GIT_SYNC_RESEND_AFTER: '100ms' });
    const after = await readAll(restored, token, instance);
    expect(after).toEqual(before);
    expect((await bytes(restored, earlyLink)).equals(NOTES)).toBe(true);

    // The request queued at backup time is handed to the job service again (by the API's own
    // resend, every GIT_SYNC_RESEND_AFTER) and applied.
    const again = client(restored.app, token);
    await eventually(async () => (await again.get(`/v1/spaces/${synced.id}/git/info`)).body?.lastSyncedCommit === later, 90_000);
    const titles = (await ok(again, `/v1/spaces/${synced.id}/content/pages`)).pages.map((p: { title: string }) => p.title);
    expect(titles).toEqual(['Welcome', 'Install', 'Changelog']);
  }, 240_000);
});

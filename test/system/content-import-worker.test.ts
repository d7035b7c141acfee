import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { newId } from '../../src/domain/ids.ts';
import { createTestOrg, eventually, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { startImportFixtures, type ImportFixtures } from '../support/import-fixtures.ts';

/**
 * A worker killed (SIGKILL) in the middle of an import: another worker takes the job over after
 * the heartbeat timeout, and the import is written once. The workers here run on a task queue of
 * this test's own, as separate processes.
 */
let t: TestApp;
let org: TestOrg;
let fx: ImportFixtures;
const queue = `content-import-kill-${newId(8)}`;
const workers: ChildProcess[] = [];

function startWorker(): ChildProcess {
  const child = spawn(process.execPath, ['src/worker.ts'], {
    env: { ...process.env, TEMPORAL_TASK_QUEUE: queue, LOG_LEVEL: 'warn' },
    stdio: 'ignore',
  });
  workers.push(child);
  return child;
}

beforeAll(async () => {
  // A worker process bundles the workflow code as it starts: on a loaded machine that alone can take a minute.
  t = await startTestApp({ TEMPORAL_TASK_QUEUE: queue, CONTENT_IMPORT_WAIT: '300s' });
  org = await createTestOrg(t, 'Import kill org');
  fx = await startImportFixtures();
  const page = (title: string, body: string) => ({
    type: 'text/html',
    body: `<html><body><main><h1>${title}</h1>${body}</main></body></html>`,
    delayMs: 600,
  });
  fx.routes.set('/crash/', page('Start', [1, 2, 3, 4, 5, 6].map((i) => `<a href="p${i}.html">p${i}</a>`).join(' ')));
  for (let i = 1; i <= 6; i++) fx.routes.set(`/crash/p${i}.html`, page(`Page ${i}`, `<p>Text ${i}</p>`));
});
afterAll(async () => {
  for (const worker of workers) {
    if (worker.exitCode === null && worker.signalCode === null) {
      worker.kill('SIGTERM');
      await new Promise((resolve) => worker.once('exit', resolve));
    }
  }
  await fx?.close();
  await t?.close();
});

describe('a worker killed during an import', () => {
  it('lets another worker finish it, once', async () => {
    const first = startWorker();
    const space = await org.members.admin.api.post(`/v1/orgs/${org.id}/spaces`, { title: 'Crash' });
    const request = org.members.admin.api.post(`/v1/spaces/${space.body.id}/content/import`, {
      source: 'website',
      url: `${fx.base}/crash/`,
    });
    // Kill it once it is reading.
    await eventually(async () => fx.hits.includes('/crash/p2.html'), 180_000, 100);
    first.kill('SIGKILL');
    await new Promise((resolve) => first.once('exit', resolve));
    const readsBefore = fx.hits.filter((h) => h === '/crash/').length;
    startWorker();
    const res = await request;
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ importedResources: 7, totalResources: 7 });
    // The read ran again on the second worker, and wrote one revision.
    expect(fx.hits.filter((h) => h === '/crash/').length).toBeGreaterThan(readsBefore);
    const tree = await org.members.admin.api.get(`/v1/spaces/${space.body.id}/content/pages`);
    expect(tree.body.pages.map((p: { title: string }) => p.title)).toEqual([
      'Start',
      'Page 1',
      'Page 2',
      'Page 3',
      'Page 4',
      'Page 5',
      'Page 6',
    ]);
    const revisions = await t.orm.em.fork().getConnection().execute('select id from revision where space_id = ?', [space.body.id]);
    expect(revisions).toHaveLength(2);
  }, 420_000);
});

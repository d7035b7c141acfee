import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createTestOrg, eventually, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { startGitServer, type GitServer } from '../support/git-server.ts';
import { sql } from '../support/sql.ts';
import { gitSyncWorkflowId } from '../../src/temporal/git-sync.ts';

/**
 * A worker killed in the middle of a large import: the import is retried by another worker and
 * lands once (one revision, one applied request). Runs its own worker processes on a task queue
 * of its own, so it can kill them.
 */

const queue = `git-kill-${randomBytes(4).toString('hex')}`;
let t: TestApp;
let org: TestOrg;
let git: GitServer;
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
  t = await startTestApp({ TEMPORAL_TASK_QUEUE: queue });
  org = await createTestOrg(t, 'Git kill org');
  git = await startGitServer();
});
afterAll(async () => {
  for (const worker of workers) if (worker.exitCode === null) worker.kill('SIGKILL');
  await git?.close();
  await t?.close();
});

describe('a worker killed mid-import', () => {
  it('finishes the import once on another worker', async () => {
    const files: Record<string, string | Buffer> = { 'README.md': '# Big\n' };
    const summary = ['* [Big](README.md)'];
    for (let i = 0; i < 600; i++) {
      files[`p/page-${i}.md`] =
        `# Page ${i}\n\nText of page ${i}, see [next](page-${i + 1}.md).\n\n![i](../.gitbook/assets/a${i % 60}.bin)\n`;
      summary.push(`* [Page ${i}](p/page-${i}.md)`);
    }
    for (let i = 0; i < 60; i++) files[`.gitbook/assets/a${i}.bin`] = randomBytes(4096);
    files['SUMMARY.md'] = `${summary.join('\n')}\n`;
    const commit = git.commit('big', files);
    git.slow('big', 4000);

    const first = startWorker();
    const space = await org.members.admin.api.post(`/v1/orgs/${org.id}/spaces`, { title: 'Big' });
    const spaceId: string = space.body.id;
    const count = async () =>
      Number((await sql<{ n: string }>(t.orm.em.fork(), 'select count(*) as n from revision where space_id = ?', [spaceId]))[0].n);
    const before = await count();
    expect(
      (
        await org.members.admin.api.post(`/v1/spaces/${spaceId}/git/import`, {
          url: git.url('big'),
          ref: 'refs/heads/main',
          timestamp: new Date().toISOString(),
        })
      ).status,
    ).toBe(204);

    // Kill the worker while the import activity runs.
    const handle = t.temporal.workflow.getHandle(gitSyncWorkflowId(spaceId));
    await eventually(
      async () => {
        const described = await handle.describe();
        return described.raw.pendingActivities?.some(
          (a) => a.activityType?.name === 'runGitSyncRequest' && Number(a.attempt) === 1 && a.lastStartedTime,
        )
          ? true
          : undefined;
      },
      90_000,
      100,
    );
    first.kill('SIGKILL');
    git.slow('big', 0);
    startWorker();

    const states = await eventually(
      async () => {
        const rows = await sql<{ state: string; commit: string | null }>(
          t.orm.em.fork(),
          'select state, commit from git_sync_request where space_id = ?',
          [spaceId],
        );
        return rows.length === 1 && rows[0].state !== 'queued' ? rows : undefined;
      },
      150_000,
      500,
    );
    expect(states).toEqual([{ state: 'applied', commit }]);
    expect(await count()).toBe(before + 1);
    const pages = (await org.members.admin.api.get(`/v1/spaces/${spaceId}/content/pages`)).body.pages;
    expect(pages).toHaveLength(601);
  }, 240_000);
});

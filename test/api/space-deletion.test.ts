import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { createTestOrg, eventually, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { newSpace, sql } from '../support/fixtures.ts';
import { spaceDeletionWorkflowId } from '../../src/temporal/space-deletion.ts';
import { newId } from '../../src/domain/ids.ts';

let t: TestApp;
let org: TestOrg;
const RETENTION = '3s';

beforeAll(async () => {
  t = await startTestApp({ SPACE_RETENTION: RETENTION });
  org = await createTestOrg(t, 'Deletion org');
});
afterAll(() => t.close());

async function spaceRow(app: TestApp, id: string) {
  const rows = await sql<{ id: string; deleted_at: Date | null }>(app, 'select id, deleted_at from space where id = ?', [id]);
  return rows[0];
}

describe('deleting a space', () => {
  it('hides it at once, records the deletion in Temporal, and purges it after the retention', async () => {
    const api = org.members.admin.api;
    const s = await newSpace(org.members.admin.api, org.id, { title: 'Short-lived' });
    expect((await org.members.create.api.delete(`/v1/spaces/${s.id}`)).status).toBe(403);
    const res = await api.delete(`/v1/spaces/${s.id}`);
    expect(res.status).toBe(205);
    expect((await api.get(`/v1/spaces/${s.id}`)).status).toBe(404);
    expect((await api.delete(`/v1/spaces/${s.id}`)).status).toBe(404);
    const list = await api.get(`/v1/orgs/${org.id}/spaces?limit=1000`);
    expect(list.body.items.map((x: { id: string }) => x.id)).not.toContain(s.id);
    expect((await spaceRow(t, s.id)).deleted_at).not.toBeNull();

    const handle = t.temporal.workflow.getHandle(spaceDeletionWorkflowId(s.id));
    const description = await handle.describe();
    expect(description.workflowId).toBe(`space-deletion/${s.id}`);
    expect(description.searchAttributes).toMatchObject({
      DocsSpaceId: [s.id],
      DocsOrganizationId: [org.id],
      DocsJobKind: ['space-deletion'],
    });
    expect(await description.memo).toMatchObject({ requestedBy: org.members.admin.userId });

    const result = await handle.result();
    expect(result.state).toBe('purged');
    expect(await spaceRow(t, s.id)).toBeUndefined();
    const revisions = await sql(t, 'select id from revision where space_id = ?', [s.id]);
    expect(revisions).toEqual([]);
    expect((await api.post(`/v1/spaces/${s.id}/restore`)).status).toBe(404);
  });

  it('can be found by operators through search attributes', async () => {
    const s = await newSpace(org.members.admin.api, org.id, { title: 'Short-lived' });
    await org.members.admin.api.delete(`/v1/spaces/${s.id}`);
    const found = await eventually(async () => {
      const ids: string[] = [];
      for await (const wf of t.temporal.workflow.list({ query: `DocsSpaceId = "${s.id}" AND DocsJobKind = "space-deletion"` }))
        ids.push(wf.workflowId);
      return ids.length > 0 ? ids : undefined;
    });
    expect(found).toEqual([`space-deletion/${s.id}`]);
  });
});

describe('restoring a space', () => {
  it('brings it back inside the window and the timer never purges it', async () => {
    const s = await newSpace(org.members.admin.api, org.id, { title: 'Short-lived' });
    await org.members.admin.api.delete(`/v1/spaces/${s.id}`);
    expect((await org.members.edit.api.post(`/v1/spaces/${s.id}/restore`)).status).toBe(403);
    const restored = await org.members.admin.api.post(`/v1/spaces/${s.id}/restore`);
    expect(restored.status).toBe(200);
    expect(restored.body).toMatchObject({ id: s.id, object: 'space' });
    expect(restored.body.deletedAt).toBeUndefined();
    const result = await t.temporal.workflow.getHandle(spaceDeletionWorkflowId(s.id)).result();
    expect(result.state).toBe('restored');
    await new Promise((r) => setTimeout(r, 3500));
    expect((await org.members.read.api.get(`/v1/spaces/${s.id}`)).status).toBe(200);
    expect((await org.members.admin.api.post(`/v1/spaces/${s.id}/restore`)).status).toBe(404);
  });

  it('can delete a restored space again, and that deletion purges it', async () => {
    const s = await newSpace(org.members.admin.api, org.id, { title: 'Short-lived' });
    await org.members.admin.api.delete(`/v1/spaces/${s.id}`);
    await org.members.admin.api.post(`/v1/spaces/${s.id}/restore`);
    expect((await org.members.admin.api.delete(`/v1/spaces/${s.id}`)).status).toBe(205);
    const result = await t.temporal.workflow.getHandle(spaceDeletionWorkflowId(s.id)).result();
    expect(result.state).toBe('purged');
    expect(await spaceRow(t, s.id)).toBeUndefined();
  });
});

describe('durability', () => {
  it('still purges when the worker is killed between the deletion and the purge', async () => {
    const queue = `restart-${newId(8)}`;
    const app = await startTestApp({ SPACE_RETENTION: '4s', TEMPORAL_TASK_QUEUE: queue });
    const startWorker = (): ChildProcess =>
      spawn(process.execPath, ['src/worker.ts'], {
        env: { ...process.env, TEMPORAL_TASK_QUEUE: queue },
        stdio: ['ignore', 'inherit', 'inherit'],
      });
    let worker = startWorker();
    try {
      const local = await createTestOrg(app, 'Restart org');
      const s = await newSpace(local.members.admin.api, local.id, { title: 'Short-lived' });
      expect((await local.members.admin.api.delete(`/v1/spaces/${s.id}`)).status).toBe(205);
      const handle = app.temporal.workflow.getHandle(spaceDeletionWorkflowId(s.id));
      // wait until the worker has picked the workflow up and started the timer
      await eventually(async () => (await handle.query<{ state: string }>('status')).state === 'waiting', 60_000);
      worker.kill('SIGKILL');
      await new Promise((r) => worker.once('exit', r));
      // the retention passes while no worker runs: nothing may happen
      await new Promise((r) => setTimeout(r, 5000));
      expect((await spaceRow(app, s.id))?.deleted_at).not.toBeNull();
      worker = startWorker();
      const result = await handle.result();
      expect(result.state).toBe('purged');
      expect(await spaceRow(app, s.id)).toBeUndefined();
    } finally {
      if (worker.exitCode === null) {
        worker.kill('SIGTERM');
        await new Promise((r) => worker.once('exit', r));
      }
      await app.close();
    }
  }, 180_000);
});

describe('operator signals', () => {
  it('restores a space when an operator sends the restore signal', async () => {
    const s = await newSpace(org.members.admin.api, org.id, { title: 'Short-lived' });
    await org.members.admin.api.delete(`/v1/spaces/${s.id}`);
    const handle = t.temporal.workflow.getHandle(spaceDeletionWorkflowId(s.id));
    await handle.signal('restore');
    expect((await handle.result()).state).toBe('restored');
    expect((await org.members.read.api.get(`/v1/spaces/${s.id}`)).status).toBe(200);
  });

  it('purges at once on purge-now', async () => {
    const app = await startTestApp({ SPACE_RETENTION: '1h' });
    try {
      const local = await createTestOrg(app, 'Purge-now org');
      const s = await newSpace(local.members.admin.api, local.id, { title: 'Short-lived' });
      await local.members.admin.api.delete(`/v1/spaces/${s.id}`);
      const handle = app.temporal.workflow.getHandle(spaceDeletionWorkflowId(s.id));
      expect((await handle.query<{ purgeAt: string }>('status')).purgeAt).toBeDefined();
      await handle.signal('purge-now');
      expect((await handle.result()).state).toBe('purged');
      expect(await spaceRow(app, s.id)).toBeUndefined();
    } finally {
      await app.close();
    }
  });
});

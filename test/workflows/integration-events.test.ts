import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { deliveryTargets, EventLogTap, integrationEventsActivities } from '../../src/activities/integration-events.ts';
import { findIntegrationEventById, raiseSpaceEvent, type RaisedFor } from '../../src/db/integration-events.ts';
import { insertInstallationToken } from '../../src/db/integrations.ts';
import { forkEm, transaction } from '../../src/db/orm.ts';
import { newId } from '../../src/domain/ids.ts';
import { createIntegrationSandbox, integrationSandboxOptions, type IntegrationSandbox } from '../../src/lib/integration-sandbox.ts';
import { lazySecretBox } from '../../src/lib/secrets.ts';
import { announceIntegrationEvents } from '../../src/temporal/integration-events.ts';
import { integrationEventsSweep } from '../../src/workflows/integration-events.ts';
import { edit, expect400, merge, newChangeRequest, newSpace } from '../support/fixtures.ts';
import { client, createTestOrg, eventually, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { sql } from '../support/sql.ts';
import { startGitServer, type GitServer } from '../support/git-server.ts';
import { startWorkflowWorker, type WorkflowWorker } from '../support/workflow-worker.ts';

/**
 * The `integration-events` job: events raised in a change's transaction reach the installation's
 * script in workerd, one at a time in the order they were raised, retried when the script answers
 * 5xx, failed at once on a 4xx or a script that cannot start, and listed with their outcome and
 * their script's console output by `listIntegrationEvents`/`getIntegrationEvent`. The script
 * relays each event to a receiver on 127.0.0.1 (through the fetch guard's allow list) and answers
 * what the receiver answered, so the test decides each attempt's outcome. An installation's events
 * go to its one job, started on the queue of whoever raised its first event: the API's setup events
 * start it on the suite's worker, events raised here join it there; this file's worker runs the sweep.
 */
let t: TestApp;
let org: TestOrg;
let w: WorkflowWorker;
let sandbox: IntegrationSandbox;
let receiver: Server;
let receiverUrl: string;
let git: GitServer;
/** What the receiver heard, in order; and the statuses it answers next for an event's revision (200 once they run out). */
const heard: Record<string, any>[] = [];
const statuses = new Map<string, number[]>();

const script = (receiver: string) => `
export default {
  async fetch(request) {
    const form = await request.formData();
    const event = JSON.parse(form.get('event'));
    const env = JSON.parse(form.get('environment'));
    console.log('handling ' + event.type + ' ' + (event.revisionId ?? ''));
    const relayed = await fetch(${JSON.stringify(receiver)}, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        event,
        installation: env.installation ? env.installation.id : null,
        spaceInstallation: env.spaceInstallation ? env.spaceInstallation.space : null,
        integration: env.integration.name,
        secret: env.secrets.apiKey ?? null,
        hasToken: typeof env.apiTokens.installation === 'string',
        apiEndpoint: env.apiEndpoint,
      }),
    });
    return new Response(await relayed.text(), { status: relayed.status });
  },
};`;

beforeAll(async () => {
  t = await startTestApp({ FETCH_ALLOW_HOSTS: '127.0.0.1' });
  org = await createTestOrg(t, 'Integration events org');
  git = await startGitServer();
  receiver = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      const relayed = JSON.parse(body);
      heard.push(relayed);
      const status = statuses.get(relayed.event.revisionId)?.shift() ?? 200;
      response.writeHead(status, { 'content-type': 'text/plain' }).end(status === 200 ? 'ok' : `refused with ${status}`);
    });
  });
  await new Promise<void>((done) => receiver.listen(0, '127.0.0.1', done));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  const logs = new EventLogTap();
  sandbox = createIntegrationSandbox(integrationSandboxOptions(t.config, logs.hear));
  const activities = integrationEventsActivities(t.orm, {
    sandbox,
    logs,
    target: deliveryTargets(t.orm, { publicUrl: t.config.publicUrl, secrets: lazySecretBox(t.config) }),
  });
  w = await startWorkflowWorker('integration-events', 'integration-events.ts', activities);
}, 120_000);

afterAll(async () => {
  await w?.stop();
  await sandbox?.close();
  await new Promise((done) => receiver?.close(done));
  await git?.close();
  await t?.close();
});

const admin = () => org.members.admin.api;

/** A published integration with the receiver's script, installed in the org and enabled on a new space. */
async function installedOnSpace(options: { script?: string; scopes?: string[] } = {}) {
  const name = `events-${newId(8).toLowerCase()}`;
  const published = await admin().post(`/v1/integrations/${name}`, {
    title: 'Events integration',
    description: 'Hears events',
    script: options.script ?? script(receiverUrl),
    organization: org.id,
    visibility: 'private',
    scopes: options.scopes ?? ['space:content:read'],
    secrets: { apiKey: 'the-api-key' },
  });
  expect([published.status, published.body?.error]).toEqual([200, undefined]);
  const installed = await admin().post(`/v1/integrations/${name}/installations`, { organization: org.id });
  expect([installed.status, installed.body?.error]).toEqual([201, undefined]);
  const installationId = installed.body.id as string;
  const space = await newSpace(admin(), org.id, { title: `Space of ${name}` });
  const enabled = await admin().patch(`/v1/integrations/${name}/installations/${installationId}/spaces/${space.id}`, { configuration: {} });
  expect([enabled.status, enabled.body?.error]).toEqual([200, undefined]);
  return { name, installationId, spaceId: space.id as string };
}

/** Raises a content event of the space in a transaction of its own, as a merge does. */
async function raise(spaceId: string, revisionId: string): Promise<RaisedFor[]> {
  return transaction(forkEm(t.orm), (tx) => raiseSpaceEvent(tx, spaceId, 'space_content_updated', { revisionId, updatedBy: [] }));
}

/** The ids of an installation's events of `type`, once there are some. */
async function raisedOf(installationId: string, type: string): Promise<string[]> {
  return eventually(async () => {
    const ids = await eventIdsOf(installationId, type);
    return ids.length > 0 ? ids : undefined;
  }, 60_000);
}

async function settled(eventIds: string[]) {
  return eventually(async () => {
    const rows = await Promise.all(eventIds.map((id) => findIntegrationEventById(forkEm(t.orm), id)));
    return rows.every((row) => row && row.status !== 'pending') ? rows.map((row) => row!) : undefined;
  }, 60_000);
}

async function eventIdsOf(installationId: string, type = 'space_content_updated'): Promise<string[]> {
  const rows = await sql<{ id: string }>(
    forkEm(t.orm),
    'select id from integration_event where installation_id = ? and type = ? order by seq',
    [installationId, type],
  );
  return rows.map((r) => r.id);
}

describe('delivery', () => {
  it('delivers events in the order they were raised, with the installation environment, and lists them with their trace', async () => {
    const { name, installationId, spaceId } = await installedOnSpace();
    const start = heard.length;
    const raised: RaisedFor[] = [];
    for (const revision of ['r1', 'r2', 'r3']) raised.push(...(await raise(spaceId, revision)));
    expect(raised).toEqual([1, 2, 3].map(() => ({ installationId, organizationId: org.id })));
    await announceIntegrationEvents(w.client, w.taskQueue, raised);
    const ids = await eventIdsOf(installationId);
    const rows = await settled(ids);
    expect(rows.map((r) => [r.status, r.attempts, r.responseStatus])).toEqual([1, 2, 3].map(() => ['success', 1, 200]));

    const mine = heard.slice(start).filter((h) => h.installation === installationId && h.event.type === 'space_content_updated');
    expect(mine.map((h) => h.event.revisionId)).toEqual(['r1', 'r2', 'r3']);
    expect(mine[0]).toMatchObject({
      event: { type: 'space_content_updated', eventId: ids[0], installationId, spaceId },
      spaceInstallation: spaceId,
      integration: name,
      secret: 'the-api-key',
      hasToken: true,
      // The service's PUBLIC_URL as the worker delivering the installation's events knows it.
      apiEndpoint: expect.stringMatching(/^http:\/\//),
    });

    const listed = await admin().get(`/v1/integrations/${name}/events?limit=2`);
    expect(listed.status).toBe(200);
    // Newest first: the three content events, then the setup events of the installation and of the space.
    const setups = await settled([
      ...(await eventIdsOf(installationId, 'installation_setup')),
      ...(await eventIdsOf(installationId, 'space_installation_setup')),
    ]);
    expect(listed.body.items.map((e: any) => e.id)).toEqual([ids[2], ids[1]]);
    expect(listed.body.items[0]).toMatchObject({ integrationId: name, installationId, status: 'success', payload: { revisionId: 'r3' } });
    const next = await admin().get(`/v1/integrations/${name}/events?limit=3&page=${listed.body.next.page}`);
    expect(next.body.items.map((e: any) => e.id)).toEqual([ids[0], setups[1].id, setups[0].id]);

    const one = await admin().get(`/v1/integrations/${name}/events/${ids[0]}`);
    expect(one.status).toBe(200);
    expect(one.body.event.id).toBe(ids[0]);
    expect(one.body.trace.logs.map((l: any) => l.message)).toContain('handling space_content_updated r1');
  }, 120_000);

  it('tries again after a 5xx, fails an event at once on a 4xx, and goes on with the next one', async () => {
    const { installationId, spaceId } = await installedOnSpace();
    const raised = [...(await raise(spaceId, 'a')), ...(await raise(spaceId, 'b')), ...(await raise(spaceId, 'c'))];
    statuses.set('a', [503, 200]);
    statuses.set('b', [400]);
    await announceIntegrationEvents(w.client, w.taskQueue, raised);
    const rows = await settled(await eventIdsOf(installationId));
    expect(rows.map((r) => [r.payload.revisionId, r.status, r.attempts, r.responseStatus])).toEqual([
      ['a', 'success', 2, 200],
      ['b', 'failed', 1, 400],
      ['c', 'success', 1, 200],
    ]);
    expect(rows[1].error).toBe('The integration answered 400: refused with 400');
  }, 120_000);

  it('fails the events of a script that cannot start, without trying it again', async () => {
    const { installationId, spaceId } = await installedOnSpace({ script: 'export default { fetch( ' });
    await announceIntegrationEvents(w.client, w.taskQueue, await raise(spaceId, 'broken'));
    const [row] = await settled(await eventIdsOf(installationId));
    expect([row.status, row.attempts]).toEqual(['failed', 1]);
    expect(row.error).toMatch(/^START_FAILED: /);
  }, 120_000);

  it('raises no event for an integration without the scope, nor for a space the installation is not enabled on', async () => {
    const { installationId, spaceId } = await installedOnSpace({ scopes: ['space:metadata:read'] });
    expect(await raise(spaceId, 'x')).toEqual([]);
    const other = await installedOnSpace();
    const elsewhere = await newSpace(admin(), org.id, { title: 'Not enabled' });
    expect(await raise(elsewhere.id, 'y')).toEqual([]);
    expect(await eventIdsOf(installationId)).toEqual([]);
    expect(await eventIdsOf(other.installationId)).toEqual([]);
  });
});

describe('setup events', () => {
  it('tells the integration of its installation, and of each space it is enabled on, with what changed', async () => {
    const { installationId, spaceId } = await installedOnSpace();
    const [installed] = await settled(await eventIdsOf(installationId, 'installation_setup'));
    expect(installed).toMatchObject({ status: 'success', payload: { type: 'installation_setup', installationId, status: 'active' } });
    const [enabled] = await settled(await eventIdsOf(installationId, 'space_installation_setup'));
    expect(enabled.payload).toMatchObject({ type: 'space_installation_setup', installationId, spaceId, status: 'active' });
    expect(enabled.payload.previous).toBeUndefined();
    const name = installed.integrationName;
    const reconfigured = await admin().patch(`/v1/integrations/${name}/installations/${installationId}/spaces/${spaceId}`, {
      externalIds: ['x-1'],
    });
    expect(reconfigured.status).toBe(200);
    const rows = await settled(await eventIdsOf(installationId, 'space_installation_setup'));
    expect(rows).toHaveLength(2);
    expect(rows[1].payload).toMatchObject({ spaceId, status: 'active', previous: { status: 'active', configuration: {} } });
    const heardOf = heard.filter((h) => h.installation === installationId).map((h) => h.event.type);
    expect(heardOf).toEqual(expect.arrayContaining(['installation_setup', 'space_installation_setup']));
  }, 120_000);
});

describe('deleted events', () => {
  it('tells the integration it was removed from a space, with the configuration it had', async () => {
    const { name, installationId, spaceId } = await installedOnSpace();
    const configured = await admin().patch(`/v1/integrations/${name}/installations/${installationId}/spaces/${spaceId}`, {
      configuration: { channel: 'docs' },
    });
    expect(configured.status).toBe(200);
    expect((await admin().delete(`/v1/integrations/${name}/installations/${installationId}/spaces/${spaceId}`)).status).toBe(205);
    // Removing it again removes nothing and tells nothing.
    expect((await admin().delete(`/v1/integrations/${name}/installations/${installationId}/spaces/${spaceId}`)).status).toBe(204);
    const [deleted, ...more] = await settled(await raisedOf(installationId, 'space_installation_deleted'));
    expect(more).toEqual([]);
    expect(deleted).toMatchObject({
      status: 'success',
      payload: { type: 'space_installation_deleted', installationId, spaceId, previous: { configuration: { channel: 'docs' } } },
    });
    expect(heard.some((h) => h.installation === installationId && h.event.type === 'space_installation_deleted')).toBe(true);
  }, 120_000);

  it('tells the integration it was uninstalled from the organization, without a token of the installation gone', async () => {
    const { name, installationId } = await installedOnSpace();
    const configured = await admin().patch(`/v1/integrations/${name}/installations/${installationId}`, { configuration: { team: 'docs' } });
    expect([configured.status, configured.body?.error]).toEqual([200, undefined]);
    expect((await admin().delete(`/v1/integrations/${name}/installations/${installationId}`)).status).toBe(205);
    const [deleted, ...more] = await settled(await raisedOf(installationId, 'installation_deleted'));
    expect(more).toEqual([]);
    expect(deleted).toMatchObject({
      status: 'success',
      payload: { type: 'installation_deleted', installationId, previous: { configuration: { team: 'docs' } } },
    });
    const told = heard.find((h) => h.event.type === 'installation_deleted' && h.event.installationId === installationId);
    expect(told).toMatchObject({ installation: null, integration: name, hasToken: false, secret: 'the-api-key' });
    // The integration's owner still reads the event of the installation that is gone.
    const listed = await admin().get(`/v1/integrations/${name}/events`);
    expect(listed.body.items.map((e: { id: string }) => e.id)).toContain(deleted.id);
  }, 120_000);
});

describe('a space made public', () => {
  it('raises space_visibility_updated with both visibilities, for integrations with space:metadata:read, and nothing when it stays', async () => {
    const { installationId, spaceId } = await installedOnSpace({ scopes: ['space:metadata:read'] });
    const unheard = await installedOnSpace({ scopes: ['space:content:read'] });
    for (const id of [spaceId, unheard.spaceId])
      expect((await admin().patch(`/v1/spaces/${id}`, { visibility: 'public' })).status).toBe(200);
    // The same visibility again, and a title: no event.
    expect((await admin().patch(`/v1/spaces/${spaceId}`, { visibility: 'public', title: 'Renamed' })).status).toBe(200);
    const [updated, ...more] = await settled(await raisedOf(installationId, 'space_visibility_updated'));
    expect(more).toEqual([]);
    expect(updated).toMatchObject({
      status: 'success',
      payload: { type: 'space_visibility_updated', spaceId, previousVisibility: 'private', visibility: 'public' },
    });
    expect(await eventIdsOf(unheard.installationId, 'space_visibility_updated')).toEqual([]);
  }, 120_000);

  it('raises it when a space leaves its collection and stops being in-collection', async () => {
    const { name, installationId } = await installedOnSpace({ scopes: ['space:metadata:read'] });
    const collection = await admin().post(`/v1/orgs/${org.id}/collections`, { title: `Collection of ${name}` });
    expect(collection.status).toBe(201);
    const inside = await newSpace(admin(), org.id, { title: 'In a collection', parent: collection.body.id });
    expect(inside.visibility).toBe('in-collection');
    expect(
      (await admin().patch(`/v1/integrations/${name}/installations/${installationId}/spaces/${inside.id}`, { configuration: {} })).status,
    ).toBe(200);
    expect((await admin().post(`/v1/spaces/${inside.id}/move`, { parent: null })).status).toBe(200);
    const [updated] = await settled(await raisedOf(installationId, 'space_visibility_updated'));
    expect(updated.payload).toMatchObject({ spaceId: inside.id, previousVisibility: 'in-collection', visibility: 'private' });
  }, 120_000);
});

describe('the sweep', () => {
  it('starts the delivery of events whose start was lost', async () => {
    const { installationId, spaceId } = await installedOnSpace();
    await raise(spaceId, 'lost');
    await sql(forkEm(t.orm), "update integration_event set created_at = now() - interval '2 minutes' where installation_id = ?", [
      installationId,
    ]);
    const { woken } = await w.client.workflow.execute(integrationEventsSweep, {
      taskQueue: w.taskQueue,
      workflowId: w.workflowId('sweep'),
    });
    expect(woken).toBeGreaterThanOrEqual(1);
    const [row] = await settled(await eventIdsOf(installationId));
    expect(row.status).toBe('success');
  }, 120_000);

  it('deletes installation tokens a day after they expired, and keeps the others', async () => {
    const { installationId } = await installedOnSpace();
    const now = Date.now();
    const token = (id: string, expiresAt: number) =>
      insertInstallationToken(forkEm(t.orm), {
        id,
        installationId,
        tokenHash: `hash-${id}`,
        createdBy: null,
        createdAt: new Date(now - 3 * 86_400_000),
        expiresAt: new Date(expiresAt),
      });
    const [old, recent, live] = [newId(), newId(), newId()];
    await token(old, now - 2 * 86_400_000);
    await token(recent, now - 3_600_000);
    await token(live, now + 3_600_000);
    await w.client.workflow.execute(integrationEventsSweep, { taskQueue: w.taskQueue, workflowId: w.workflowId('token-sweep') });
    const left = await sql<{ id: string }>(forkEm(t.orm), 'select id from integration_installation_token where id in (?, ?, ?)', [
      old,
      recent,
      live,
    ]);
    expect(left.map((r) => r.id).sort()).toEqual([recent, live].sort());
  }, 120_000);
});

describe('a merge', () => {
  it('raises space_content_updated with the merged revision, delivered by the service worker', async () => {
    const { installationId, spaceId } = await installedOnSpace();
    const cr = await newChangeRequest(admin(), spaceId, 'Heard by integrations');
    await edit(admin(), spaceId, cr.id, [{ operation: 'insert_page', title: 'New page', document: { markdown: 'Hello\n' } }]);
    await merge(admin(), spaceId, cr.id);
    const merged = (await admin().get(`/v1/spaces/${spaceId}`)).body.revision;
    const [row] = await settled(await eventIdsOf(installationId));
    expect(row).toMatchObject({ status: 'success', type: 'space_content_updated' });
    expect(row.payload).toMatchObject({ spaceId, revisionId: merged, updatedBy: [{ object: 'user', id: org.members.admin.userId }] });
  }, 120_000);
});

describe('a Git Sync import', () => {
  it('raises space_gitsync_started, space_content_updated and space_gitsync_completed with the commit, for integrations with each scope', async () => {
    const { installationId, spaceId } = await installedOnSpace({ scopes: ['space:content:read', 'space:git:sync'] });
    const before = (await admin().get(`/v1/spaces/${spaceId}`)).body.revision;
    const commit = git.commit('events', { 'README.md': '# Synced\n\nFrom the repository.\n' }, { message: 'Docs' });
    const res = await admin().post(`/v1/spaces/${spaceId}/git/import`, { url: git.url('events'), ref: 'refs/heads/main' });
    expect(res.status).toBe(204);
    // The import runs in the service's worker: its events exist once it has applied the commit.
    const raised = await raisedOf(installationId, 'space_gitsync_completed');
    const [completed] = await settled(raised);
    const revision = (await admin().get(`/v1/spaces/${spaceId}`)).body.revision;
    expect(completed).toMatchObject({ status: 'success' });
    expect(completed.payload).toMatchObject({ spaceId, state: 'success', commitId: commit, revisionId: revision });
    const [updated] = await settled(await eventIdsOf(installationId, 'space_content_updated'));
    expect(updated.payload).toMatchObject({ spaceId, revisionId: revision, updatedBy: [] });
    // Started before it was applied: with the revision it started from, heard before the completion.
    const [started] = await settled(await eventIdsOf(installationId, 'space_gitsync_started'));
    expect(started).toMatchObject({ status: 'success', payload: { spaceId, commitId: commit, revisionId: before } });
    expect(BigInt(started.seq)).toBeLessThan(BigInt(completed.seq));
  }, 120_000);

  it('raises space_gitsync_completed with state failure when an import fails, the revision unmoved', async () => {
    const { installationId, spaceId } = await installedOnSpace({ scopes: ['space:git:sync'] });
    const before = (await admin().get(`/v1/spaces/${spaceId}`)).body.revision;
    const res = await admin().post(`/v1/spaces/${spaceId}/git/import`, { url: git.url('no-such-repository'), ref: 'refs/heads/main' });
    expect(res.status).toBe(204);
    const raised = await raisedOf(installationId, 'space_gitsync_completed');
    const [completed] = await settled(raised);
    expect(completed.payload).toMatchObject({ spaceId, state: 'failure', revisionId: before });
    expect((await admin().get(`/v1/spaces/${spaceId}`)).body.revision).toBe(before);
  }, 120_000);
});

describe('queued tasks', () => {
  /** What the receiver heard of the task whose payload carries `n`, once it has. */
  const taskHeard = (n: number) => eventually(async () => heard.find((h) => h.event.type === 'task' && h.event.task?.n === n), 60_000);

  it("run a task the integration queues with its installation's token, at once or after its delay, with that installation's environment", async () => {
    const { name, installationId } = await installedOnSpace();
    const minted = await admin().post(`/v1/integrations/${name}/installations/${installationId}/tokens`);
    expect(minted.status).toBe(200);
    const asIntegration = client(t.app, minted.body.token);
    expect((await asIntegration.post(`/v1/integrations/${name}/tasks`, { task: { kind: 'sync', n: 1 } })).status).toBe(204);
    const now = await taskHeard(1);
    expect(now).toMatchObject({
      integration: name,
      installation: installationId,
      hasToken: true,
      event: { type: 'task', task: { kind: 'sync', n: 1 } },
    });
    const queuedAt = Date.now();
    expect((await asIntegration.post(`/v1/integrations/${name}/tasks`, { task: { n: 2 }, schedule: 2 })).status).toBe(204);
    await taskHeard(2);
    // Never before its delay (a lower bound: however slow the machine, it cannot come early).
    expect(Date.now() - queuedAt).toBeGreaterThanOrEqual(2000);
    // An admin of the owner queues one with the integration's own environment: no installation.
    expect((await admin().post(`/v1/integrations/${name}/tasks`, { task: { n: 3 } })).status).toBe(204);
    expect(await taskHeard(3)).toMatchObject({ installation: null, hasToken: false });
  }, 120_000);

  it("refuses another integration's token, members who may not, and bad tasks, in the API's error shape", async () => {
    const first = await installedOnSpace();
    const second = await installedOnSpace();
    const token = (await admin().post(`/v1/integrations/${second.name}/installations/${second.installationId}/tokens`)).body.token;
    // The attacker's requests: an installation's token queuing for another integration, a member below admin, another organization's admin.
    expect((await client(t.app, token).post(`/v1/integrations/${first.name}/tasks`, { task: {} })).status).toBe(404);
    expect((await org.members.edit.api.post(`/v1/integrations/${first.name}/tasks`, { task: {} })).status).toBe(403);
    const outsider = await createTestOrg(t, 'Task outsiders');
    expect((await outsider.members.admin.api.post(`/v1/integrations/${first.name}/tasks`, { task: {} })).status).toBe(404);
    expect((await admin().post('/v1/integrations/no-such-integration/tasks', { task: {} })).status).toBe(404);
    expect400(await admin().post(`/v1/integrations/${first.name}/tasks`, { task: {}, schedule: 86401 }), /schedule/);
    expect400(await admin().post(`/v1/integrations/${first.name}/tasks`, { task: {}, schedule: -1 }), /schedule/);
    expect400(await admin().post(`/v1/integrations/${first.name}/tasks`, { task: [1] }), /task/);
    expect400(await admin().post(`/v1/integrations/${first.name}/tasks`, {}), /task/);
    expect400(await admin().post(`/v1/integrations/${first.name}/tasks`, { task: { big: 'x'.repeat(70 * 1024) } }), /at most 65536/);
  });
});

describe('who reads events', () => {
  it('answers them to admins of the owner only', async () => {
    const { name } = await installedOnSpace();
    expect((await org.members.edit.api.get(`/v1/integrations/${name}/events`)).status).toBe(403);
    const stranger = await createTestOrg(t, 'Stranger org');
    expect((await stranger.members.admin.api.get(`/v1/integrations/${name}/events`)).status).toBe(404);
    expect((await admin().get(`/v1/integrations/${name}/events/nope`)).status).toBe(404);
  });
});

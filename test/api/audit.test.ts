import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { GitBookAPI } from '@gitbook/api';
import { issueToken } from '../../src/db/accounts.ts';
import { createTestOrg, startTestApp, type Api, type TestApp, type TestOrg } from '../support/harness.ts';
import { listenOnLoopback, newChangeRequest, newSpace } from '../support/fixtures.ts';
import { expectMatchesGitBook } from '../support/gitbook-openapi.ts';
import { sql } from '../support/sql.ts';

/**
 * The audit log read through GitBook's three operations: what a change records (actor, target,
 * address, organization), filters and pages, admins only, nothing recorded for a change rolled
 * back, and rows that cannot be changed.
 */
let t: TestApp;
let org: TestOrg;
let other: TestOrg;
const admin = () => org.members.admin.api;
const events = (query = '') => admin().get(`/v1/orgs/${org.id}/audit-events${query}`);

/** The events a request recorded, found by its request id (its event's execution id) and what share its correlation id. */
async function eventsOf(requestId: string): Promise<any[]> {
  const rows = await sql<{ id: string }>(
    t.orm.em.fork(),
    'select id from audit_event where correlation_id in (select correlation_id from audit_event where execution_id = ?)',
    [requestId],
  );
  return Promise.all(rows.map(async (r) => (await admin().get(`/v1/orgs/${org.id}/audit-events/${r.id}`)).body));
}

async function send(token: string, method: 'POST' | 'PATCH' | 'DELETE' | 'PUT', url: string, body?: unknown, headers = {}) {
  const requestId = `audit-${Math.random().toString(36).slice(2)}`;
  const res = await t.app.inject({
    method,
    url,
    headers: {
      authorization: `Bearer ${token}`,
      'x-request-id': requestId,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    payload: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.statusCode, body: res.body ? JSON.parse(res.body) : undefined, requestId };
}

beforeAll(async () => {
  t = await startTestApp();
  [org, other] = await Promise.all([createTestOrg(t, 'Audited'), createTestOrg(t, 'Audit outsiders')]);
});
afterAll(() => t.close());

describe('recording', () => {
  it('records a change with its actor, target, organization, source and address', async () => {
    const res = await send(org.members.admin.token, 'POST', `/v1/orgs/${org.id}/collections`, { title: 'Handbook' });
    expect(res.status).toBe(201);
    const [event, ...more] = await eventsOf(res.requestId);
    expect(more).toEqual([]);
    expect(event).toMatchObject({
      object: 'audit-event',
      action: 'collection.created',
      actor: { type: 'user', id: org.members.admin.userId, label: 'admin user' },
      source: 'api',
      target: { type: 'collection', id: res.body.id, label: 'Handbook' },
      executionId: res.requestId,
      correlationId: expect.any(String),
      schemaVersion: 1,
      payload: { fields: ['title'] },
      origin: { ipAddress: '127.0.0.1', tokenKind: 'api' },
    });
    expect(event.urls.location).toBe(`${t.config.publicUrl}/v1/orgs/${org.id}/audit-events/${event.id}`);
    expect(Date.now() - Date.parse(event.occurredAt)).toBeLessThan(60_000);
  });

  it('records every request, whatever request id the client sends: a reused X-Request-Id hides no change', async () => {
    const reused = { 'x-request-id': `reused-${Math.random().toString(36).slice(2)}` };
    const first = await send(org.members.admin.token, 'POST', `/v1/orgs/${org.id}/collections`, { title: 'First' }, reused);
    const second = await send(org.members.admin.token, 'POST', `/v1/orgs/${org.id}/collections`, { title: 'Second' }, reused);
    expect([first.status, second.status]).toEqual([201, 201]);
    const rows = await sql<{ target_id: string; correlation_id: string }>(
      t.orm.em.fork(),
      "select target_id, correlation_id from audit_event where execution_id = ? and action = 'collection.created' order by occurred_at",
      [reused['x-request-id']],
    );
    expect(rows.map((r) => r.target_id).sort()).toEqual([first.body.id, second.body.id].sort());
    expect(new Set(rows.map((r) => r.correlation_id)).size).toBe(2);
  });

  it('records an update of a space, found through the space (organization from the access check)', async () => {
    const space = await newSpace(admin(), org.id);
    const res = await send(org.members.edit.token, 'PATCH', `/v1/spaces/${space.id}`, { title: 'Renamed' });
    expect(res.status).toBe(200);
    const [event] = await eventsOf(res.requestId);
    expect(event).toMatchObject({
      action: 'space.updated',
      actor: { id: org.members.edit.userId },
      target: { type: 'space', id: space.id },
      payload: { fields: ['title'] },
    });
  });

  it('names an SSO-minted token as such, and never stores a secret of the body', async () => {
    const sso = (await issueToken(t.orm.em.fork(), org.members.admin.userId, 'SAML sign-in', org.id)).token;
    const res = await send(sso, 'POST', `/v1/orgs/${org.id}/site-lookup-tokens`, { label: 'Renderer' });
    expect(res.status).toBe(201);
    const [event] = await eventsOf(res.requestId);
    expect(event).toMatchObject({ action: 'site_lookup_token.created', origin: { tokenKind: 'sso' }, target: { id: res.body.id } });
    const stored = await sql(t.orm.em.fork(), 'select to_jsonb(a) as row from audit_event a where execution_id = ?', [res.requestId]);
    expect(JSON.stringify(stored)).not.toContain(res.body.token);
  });

  it('takes the client address from X-Forwarded-For only from a trusted proxy', async () => {
    const res = await send(
      org.members.admin.token,
      'POST',
      `/v1/orgs/${org.id}/collections`,
      { title: 'Spoofed' },
      {
        'x-forwarded-for': '203.0.113.9',
      },
    );
    const [event] = await eventsOf(res.requestId);
    // TRUST_PROXY is off in the tests: the header is the client's own claim, not its address.
    expect(event.origin.ipAddress).toBe('127.0.0.1');
  });

  it('records nothing for a request refused before it changed anything', async () => {
    const res = await send(org.members.read.token, 'POST', `/v1/orgs/${org.id}/collections`, { title: 'Refused' });
    expect(res.status).toBe(403);
    expect(await eventsOf(res.requestId)).toEqual([]);
  });

  it('leaves no event for a change rolled back by a failure after it wrote', async () => {
    const collection = (await admin().post(`/v1/orgs/${org.id}/collections`, { title: 'Before' })).body;
    const em = t.orm.em.fork();
    // An injected failure: the update of this one collection fails in the database, after the write was sent.
    await sql(
      em,
      `create or replace function audit_test_refuse() returns trigger language plpgsql as $$
       begin if new.id = '${collection.id}' then raise exception 'injected failure'; end if; return new; end $$`,
    );
    await sql(em, `create trigger audit_test_refuse after update on collection for each row execute function audit_test_refuse()`);
    try {
      const res = await send(org.members.admin.token, 'PATCH', `/v1/collections/${collection.id}`, { title: 'After' });
      expect(res.status).toBe(500);
      expect(await eventsOf(res.requestId)).toEqual([]);
      expect((await admin().get(`/v1/collections/${collection.id}`)).body.title).toBe('Before');
    } finally {
      await sql(em, 'drop trigger audit_test_refuse on collection');
    }
    // The same change, committed, has its event.
    const res = await send(org.members.admin.token, 'PATCH', `/v1/collections/${collection.id}`, { title: 'After' });
    expect(res.status).toBe(200);
    expect((await eventsOf(res.requestId)).map((e) => e.action)).toEqual(['collection.updated']);
  });

  it('leaves no event for a change request batch refused half-way (its transaction rolled back)', async () => {
    const space = await newSpace(admin(), org.id);
    const cr = await newChangeRequest(admin(), space.id);
    const res = await send(org.members.admin.token, 'POST', `/v1/spaces/${space.id}/change-requests/${cr.id}/content`, {
      changes: [
        { operation: 'insert_page', title: 'Fine', document: { markdown: 'fine' } },
        { operation: 'update_page', page: 'no-such-page', title: 'Broken' },
      ],
    });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(await eventsOf(res.requestId)).toEqual([]);
  });

  it('refuses to change an event, whoever asks the database', async () => {
    const [row] = await sql<{ id: string }>(t.orm.em.fork(), 'select id from audit_event where organization_id = ? limit 1', [org.id]);
    await expect(sql(t.orm.em.fork(), `update audit_event set action = 'forged' where id = ?`, [row.id])).rejects.toThrow(
      /audit events cannot be changed/,
    );
    const answer = await admin().get(`/v1/orgs/${org.id}/audit-events/${row.id}`);
    expect(answer.body.action).not.toBe('forged');
  });

  it('has no route that changes an event', async () => {
    const [row] = await sql<{ id: string }>(t.orm.em.fork(), 'select id from audit_event where organization_id = ? limit 1', [org.id]);
    for (const method of ['PUT', 'PATCH', 'DELETE', 'POST'] as const) {
      const res = await send(
        org.members.admin.token,
        method,
        `/v1/orgs/${org.id}/audit-events/${row.id}`,
        method === 'DELETE' ? undefined : {},
      );
      expect(res.status).toBe(404);
    }
  });
});

describe('retention', () => {
  it('never answers an event past AUDIT_RETENTION, and deletes expired events as new ones are recorded', async () => {
    const em = t.orm.em.fork();
    const old = `expired-${Math.random().toString(36).slice(2)}`;
    // Events recorded 400 days ago (the retention is 365 days by default).
    for (let i = 0; i < 3; i++) {
      await sql(
        em,
        `insert into audit_event (id, organization_id, occurred_at, action, actor_type, actor_id, source, target_type, target_id, correlation_id)
         values (gen_random_uuid()::text, ?, now() - interval '400 days', 'collection.created', 'user', ?, 'api', 'collection', ?, ?)`,
        [org.id, org.members.admin.userId, old, `${old}-${i}`],
      );
    }
    const [expired] = await sql<{ id: string }>(em, 'select id from audit_event where target_id = ? limit 1', [old]);
    expect((await events(`?target=${old}`)).body).toEqual({ items: [], count: 0 });
    expect((await admin().get(`/v1/orgs/${org.id}/audit-events/${expired.id}`)).status).toBe(404);
    // The next change recorded deletes them.
    const res = await send(org.members.admin.token, 'POST', `/v1/orgs/${org.id}/collections`, { title: 'Fresh' });
    expect(res.status).toBe(201);
    expect(await sql(em, 'select id from audit_event where target_id = ?', [old])).toEqual([]);
    expect(await eventsOf(res.requestId)).toHaveLength(1);
  });
});

describe('reading', () => {
  let filtered: TestOrg;
  const ids: string[] = [];
  let middle: string;

  beforeAll(async () => {
    filtered = await createTestOrg(t, 'Audit filters');
    const api = filtered.members.admin.api;
    for (let i = 0; i < 5; i++) ids.push((await api.post(`/v1/orgs/${filtered.id}/collections`, { title: `C${i}` })).body.id);
    middle = new Date().toISOString();
    await new Promise((r) => setTimeout(r, 20));
    await filtered.members.create.api.post(`/v1/orgs/${filtered.id}/collections`, { title: 'By create' });
    await api.patch(`/v1/collections/${ids[0]}`, { title: 'C0 renamed' });
  });
  const list = (query = '') => filtered.members.admin.api.get(`/v1/orgs/${filtered.id}/audit-events${query}`);

  it('lists newest first, 20 a page by default', async () => {
    const res = await list();
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(7);
    expect(res.body.items.map((e: any) => e.action)).toEqual([
      'collection.updated',
      'collection.created',
      ...Array(5).fill('collection.created'),
    ]);
    const times = res.body.items.map((e: any) => Date.parse(e.occurredAt));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    expect(res.body.next).toBeUndefined();
  });

  it('pages with next.page, without gaps or repeats', async () => {
    const seen: string[] = [];
    let page: string | undefined;
    let pages = 0;
    do {
      const res = await list(`?limit=2${page ? `&page=${encodeURIComponent(page)}` : ''}`);
      expect(res.status).toBe(200);
      expect(res.body.items.length).toBeLessThanOrEqual(2);
      seen.push(...res.body.items.map((e: any) => e.id));
      page = res.body.next?.page;
      pages++;
    } while (page);
    expect(pages).toBe(4);
    expect(new Set(seen).size).toBe(7);
    expect(seen).toEqual((await list()).body.items.map((e: any) => e.id));
  });

  it('filters by action, actor, target and time', async () => {
    expect((await list('?action=collection.updated')).body.items.map((e: any) => e.target.id)).toEqual([ids[0]]);
    expect((await list(`?actor=${filtered.members.create.userId}`)).body.items.map((e: any) => e.target.label)).toEqual(['By create']);
    expect((await list(`?target=${ids[0]}`)).body.items.map((e: any) => e.action).sort()).toEqual([
      'collection.created',
      'collection.updated',
    ]);
    expect((await list(`?from=${encodeURIComponent(middle)}`)).body.count).toBe(2);
    expect((await list(`?to=${encodeURIComponent(middle)}`)).body.count).toBe(5);
    expect((await list(`?from=${encodeURIComponent(middle)}&action=collection.created`)).body.count).toBe(1);
    expect((await list('?action=no.such')).body).toEqual({ items: [], count: 0 });
  });

  it('refuses bad queries with a 400 in the error shape', async () => {
    for (const query of [
      '?limit=0',
      '?limit=101',
      '?from=yesterday',
      '?page=garbage',
      `?from=${encodeURIComponent(new Date().toISOString())}&to=2000-01-01T00:00:00Z`,
    ]) {
      const res = await list(query);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe(400);
    }
  });

  it('answers the catalog of actions', async () => {
    const res = await filtered.members.admin.api.get(`/v1/orgs/${filtered.id}/audit-event-actions`);
    expect(res.status).toBe(200);
    expect(res.body.items).toEqual(
      expect.arrayContaining([{ object: 'audit-event-action', id: 'collection.created', label: 'Collection created' }]),
    );
  });

  it('answers an event of another organization 404, and an unknown one 404', async () => {
    const [mine] = (await list('?limit=1')).body.items;
    expect((await events(`/${mine.id}`)).status).toBe(404);
    expect((await list('')).status).toBe(200);
    expect((await filtered.members.admin.api.get(`/v1/orgs/${filtered.id}/audit-events/00000000-0000-4000-8000-000000000000`)).status).toBe(
      404,
    );
  });
});

describe('who may read', () => {
  it('answers members below admin 403 and everyone else 404, on all three operations', async () => {
    const [event] = (await events('?limit=1')).body.items;
    const urls = [
      `/v1/orgs/${org.id}/audit-events`,
      `/v1/orgs/${org.id}/audit-events/${event.id}`,
      `/v1/orgs/${org.id}/audit-event-actions`,
    ];
    const lookupToken = (await admin().post(`/v1/orgs/${org.id}/site-lookup-tokens`, { label: 'Renderer' })).body.token;
    const space = await newSpace(admin(), org.id);
    const site = (await admin().post(`/v1/orgs/${org.id}/sites`, { title: 'Published', spaces: [space.id] })).body;
    await admin().post(`/v1/orgs/${org.id}/sites/${site.id}/publish`);
    const visitorToken = (await admin().post('/v1/urls/published', { url: `${t.config.sitesUrl}/${org.id}/${site.id}/` })).body.apiToken;
    expect(visitorToken).toEqual(expect.any(String));
    const { client } = await import('../support/harness.ts');
    const callers: [string, Api, number][] = [
      ['a member with the create role', org.members.create.api, 403],
      ['a reader', org.members.read.api, 403],
      ['a guest', org.members.guest.api, 403],
      ["another organization's admin", other.members.admin.api, 404],
      ['a site lookup token', client(t.app, lookupToken), 403],
      ["a site visitor's token", client(t.app, visitorToken), 403],
      ['no token', client(t.app), 401],
    ];
    for (const [who, api, status] of callers) {
      for (const url of urls) {
        const res = await api.get(url);
        expect({ who, url, status: res.status }).toEqual({ who, url, status });
        expect(res.body.error.code).toBe(status);
      }
    }
  });
});

describe("GitBook's client", () => {
  it('lists, pages, filters and reads events and actions', async () => {
    const endpoint = await listenOnLoopback(t);
    const api: any = new GitBookAPI({ endpoint, authToken: org.members.admin.token });
    const first = await api.orgs.listOrganizationAuditEvents(org.id, { limit: 2 });
    expectMatchesGitBook('listOrganizationAuditEvents', first.data);
    expect(first.data.items).toHaveLength(2);
    const second = await api.orgs.listOrganizationAuditEvents(org.id, { limit: 2, page: first.data.next.page });
    expect(second.data.items[0].id).not.toBe(first.data.items[1].id);
    const filteredList = await api.orgs.listOrganizationAuditEvents(org.id, { action: 'collection.created' });
    expect(filteredList.data.items.every((e: any) => e.action === 'collection.created')).toBe(true);
    const one = await api.orgs.getOrganizationAuditEvent(org.id, first.data.items[0].id);
    expectMatchesGitBook('getOrganizationAuditEvent', one.data);
    expect(one.data.id).toBe(first.data.items[0].id);
    const actions = await api.orgs.listOrganizationAuditEventActions(org.id);
    expectMatchesGitBook('listOrganizationAuditEventActions', actions.data);
    expect(actions.data.items.length).toBeGreaterThan(100);
  });
});

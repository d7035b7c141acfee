import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { client, createTestOrg, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { sql } from '../support/fixtures.ts';
import { createOrganization, issueToken, revokeToken, setMembership } from '../../src/db/accounts.ts';
import { taskPoolState } from '../../src/lib/bounded-parse.ts';

let t: TestApp;
let org: TestOrg;
let other: TestOrg;

beforeAll(async () => {
  t = await startTestApp({ AUTH_CACHE_TTL: '0' });
  org = await createTestOrg(t, 'Identity org');
  other = await createTestOrg(t, 'Someone else');
});
afterAll(() => t.close());

describe('authentication', () => {
  it('refuses requests without a token, with a malformed header or an unknown token', async () => {
    for (const api of [client(t.app), client(t.app, 'dms_not-a-real-token')]) {
      const res = await api.get('/v1/user');
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: { code: 401, message: expect.any(String) } });
    }
    const res = await t.app.inject({ url: '/v1/user', headers: { authorization: 'Basic abc' } });
    expect(res.statusCode).toBe(401);
    expect(res.json().error.message).toMatch(/Bearer/);
  });

  it('stops accepting a token once it is revoked', async () => {
    const em = t.orm.em.fork();
    const { token } = await issueToken(em, org.members.read.userId, 'to revoke');
    const api = client(t.app, token);
    expect((await api.get('/v1/user')).status).toBe(200);
    expect(await revokeToken(em, { token })).toBe(true);
    expect((await api.get('/v1/user')).status).toBe(401);
  });

  it('stores only a hash of each token', async () => {
    const rows = await sql<{ token_hash: string }>(t, 'select token_hash from api_token where user_id = ?', [org.members.admin.userId]);
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(row.token_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(row.token_hash).not.toContain(org.members.admin.token);
    }
  });
});

describe('GET /v1/user', () => {
  it('returns the caller', async () => {
    const res = await org.members.edit.api.get('/v1/user');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      object: 'user',
      id: org.members.edit.userId,
      displayName: 'edit user',
      urls: { location: `http://docs.test/v1/users/${org.members.edit.userId}` },
    });
  });
});

describe('organizations', () => {
  it('gets an organization with permissions from the caller role', async () => {
    const admin = await org.members.admin.api.get(`/v1/orgs/${org.id}`);
    expect(admin.status).toBe(200);
    expect(admin.body).toMatchObject({
      object: 'organization',
      id: org.id,
      title: 'Identity org',
      permissions: { admin: true, createContent: true },
    });
    const reader = await org.members.read.api.get(`/v1/orgs/${org.id}`);
    expect(reader.body.permissions).toMatchObject({ view: true, admin: false, createContent: false });
    expect(reader.body.urls).toEqual({ location: `http://docs.test/v1/orgs/${org.id}`, app: `http://docs.test/o/${org.id}` });
  });

  it('answers 404 for an organization the caller does not belong to', async () => {
    const res = await org.members.admin.api.get(`/v1/orgs/${other.id}`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: { code: 404, message: 'Organization not found' } });
  });

  it('lists the caller organizations across pages', async () => {
    const em = t.orm.em.fork();
    const userId = org.members.comment.userId;
    const extra = [];
    for (let i = 0; i < 4; i++) {
      const o = await createOrganization(em, `Extra ${i}`);
      await setMembership(em, o.id, userId, 'read');
      extra.push(o.id);
    }
    const api = org.members.comment.api;
    const seen: string[] = [];
    let page: string | undefined;
    let rounds = 0;
    do {
      const res = await api.get(`/v1/orgs?limit=2${page ? `&page=${page}` : ''}`);
      expect(res.status).toBe(200);
      expect(res.body.count).toBe(5);
      expect(res.body.items.length).toBeLessThanOrEqual(2);
      seen.push(...res.body.items.map((o: { id: string }) => o.id));
      page = res.body.next?.page;
      rounds++;
    } while (page && rounds < 10);
    expect(rounds).toBe(3);
    expect(new Set(seen)).toEqual(new Set([org.id, ...extra]));
    expect(seen.length).toBe(5);
  });

  it('validates list parameters', async () => {
    const api = org.members.admin.api;
    const tooMany = await api.get('/v1/orgs?limit=1001');
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error.message).toMatch(/limit/);
    const zero = await api.get('/v1/orgs?limit=0');
    expect(zero.status).toBe(400);
    const badCursor = await api.get('/v1/orgs?page=definitely-not-a-cursor');
    expect(badCursor.status).toBe(400);
    expect(badCursor.body.error.message).toMatch(/page/);
  });
});

describe('errors and operations endpoints', () => {
  it('answers unknown routes and bad JSON in the error shape', async () => {
    const unknown = await org.members.admin.api.get('/v1/nothing-here');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe(404);
    const bad = await t.app.inject({
      method: 'POST',
      url: `/v1/orgs/${org.id}/spaces`,
      headers: { authorization: `Bearer ${org.members.admin.token}`, 'content-type': 'application/json' },
      payload: '{"title": ',
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual({ error: { code: 400, message: expect.any(String) } });
    const emptyJson = await t.app.inject({
      method: 'POST',
      url: `/v1/orgs/${org.id}/collections`,
      headers: { authorization: `Bearer ${org.members.admin.token}`, 'content-type': 'application/json' },
      payload: '',
    });
    expect(emptyJson.statusCode).toBe(201);
  });

  it('serves health, readiness, metrics and the OpenAPI document', async () => {
    expect((await t.app.inject({ url: '/healthz' })).json()).toEqual({ status: 'ok' });
    const ready = await t.app.inject({ url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json().checks).toEqual({ database: 'ok', temporal: 'ok' });
    const metrics = await t.app.inject({ url: '/metrics' });
    expect(metrics.body).toContain('http_request_duration_seconds');
    // The parsing pool as it is now, whatever other tests of this process left in it.
    const pool = taskPoolState();
    expect(metrics.body).toMatch(new RegExp(`^parsing_pool_threads ${pool.threads}$`, 'm'));
    expect(metrics.body).toMatch(/^parsing_pool_tasks\{lane="interactive",state="running"\} \d+$/m);
    expect(metrics.body).toMatch(/^parsing_pool_tasks\{lane="job",state="queued"\} \d+$/m);
    const doc = (await t.app.inject({ url: '/openapi.json' })).json();
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/v1/spaces/{spaceId}', '/v1/orgs/{organizationId}/collections']));
    expect((await t.app.inject({ url: '/docs' })).statusCode).toBeLessThan(400);
  });

  it('echoes a request id', async () => {
    const res = await t.app.inject({ url: '/healthz', headers: { 'x-request-id': 'abc-123' } });
    expect(res.headers['x-request-id']).toBe('abc-123');
  });
});

describe('bodies', () => {
  it('treats a missing body on an operation whose body is optional as an empty one', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: `/v1/orgs/${org.id}/collections`,
      headers: { authorization: `Bearer ${org.members.admin.token}` },
    });
    expect(res.statusCode).toBe(201);
    const move = await t.app.inject({
      method: 'POST',
      url: `/v1/collections/${res.json().id}/move`,
      headers: { authorization: `Bearer ${org.members.admin.token}` },
    });
    expect(move.statusCode).toBe(400);
  });
});

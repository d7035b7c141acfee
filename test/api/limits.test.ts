import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestOrg, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';

let t: TestApp;
let org: TestOrg;

beforeAll(async () => {
  t = await startTestApp({ RATE_LIMIT_MAX: '5', RATE_LIMIT_WINDOW: '1h', BODY_LIMIT: '4KiB' });
  org = await createTestOrg(t, 'Limits org');
});
afterAll(() => t.close());

describe('rate limit', () => {
  it('answers 429 in the error shape with Retry-After once a token is over its limit; other tokens are not affected', async () => {
    const api = org.members.read.api;
    const statuses: number[] = [];
    let last;
    for (let i = 0; i < 6; i++) {
      last = await api.get(`/v1/orgs/${org.id}`);
      statuses.push(last.status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    expect(last!.body).toEqual({ error: { code: 429, message: expect.stringMatching(/Too many requests/) } });
    expect(Number(last!.headers['retry-after'])).toBeGreaterThan(0);
    expect((await org.members.edit.api.get(`/v1/orgs/${org.id}`)).status).toBe(200);
  });

  it('counts requests without a token by IP address, and never counts probes', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await t.app.inject({ method: 'GET', url: '/v1/user' })).statusCode);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
    for (let i = 0; i < 3; i++) expect((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
  });
});

describe('body size limit', () => {
  it('answers 413 in the error shape for a body over BODY_LIMIT', async () => {
    const res = await org.members.admin.api.post(`/v1/orgs/${org.id}/spaces`, { title: 'x', emoji: 'y'.repeat(5000) });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ error: { code: 413, message: expect.any(String) } });
  });
});

describe('JSON body types', () => {
  it('refuses a number where a string is expected, naming the field, and creates nothing', async () => {
    const api = org.members.admin.api;
    const res = await api.post(`/v1/orgs/${org.id}/spaces`, { title: 12 });
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({ code: 400, message: expect.stringMatching(/body\.title must be string/) });
    const bad = await api.post(`/v1/orgs/${org.id}/spaces`, { title: 'ok', emoji: true });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/emoji/);
  });

  it('still reads query-string values as their types', async () => {
    const res = await org.members.admin.api.get(`/v1/orgs/${org.id}/spaces?limit=1`);
    expect(res.status).toBe(200);
    expect(res.body.items.length).toBeLessThanOrEqual(1);
  });
});

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

describe('rate limit behind a proxy', () => {
  const anonymous = (app: TestApp, forwardedFor: string) =>
    app.app.inject({ method: 'GET', url: '/v1/user', headers: { 'x-forwarded-for': forwardedFor } });

  it('counts requests without a token by the forwarded client address when the proxy is trusted', async () => {
    const behind = await startTestApp({ RATE_LIMIT_MAX: '2', RATE_LIMIT_WINDOW: '1h', TRUST_PROXY: '127.0.0.1' });
    try {
      const first = [];
      for (let i = 0; i < 3; i++) first.push((await anonymous(behind, '203.0.113.1')).statusCode);
      expect(first).toEqual([401, 401, 429]);
      // Another client behind the same proxy has a count of its own.
      expect((await anonymous(behind, '203.0.113.2')).statusCode).toBe(401);
    } finally {
      await behind.close();
    }
  });

  it('ignores X-Forwarded-For from a peer that is not trusted', async () => {
    const direct = await startTestApp({ RATE_LIMIT_MAX: '2', RATE_LIMIT_WINDOW: '1h' });
    try {
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push((await anonymous(direct, `203.0.113.${10 + i}`)).statusCode);
      expect(statuses).toEqual([401, 401, 429]);
    } finally {
      await direct.close();
    }
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

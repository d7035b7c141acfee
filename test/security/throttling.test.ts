import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestOrg, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { issueToken } from '../../src/db/accounts.ts';

/**
 * Limits keyed on identity, tried as an attacker would: one token spelled several ways is still one
 * caller, guessing tokens from one address runs into a wall, and a token sent in the query string
 * never reaches a log line.
 */

describe('rate limit per token', () => {
  let t: TestApp;
  let org: TestOrg;
  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_MAX: '8', RATE_LIMIT_WINDOW: '1h' });
    org = await createTestOrg(t, 'Throttled');
  });
  afterAll(() => t.close());

  it('gives one token one window however the Authorization header spells it', async () => {
    const token = org.members.read.token;
    const spellings = [`Bearer ${token}`, `Bearer  ${token}`, `Bearer\t${token}`, `BEARER ${token}`, `bearer ${token} `];
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) {
      const res = await t.app.inject({
        method: 'GET',
        url: `/v1/orgs/${org.id}`,
        headers: { authorization: spellings[i % spellings.length] },
      });
      statuses.push(res.statusCode);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 429, 429]);
  });
});

describe("rate limit of the site renderer's tokens", () => {
  let t: TestApp;
  let org: TestOrg;
  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_MAX: '8', RATE_LIMIT_READER_MAX: '20', RATE_LIMIT_WINDOW: '1h' });
    org = await createTestOrg(t, 'Readers throttled');
  });
  afterAll(() => t.close());

  it('counts a site lookup token and a visitor token against the readers limit, each on its own', async () => {
    const admin = org.members.admin.api;
    const space = (await admin.post(`/v1/orgs/${org.id}/spaces`, { title: 'Read a lot' })).body;
    const site = (await admin.post(`/v1/orgs/${org.id}/sites`, { title: 'Busy', visibility: 'public', spaces: [space.id] })).body;
    await admin.post(`/v1/orgs/${org.id}/sites/${site.id}/publish`);
    const lookupToken = (await admin.post(`/v1/orgs/${org.id}/site-lookup-tokens`, { label: 'Renderer' })).body.token;
    const url = `${t.config.sitesUrl}/${org.id}/${site.id}/`;
    const lookup = (token: string) =>
      t.app.inject({ method: 'POST', url: '/v1/urls/published', headers: { authorization: `Bearer ${token}` }, payload: { url } });
    const statuses: number[] = [];
    let apiToken = '';
    for (let i = 0; i < 22; i++) {
      const res = await lookup(lookupToken);
      statuses.push(res.statusCode);
      if (res.statusCode === 200) apiToken = res.json().apiToken;
    }
    // Past RATE_LIMIT_MAX (8), up to RATE_LIMIT_READER_MAX (20).
    expect(statuses).toEqual([...Array(20).fill(200), 429, 429]);
    const visitor: number[] = [];
    for (let i = 0; i < 21; i++) {
      visitor.push(
        (await t.app.inject({ method: 'GET', url: `/v1/spaces/${space.id}`, headers: { authorization: `Bearer ${apiToken}` } })).statusCode,
      );
    }
    expect(visitor).toEqual([...Array(20).fill(200), 429]);
    // An API token keeps the general limit (8): the admin's set-up above made 4 requests.
    const own: number[] = [];
    for (let i = 0; i < 5; i++) own.push((await admin.get(`/v1/orgs/${org.id}`)).status);
    expect(own).toEqual([200, 200, 200, 200, 429]);
  });
});

describe('failed authentication per address', () => {
  let t: TestApp;
  let org: TestOrg;
  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_MAX: '100000', RATE_LIMIT_WINDOW: '1h', RATE_LIMIT_AUTH_FAILURES: '20' });
    org = await createTestOrg(t, 'Guessed');
  });
  afterAll(() => t.close());

  it('answers 429 with Retry-After once an address has failed too often, each guess with a token of its own', async () => {
    const statuses: number[] = [];
    let last;
    for (let i = 0; i < 1100; i++) {
      last = await t.app.inject({ method: 'GET', url: '/v1/user', headers: { authorization: `Bearer dms_guess${i}` } });
      statuses.push(last.statusCode);
    }
    expect(statuses.slice(0, 20).every((s) => s === 401)).toBe(true);
    expect(statuses.slice(20).every((s) => s === 429)).toBe(true);
    expect(last!.json()).toEqual({ error: { code: 429, message: expect.stringMatching(/failed authentications/) } });
    expect(Number(last!.headers['retry-after'])).toBeGreaterThan(0);
    // The wall is per address: another client goes on (its first guess is judged, not refused).
    const elsewhere = await t.app.inject({
      method: 'GET',
      url: '/v1/user',
      remoteAddress: '203.0.113.9',
      headers: { authorization: `Bearer ${org.members.read.token}` },
    });
    expect(elsewhere.statusCode).toBe(200);
  });
});

describe('credentials in URLs', () => {
  it('never writes a token sent as ?access_token= (or any credential-like parameter) to the log', async () => {
    const lines: string[] = [];
    const t = await startTestApp({ AUTH_CACHE_TTL: '0s' }, { log: lines });
    try {
      const org = await createTestOrg(t, 'Logged');
      const { token } = await issueToken(t.orm.em.fork(), org.members.read.userId, 'query');
      for (const query of [`access_token=${token}`, `api_key=${token}`, `X-Amz-Signature=${token}`, `sig=${token}&x=1`]) {
        await t.app.inject({ method: 'GET', url: `/v1/user?${query}` });
      }
      const logged = lines.join('');
      expect(logged).toContain('/v1/user?access_token=[redacted]');
      expect(logged).not.toContain(token);
      expect(logged).not.toContain(token.slice(4, 20));
    } finally {
      await t.close();
    }
  });
});

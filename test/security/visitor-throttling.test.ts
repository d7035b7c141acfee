import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestOrg, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { newSpace } from '../support/fixtures.ts';

/**
 * The readers' rate limit (RATE_LIMIT_READER_MAX, far above RATE_LIMIT_MAX) attacked: a bearer
 * that merely looks like a JWT, and visitor tokens an ordinary API token mints for any public
 * site, must not earn it; the site renderer's readers keep it, per site and client address.
 */

let t: TestApp;
let org: TestOrg;
let stranger: TestOrg;
const SITES = 'http://docs.test/sites';

beforeAll(async () => {
  // Failed authentications are not limited here, so the rate limit itself is what answers.
  t = await startTestApp({ RATE_LIMIT_MAX: '8', RATE_LIMIT_READER_MAX: '20', RATE_LIMIT_WINDOW: '1h', RATE_LIMIT_AUTH_FAILURES: '0' });
  org = await createTestOrg(t, 'Visitor throttling');
  stranger = await createTestOrg(t, 'Visitor throttling stranger');
});
afterAll(() => t.close());

async function publicSite() {
  const api = org.members.admin.api;
  const space = await newSpace(api, org.id, { title: 'Public docs' });
  const site = (await api.post(`/v1/orgs/${org.id}/sites`, { title: 'Public', visibility: 'public', spaces: [space.id] })).body;
  await api.post(`/v1/orgs/${org.id}/sites/${site.id}/publish`);
  return { space, site, url: `${SITES}/${org.id}/${site.id}/` };
}

const get = (url: string, token: string, remoteAddress = '127.0.0.1') =>
  t.app.inject({ method: 'GET', url, remoteAddress, headers: { authorization: `Bearer ${token}` } });
const lookup = (url: string, token: string) =>
  t.app.inject({ method: 'POST', url: '/v1/urls/published', headers: { authorization: `Bearer ${token}` }, payload: { url } });

describe("the readers' limit", () => {
  it('is never given to a bearer that only looks like a JWT', async () => {
    const fake = 'eyJhbGciOiJIUzI1NiJ9.eyJzaXRlIjoieCJ9.c2lnbmF0dXJl';
    const answers = [];
    for (let i = 0; i < 10; i++) answers.push(await get('/v1/user', fake, '198.51.100.7'));
    expect(answers[0].headers['x-ratelimit-limit']).toBe('8');
    expect(answers.map((a) => a.statusCode)).toEqual([...Array(8).fill(401), 429, 429]);
    expect(answers[9].json()).toEqual({ error: { code: 429, message: expect.stringMatching(/at most 8 per/) } });
  });

  it("is never given to visitor tokens an API token mints: their reads count against that token's own limit", async () => {
    const { space, url } = await publicSite();
    // Anyone's API token resolves a public site's URL (here another organization's member's).
    const minter = stranger.members.read.token;
    const first = await lookup(url, minter);
    expect(first.statusCode).toBe(200);
    const reads = [];
    for (let i = 0; i < 10; i++) reads.push(await get(`/v1/spaces/${space.id}`, first.json().apiToken));
    expect(reads[1].headers['x-ratelimit-limit']).toBe('8');
    expect(reads.map((r) => r.statusCode)).toEqual([...Array(8).fill(200), 429, 429]);
    // Minting another token (for the same site, or from another address) does not start a new window.
    const second = await lookup(url, minter);
    expect(second.statusCode).toBe(200);
    const more = await get(`/v1/spaces/${space.id}/content`, second.json().apiToken, '203.0.113.50');
    expect(more.statusCode).toBe(429);
  });

  it("is the site renderer's, per site and client address", async () => {
    const { space, url } = await publicSite();
    const renderer = (await org.members.admin.api.post(`/v1/orgs/${org.id}/site-lookup-tokens`, { label: 'Renderer' })).body.token;
    const apiToken = (await lookup(url, renderer)).json().apiToken;
    const statuses = [];
    for (let i = 0; i < 21; i++) statuses.push((await get(`/v1/spaces/${space.id}`, apiToken, '192.0.2.10')).statusCode);
    // Past RATE_LIMIT_MAX (8), up to RATE_LIMIT_READER_MAX (20) for this site and this address.
    expect(statuses).toEqual([...Array(20).fill(200), 429]);
    // Another client address reading the same site has a window of its own.
    expect((await get(`/v1/spaces/${space.id}`, apiToken, '192.0.2.11')).statusCode).toBe(200);
  });
});

import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { createTestOrg, startTestApp, type TestApp } from '../support/harness.ts';
import { newChangeRequest, newSpace } from '../support/fixtures.ts';
import { newId } from '../../src/domain/ids.ts';

/**
 * Authentication is decided by the route the router matched, never by the text of the URL: every
 * operation under /v1, reached through percent-encoded and case variants of its path and without
 * a token, is refused (401), or is no route at all (404), and a real id answers exactly as a made-up
 * one does. (Deciding it by `url.startsWith('/v1/')` once let `/%761/…` and `/v%31/…` through.)
 */

let t: TestApp;
const real: Record<string, string> = {};

beforeAll(async () => {
  t = await startTestApp();
  const org = await createTestOrg(t, 'Swept');
  const api = org.members.admin.api;
  real.organizationId = org.id;
  real.spaceId = (await newSpace(api, org.id)).id;
  real.changeRequestId = (await newChangeRequest(api, real.spaceId)).id;
  real.collectionId = (await api.post(`/v1/orgs/${org.id}/collections`, { title: 'Swept' })).body.id;
  real.siteId = (await api.post(`/v1/orgs/${org.id}/sites`, { title: 'Swept site' })).body.id;
  real.userId = org.members.read.userId;
});
afterAll(() => t.close());

function operations(): { method: string; path: string }[] {
  const doc = t.app.swagger() as { paths: Record<string, Record<string, unknown>> };
  const out: { method: string; path: string }[] = [];
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const method of Object.keys(ops)) out.push({ method: method.toUpperCase(), path });
  }
  return out;
}

/** The path with its parameters filled: the fixture's real ids, or made-up ones. */
const fill = (path: string, ids: 'real' | 'fake') =>
  path.replace(/\{(\w+)\}/g, (_, name: string) => (ids === 'real' && real[name] ? real[name] : `x${newId(12)}`));

const encodeChar = (c: string) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`;

/** Ways of writing the same path that a router decodes back to it, and case variants it must not. */
function variants(path: string): string[] {
  const rest = path.slice('/v1/'.length);
  return [
    `/${encodeChar('v')}1/${rest}`,
    `/v${encodeChar('1')}/${rest}`,
    `/${encodeChar('v')}${encodeChar('1')}/${rest}`,
    `/v1/${encodeChar(rest[0])}${rest.slice(1)}`,
    `/v1/${rest.replace(/\/([a-z])/g, (_, c: string) => `/${encodeChar(c)}`)}`,
    `/V1/${rest}`,
    `/v1/${rest.toUpperCase()}`,
    `/v1/${rest}/`,
    `/v1//${rest}`,
  ];
}

it('refuses every /v1 operation without a token, however its path is spelled', async () => {
  const ops = operations().filter((op) => op.path.startsWith('/v1/'));
  expect(ops.length).toBeGreaterThan(150);
  const failures: string[] = [];
  let requests = 0;
  for (const op of ops) {
    const byIds: Record<string, number[]> = {};
    for (const ids of ['real', 'fake'] as const) {
      const filled = fill(op.path, ids);
      const urls = [filled, ...variants(filled)];
      byIds[ids] = [];
      for (const url of urls) {
        const res = await t.app.inject({
          method: op.method as 'GET',
          url,
          ...(['POST', 'PUT', 'PATCH'].includes(op.method) ? { headers: { 'content-type': 'application/json' }, payload: '{}' } : {}),
        });
        requests++;
        byIds[ids].push(res.statusCode);
        const allowed = url === filled ? [401] : [401, 404];
        if (!allowed.includes(res.statusCode)) failures.push(`${op.method} ${url}: ${res.statusCode} ${res.body.slice(0, 120)}`);
        else if (!res.json().error?.message) failures.push(`${op.method} ${url}: ${res.statusCode} without the error shape`);
      }
    }
    // Nothing tells a real object from a made-up one without a token.
    if (byIds.real.join() !== byIds.fake.join()) failures.push(`${op.method} ${op.path}: real ${byIds.real} vs made-up ${byIds.fake}`);
  }
  console.log(`route authentication: ${ops.length} operations, ${requests} requests without a token`);
  expect(failures).toEqual([]);
});

it('answers the anonymous lookups of the earlier attack with 401', async () => {
  for (const [method, url] of [
    ['POST', '/%761/urls/published'],
    ['GET', '/v%31/urls/embed?url=https%3A%2F%2Fdocs.test%2F'],
    ['GET', '/%761/user'],
    ['GET', `/%761/collections/${real.collectionId}`],
  ] as const) {
    const res = await t.app.inject({
      method,
      url,
      ...(method === 'POST'
        ? { headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ url: 'https://x.test/' }) }
        : {}),
    });
    expect([url, res.statusCode]).toEqual([url, 401]);
  }
});

it('asks no bearer token of the operations outside /v1: each has a credential of its own', async () => {
  const outside = operations().filter((op) => !op.path.startsWith('/v1/'));
  expect(outside.map((op) => `${op.method} ${op.path}`).sort()).toEqual([
    'GET /files/{spaceId}/{fileId}/download',
    'GET /pdf/{sha256}',
    'GET /sso/saml/{samlProviderId}',
    'GET /sso/saml/{samlProviderId}/start',
    'POST /hooks/git/{spaceId}',
    'POST /sso/saml/{samlProviderId}/acs',
  ]);
  for (const op of outside) {
    const res = await t.app.inject({
      method: op.method as 'GET',
      url: fill(op.path, 'fake'),
      ...(op.method === 'POST' ? { headers: { 'content-type': 'application/json' }, payload: '{}' } : {}),
    });
    expect([op.path, res.statusCode]).not.toEqual([op.path, 401]);
  }
});

it('keeps the routes that carry their own credentials, and the service documents, open', async () => {
  for (const url of ['/healthz', '/openapi.json', '/docs/', '/metrics']) {
    const res = await t.app.inject({ method: 'GET', url });
    expect([url, res.statusCode]).toEqual([url, 200]);
  }
  // No token is asked of the SAML and webhook routes: their own checks answer.
  expect((await t.app.inject({ method: 'GET', url: '/sso/saml/doesnotexist' })).statusCode).toBe(404);
  const hook = await t.app.inject({
    method: 'POST',
    url: `/hooks/git/${real.spaceId}`,
    headers: { 'content-type': 'application/json' },
    payload: '{}',
  });
  expect(hook.statusCode).toBe(404);
});

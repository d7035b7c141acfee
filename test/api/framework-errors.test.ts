/**
 * Failures raised by the framework rather than by a route (router limits, body parsing, unknown
 * routes, unparsable HTTP) answer in the same `{"error":{"code","message"}}` shape as the API.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { connect } from 'node:net';
import { createTestOrg, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';

let t: TestApp;
let org: TestOrg;

beforeAll(async () => {
  t = await startTestApp();
  org = await createTestOrg(t, 'Framework errors org');
});
afterAll(() => t.close());

const auth = () => ({ authorization: `Bearer ${org.members.admin.token}` });

function expectErrorShape(res: { statusCode: number; headers: Record<string, unknown>; body: string }, status: number) {
  expect(res.statusCode).toBe(status);
  expect(String(res.headers['content-type'])).toMatch(/^application\/json/);
  const body = JSON.parse(res.body);
  expect(body).toEqual({ error: { code: status, message: expect.any(String) } });
  expect(body.error.message.length).toBeGreaterThan(0);
  expect(body.error.message.length).toBeLessThan(300);
  return body.error.message as string;
}

describe('router failures', () => {
  it('answers an over-long path parameter with 414 in the error shape', async () => {
    const res = await t.app.inject({ method: 'GET', url: `/v1/spaces/${'a'.repeat(2000)}`, headers: auth() });
    expect(expectErrorShape(res, 414)).toMatch(/1024/);
  });

  it('answers the same without a token (the router fails before authentication)', async () => {
    const res = await t.app.inject({ method: 'GET', url: `/v1/orgs/${'x'.repeat(5000)}/spaces` });
    expectErrorShape(res, 414);
  });

  it('still lets a long but acceptable parameter reach validation or lookup', async () => {
    const res = await t.app.inject({ method: 'GET', url: `/v1/spaces/${'a'.repeat(500)}`, headers: auth() });
    expect([400, 404]).toContain(res.statusCode);
    expectErrorShape(res, res.statusCode);
  });

  it('answers a malformed percent-escape in a path parameter with 400', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/spaces/%E0%A4%A', headers: auth() });
    expectErrorShape(res, 400);
  });

  it('answers an unknown route with 404', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/no-such-thing?x=1', headers: auth() });
    expect(expectErrorShape(res, 404)).toBe('No route GET /v1/no-such-thing');
    const method = await t.app.inject({ method: 'PUT', url: '/healthz' });
    expectErrorShape(method, 404);
  });
});

describe('body failures', () => {
  const post = (payload: string | Buffer, contentType: string) =>
    t.app.inject({ method: 'POST', url: `/v1/orgs/${org.id}/spaces`, headers: { ...auth(), 'content-type': contentType }, payload });

  it('answers a body over the limit with 413', async () => {
    const res = await post(Buffer.alloc(11 * 1024 * 1024, 'a'), 'application/json');
    expectErrorShape(res, 413);
  });

  it('answers an unsupported media type with 415', async () => {
    const res = await post('<space/>', 'application/xml');
    expectErrorShape(res, 415);
  });

  it('answers malformed JSON with 400', async () => {
    const res = await post('{"title": ', 'application/json');
    expect(expectErrorShape(res, 400)).toBe('The request body is not valid JSON');
  });
});

describe('HTTP parser failures', () => {
  it('answers a request that is not HTTP with 400 in the error shape', async () => {
    const url = new URL(await t.app.listen({ host: '127.0.0.1', port: 0 }));
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(url.port), '127.0.0.1');
      let data = '';
      socket.on('data', (chunk) => (data += chunk.toString('utf8')));
      socket.on('close', () => resolve(data));
      socket.on('error', reject);
      socket.write('NOT HTTP AT ALL\r\n\r\n');
    });
    const [head, body] = answer.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 400 /);
    expect(head).toMatch(/content-type: application\/json/i);
    expect(JSON.parse(body)).toEqual({ error: { code: 400, message: expect.any(String) } });
  });
});

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestOrg, eventually, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';

/**
 * A process whose event loop lags sheds load: requests are answered at once with 503, Retry-After
 * and the API's error shape rather than waiting behind the stall; /readyz says not ready so a
 * balancer sends traffic elsewhere; /healthz stays 200 (the process is alive). The lag is made
 * here by blocking the in-process API's loop, 150 ms out of every 160, as a stalled parse would.
 */
let t: TestApp;
let org: TestOrg;

beforeAll(async () => {
  t = await startTestApp({ OVERLOAD_EVENT_LOOP_DELAY: '100ms' });
  org = await createTestOrg(t, 'Load shedding org');
});
afterAll(() => t.close());

const block = (ms: number) => {
  const end = Date.now() + ms;
  while (Date.now() < end);
};
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('an API process whose event loop lags', () => {
  it('answers 503 with Retry-After in the error shape, keeps /healthz up, says not ready, and recovers', async () => {
    expect((await org.members.admin.api.get('/v1/user')).status).toBe(200);

    const answers: { status: number; body: unknown; retryAfter: unknown }[] = [];
    const health: number[] = [];
    const ready: { status: number; body: { checks?: Record<string, string> } }[] = [];
    for (let round = 0; round < 12; round++) {
      block(150);
      await pause(10);
      const user = await org.members.admin.api.get('/v1/user');
      answers.push({ status: user.status, body: user.body, retryAfter: user.headers['retry-after'] });
      health.push((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode);
      const readiness = await t.app.inject({ method: 'GET', url: '/readyz' });
      ready.push({ status: readiness.statusCode, body: readiness.json() });
    }

    const shed = answers.filter((a) => a.status === 503);
    expect(shed.length).toBeGreaterThan(0);
    for (const answer of answers) expect([200, 503]).toContain(answer.status);
    for (const answer of shed) {
      expect(answer.retryAfter).toBe('5');
      expect(answer.body).toEqual({ error: { code: 503, message: expect.stringMatching(/overloaded.*past 100 ms/) } });
    }
    expect(health.every((status) => status === 200)).toBe(true);
    expect(ready.some((r) => r.status === 503 && r.body.checks?.eventLoop === 'overloaded')).toBe(true);

    // The lag over, the process serves again by itself.
    await eventually(async () => (await org.members.admin.api.get('/v1/user')).status === 200);
    await eventually(async () => (await t.app.inject({ method: 'GET', url: '/readyz' })).statusCode === 200);
  });
});

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHmac, randomUUID } from 'node:crypto';
import { createTestOrg, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { newSpace, sql } from '../support/fixtures.ts';
import { startGitServer, type GitServer } from '../support/git-server.ts';

/**
 * The push webhook receiver takes requests from anyone on the network; tried as an attacker who
 * captured one signed delivery, and as one who sends large bodies without any signature.
 */

let t: TestApp;
let org: TestOrg;
let git: GitServer;
const SECRET = 'a-webhook-secret-456';

beforeAll(async () => {
  t = await startTestApp({ FETCH_ALLOW_HOSTS: '127.0.0.1', BODY_LIMIT: '64KiB' });
  org = await createTestOrg(t, 'Hooked');
  git = await startGitServer();
});
afterAll(async () => {
  await git?.close();
  await t?.close();
});

const sign = (body: string) => `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;
const deliver = (spaceId: string, body: string, headers: Record<string, string>) =>
  t.app.inject({
    method: 'POST',
    url: `/hooks/git/${spaceId}`,
    payload: body,
    headers: { 'content-type': 'application/json', ...headers },
  });

async function hookedSpace(): Promise<string> {
  const space = await newSpace(org.members.admin.api, org.id, { title: 'Hooked' });
  const set = await org.members.admin.api.put(`/v1/spaces/${space.id}/git/webhook`, {
    provider: 'github',
    url: git.url('replayed'),
    branch: 'main',
    secret: SECRET,
  });
  expect(set.status).toBe(200);
  return space.id;
}

describe('push deliveries', () => {
  it('treats a captured delivery replayed under a new X-GitHub-Delivery as the same delivery', async () => {
    const commit = git.commit('replayed', { 'README.md': '# Replayed\n' });
    const spaceId = await hookedSpace();
    const body = JSON.stringify({ ref: 'refs/heads/main', after: commit, head_commit: { timestamp: new Date().toISOString() } });
    const first = await deliver(spaceId, body, {
      'x-github-event': 'push',
      'x-github-delivery': randomUUID(),
      'x-hub-signature-256': sign(body),
    });
    expect([first.statusCode, first.json().status]).toEqual([202, 'accepted']);
    for (let i = 0; i < 3; i++) {
      const replay = await deliver(spaceId, body, {
        'x-github-event': 'push',
        'x-github-delivery': randomUUID(),
        'x-hub-signature-256': sign(body),
      });
      expect(replay.json()).toEqual({ status: 'duplicate' });
    }
    const requests = await sql(t, 'select count(*)::int as n from git_sync_request where space_id = ?', [spaceId]);
    expect(requests[0].n).toBe(1);
  });

  it('refuses bodies over BODY_LIMIT before reading a signature, in the error shape', async () => {
    const spaceId = await hookedSpace();
    const big = JSON.stringify({ ref: 'refs/heads/main', padding: 'x'.repeat(100 * 1024) });
    const res = await deliver(spaceId, big, { 'x-github-event': 'push', 'x-hub-signature-256': 'sha256=00' });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toEqual({ error: { code: 413, message: expect.any(String) } });
  });
});

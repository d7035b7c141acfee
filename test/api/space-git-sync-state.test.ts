import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestOrg, eventually, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { startGitServer, type GitServer } from '../support/git-server.ts';
import { expectMatchesGitBook } from '../support/gitbook-openapi.ts';
import { sql } from '../support/sql.ts';

/**
 * `gitSync` on a git-synced space is GitBook's `GitSyncState`: an installation id, a provider and a
 * status derived from the space's Git Sync configuration and the outcome of its syncs.
 */

let t: TestApp;
let org: TestOrg;
let git: GitServer;

beforeAll(async () => {
  t = await startTestApp({ FETCH_ALLOW_HOSTS: '127.0.0.1' });
  org = await createTestOrg(t, 'Git sync state org');
  git = await startGitServer();
  git.commit('state-docs', { 'README.md': '# Hello\n\nSynced.\n' });
});
afterAll(async () => {
  await git?.close();
  await t?.close();
});

const admin = () => org.members.admin.api;

async function newSpace(): Promise<string> {
  const res = await admin().post(`/v1/orgs/${org.id}/spaces`, { title: 'Synced' });
  expect(res.status).toBe(201);
  return res.body.id;
}

/** The states of the space's sync requests, oldest first. */
async function requestStates(spaceId: string): Promise<string[]> {
  const rows = await sql<{ state: string }>(
    t.orm.em.fork(),
    'select state from git_sync_request where space_id = ? order by requested_at, id',
    [spaceId],
  );
  return rows.map((r) => r.state);
}

/** Imports from `url`, waits until that request has finished, and checks the space's sync ended `ok` or `failed`. */
async function importAndSettle(spaceId: string, url: string, status: 'ok' | 'failed') {
  const before = (await requestStates(spaceId)).length;
  expect((await admin().post(`/v1/spaces/${spaceId}/git/import`, { url, ref: 'refs/heads/main' })).status).toBe(204);
  await eventually(async () => {
    const states = await requestStates(spaceId);
    return states.length > before && !states.includes('queued');
  }, 60_000);
  const [sync] = await sql<{ status: string }>(t.orm.em.fork(), 'select status from git_sync where space_id = ?', [spaceId]);
  expect(sync.status).toBe(status);
}

async function spaceGitSync(spaceId: string) {
  const res = await admin().get(`/v1/spaces/${spaceId}`);
  expect(res.status).toBe(200);
  expectMatchesGitBook('getSpaceById', res.body);
  return res.body.gitSync;
}

describe('gitSync on a space', () => {
  it('is absent on a space that does not sync', async () => {
    const spaceId = await newSpace();
    expect(await spaceGitSync(spaceId)).toBeUndefined();
  });

  it('is an active installation, keyed by the space, once a sync has completed', async () => {
    const spaceId = await newSpace();
    await importAndSettle(spaceId, git.url('state-docs'), 'ok');
    const gitSync = await spaceGitSync(spaceId);
    expect(gitSync).toMatchObject({
      installationId: spaceId,
      // 127.0.0.1 is neither GitHub nor GitLab: a repository on a host of one's own is GitLab's kind of Git Sync.
      installationProvider: 'gitlab',
      installationStatus: 'active',
      repoName: 'state-docs',
      url: git.url('state-docs', false),
    });
    expect(JSON.stringify(gitSync)).not.toContain('s3cret-pass');

    // The same installation in the organization's list of spaces.
    const list = await admin().get(`/v1/orgs/${org.id}/spaces`);
    expect(list.status).toBe(200);
    expectMatchesGitBook('listSpacesInOrganizationById', list.body);
    expect(list.body.items.find((s: { id: string }) => s.id === spaceId).gitSync).toEqual(gitSync);

    // A later failure that is not about credentials leaves it active: the repository was reached before.
    await importAndSettle(spaceId, git.url('state-docs').replace('/state-docs.git', '/missing.git'), 'failed');
    expect(await spaceGitSync(spaceId)).toMatchObject({ installationId: spaceId, installationStatus: 'active' });
  }, 180_000);

  it('is unauthenticated when the repository host refused the credentials', async () => {
    const spaceId = await newSpace();
    await importAndSettle(spaceId, git.url('state-docs', { username: 'git-user', password: 'wrong-pass' }), 'failed');
    const gitSync = await spaceGitSync(spaceId);
    expect(gitSync).toMatchObject({ installationId: spaceId, installationProvider: 'gitlab', installationStatus: 'unauthenticated' });
    expect(JSON.stringify(gitSync)).not.toContain('wrong-pass');

    // Credentials that work make it active.
    await importAndSettle(spaceId, git.url('state-docs'), 'ok');
    expect(await spaceGitSync(spaceId)).toMatchObject({ installationId: spaceId, installationStatus: 'active' });
  }, 180_000);

  it('is pending while no sync has completed (the first one failed for another reason than credentials)', async () => {
    const spaceId = await newSpace();
    await importAndSettle(spaceId, 'http://127.0.0.1:1/unreachable.git', 'failed');
    expect(await spaceGitSync(spaceId)).toMatchObject({
      installationId: spaceId,
      installationProvider: 'gitlab',
      installationStatus: 'pending',
      url: 'http://127.0.0.1:1/unreachable.git',
    });
  }, 180_000);
});

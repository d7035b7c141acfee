import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { addMember, client, createTestOrg, eventually, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { newSpace } from '../support/fixtures.ts';
import { FEED_APPLICATION_NAME } from '../../src/db/change-feed.ts';

/**
 * Answers kept between writes (`GET /v1/spaces/{id}` for members, `POST /v1/urls/published`),
 * tried as the people they could wrong would try them: a member removed or demoted must not read
 * on from what was kept, a write by another API process must reach every process at once, a site
 * taken down must stop resolving, and no caller may be served what another was answered.
 */

let t: TestApp;
let org: TestOrg;
let other: TestOrg;
/** A connection of its own: what another API process (or an operator's psql) writes, unseen by this process's pool. */
let elsewhere: pg.Client;

beforeAll(async () => {
  t = await startTestApp();
  [org, other] = await Promise.all([createTestOrg(t, 'Remembered'), createTestOrg(t, 'Other')]);
  elsewhere = new pg.Client({ connectionString: t.config.databaseUrl });
  await elsewhere.connect();
  // The answers are kept only once the database's announcements are heard.
  await eventually(async () => t.app.deps.spaceAnswers.live, 10_000, 20);
});
afterAll(async () => {
  await elsewhere.end();
  await t.close();
});

const admin = () => org.members.admin.api;

/** Reads the space twice as `api`: the second answer is the kept one. */
async function readTwice(api: TestOrg['members']['read']['api'], spaceId: string) {
  const first = await api.get(`/v1/spaces/${spaceId}`);
  expect(first.status).toBe(200);
  const second = await api.get(`/v1/spaces/${spaceId}`);
  expect(second.status).toBe(200);
  expect(second.body).toEqual(first.body);
  return second.body;
}

describe('GET /v1/spaces/{id}, kept between writes', () => {
  it('keeps the answer it read', async () => {
    const space = await newSpace(admin(), org.id, { title: 'Kept' });
    const before = t.app.deps.spaceAnswers.size;
    // A write announced by another test file's process while the space is read keeps that read from
    // being kept: read again until one was read with no write in between.
    await eventually(async () => {
      await readTwice(org.members.read.api, space.id);
      return t.app.deps.spaceAnswers.size > before;
    }, 20_000);
  });

  it('refuses a member removed through the API on the very next request', async () => {
    const space = await newSpace(admin(), org.id, { title: 'Then removed' });
    const leaving = (await createTestOrg(t, 'Scratch')).members.read;
    await addMember(t, org.id, leaving.userId, 'read');
    await readTwice(leaving.api, space.id);
    expect((await admin().delete(`/v1/orgs/${org.id}/members/${leaving.userId}`)).status).toBe(204);
    expect((await leaving.api.get(`/v1/spaces/${space.id}`)).status).toBe(404);
  });

  it("shows a member's new permissions, and the space's new title, at once", async () => {
    const space = await newSpace(admin(), org.id, { title: 'Before' });
    const editor = org.members.edit;
    expect((await readTwice(editor.api, space.id)).permissions.edit).toBe(true);
    expect((await admin().patch(`/v1/spaces/${space.id}`, { title: 'After', editMode: 'locked' })).status).toBe(200);
    const after = await editor.api.get(`/v1/spaces/${space.id}`);
    expect(after.body.title).toBe('After');
    expect(after.body.permissions.edit).toBe(false);
  });

  it("serves each caller their own answer: a reader never gets an admin's permissions", async () => {
    const space = await newSpace(admin(), org.id, { title: 'Per caller' });
    const adminView = await readTwice(admin(), space.id);
    const readerView = await readTwice(org.members.read.api, space.id);
    expect(adminView.permissions.admin).toBe(true);
    expect(readerView.permissions.admin).toBe(false);
    expect(readerView.permissions.edit).toBe(false);
    // Another organization's admin: the space does not exist for them, kept answer or not.
    expect((await other.members.admin.api.get(`/v1/spaces/${space.id}`)).status).toBe(404);
  });

  it('drops what it kept when another process removes the member: refused within moments, not AUTH_CACHE_TTL', async () => {
    const space = await newSpace(admin(), org.id, { title: 'Removed elsewhere' });
    const leaving = (await createTestOrg(t, 'Scratch')).members.read;
    await addMember(t, org.id, leaving.userId, 'read');
    await readTwice(leaving.api, space.id);
    await elsewhere.query('delete from member where organization_id = $1 and user_id = $2', [org.id, leaving.userId]);
    // The announcement crosses a connection: moments, far under AUTH_CACHE_TTL (5 s) that would bound it otherwise.
    const started = Date.now();
    await eventually(async () => (await leaving.api.get(`/v1/spaces/${space.id}`)).status === 404, 1_000, 5);
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('drops what it kept when another process renames the space', async () => {
    const space = await newSpace(admin(), org.id, { title: 'Named here' });
    await readTwice(org.members.read.api, space.id);
    await elsewhere.query('update space set title = $1 where id = $2', ['Named elsewhere', space.id]);
    await eventually(async () => (await org.members.read.api.get(`/v1/spaces/${space.id}`)).body.title === 'Named elsewhere', 1_000, 5);
  });
});

describe('the announcements of writes', () => {
  it('keeps nothing while their connection is lost (a write then is never missed), and resumes once back', async () => {
    const space = await newSpace(admin(), org.id, { title: 'Before the loss' });
    await readTwice(org.members.read.api, space.id);
    // Every feed on this database loses its connection (other suites' processes just read afresh meanwhile).
    await elsewhere.query(
      'select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1 and datname = current_database()',
      [FEED_APPLICATION_NAME],
    );
    await eventually(async () => !t.app.deps.spaceAnswers.live, 5_000, 5);
    expect(t.app.deps.spaceAnswers.size).toBe(0);
    // Written while nobody listens: seen at once, since nothing is kept.
    await elsewhere.query('update space set title = $1 where id = $2', ['Written during the loss', space.id]);
    expect((await org.members.read.api.get(`/v1/spaces/${space.id}`)).body.title).toBe('Written during the loss');
    await eventually(async () => t.app.deps.spaceAnswers.live, 10_000, 20);
    await eventually(async () => {
      await readTwice(org.members.read.api, space.id);
      return t.app.deps.spaceAnswers.size > 0;
    }, 20_000);
  });
});

describe('POST /v1/urls/published, kept between writes', () => {
  async function publishedSite(owner: TestOrg) {
    const api = owner.members.admin.api;
    const space = await newSpace(api, owner.id, { title: 'Published' });
    const site = (await api.post(`/v1/orgs/${owner.id}/sites`, { title: 'Site', visibility: 'public', spaces: [space.id] })).body;
    expect((await api.post(`/v1/orgs/${owner.id}/sites/${site.id}/publish`)).status).toBe(200);
    return { site, space, url: `http://docs.test/sites/${owner.id}/${site.id}/` };
  }
  const lookupToken = async (owner: TestOrg) =>
    (await owner.members.admin.api.post(`/v1/orgs/${owner.id}/site-lookup-tokens`, { label: 'Renderer' })).body.token as string;

  it('stops resolving a site on the very next request once it is unpublished', async () => {
    const { site, url } = await publishedSite(org);
    const renderer = client(t.app, await lookupToken(org));
    for (let i = 0; i < 2; i++) expect((await renderer.post('/v1/urls/published', { url })).status).toBe(200);
    expect((await admin().post(`/v1/orgs/${org.id}/sites/${site.id}/unpublish`)).status).toBe(200);
    expect((await renderer.post('/v1/urls/published', { url })).status).toBe(404);
  });

  it("never serves one organization's lookup token what another's was answered", async () => {
    const { url } = await publishedSite(org);
    const own = client(t.app, await lookupToken(org));
    const foreign = client(t.app, await lookupToken(other));
    for (let i = 0; i < 2; i++) expect((await own.post('/v1/urls/published', { url })).status).toBe(200);
    expect((await foreign.post('/v1/urls/published', { url })).status).toBe(404);
  });

  it('stops resolving within moments when another process unpublishes the site', async () => {
    const { site, url } = await publishedSite(org);
    const renderer = client(t.app, await lookupToken(org));
    for (let i = 0; i < 2; i++) expect((await renderer.post('/v1/urls/published', { url })).status).toBe(200);
    await elsewhere.query('update site set published = false where id = $1', [site.id]);
    await eventually(async () => (await renderer.post('/v1/urls/published', { url })).status === 404, 1_000, 5);
  });
});

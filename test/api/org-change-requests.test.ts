import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { GitBookAPI } from '@gitbook/api';
import { client, createTestOrg, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { edit, expect400, listenOnLoopback, newChangeRequest, newSpace } from '../support/fixtures.ts';
import { expectMatchesGitBook } from '../support/gitbook-openapi.ts';

/**
 * The change requests across an organization's spaces, with GitBook's filters: only those of the
 * spaces the caller reads, paginated.
 */
let t: TestApp;
let org: TestOrg;
let other: TestOrg;
let shared: string;
let hidden: string;
/** Open in `shared`: by the admin (review asked of the reviewer), by the editor (edited by the admin). */
let byAdmin: string;
let byEditor: string;
/** A draft in `shared`, an open one in `hidden`, an open one in the other organization. */
let draft: string;
let inHidden: string;
let elsewhere: string;

const admin = () => org.members.admin.api;
const list = (query = '', api = admin()) => api.get(`/v1/orgs/${org.id}/change-requests${query}`);
const ids = (res: { body: { items: { id: string }[] } }) => res.body.items.map((c) => c.id).sort();
const sorted = (...values: string[]) => [...values].sort();

beforeAll(async () => {
  t = await startTestApp();
  org = await createTestOrg(t, 'Org change requests');
  other = await createTestOrg(t, 'Org change requests elsewhere');
  shared = (await newSpace(admin(), org.id, { title: 'Shared' })).id;
  hidden = (await newSpace(admin(), org.id, { title: 'Hidden' })).id;
  // The guest reads `shared` only.
  const grant = await admin().post(`/v1/spaces/${shared}/permissions`, { role: 'read', users: [org.members.guest.userId] });
  expect(grant.status).toBe(204);

  byAdmin = (await newChangeRequest(admin(), shared, 'By the admin')).id;
  const asked = await admin().post(`/v1/spaces/${shared}/change-requests/${byAdmin}/requested-reviewers`, {
    users: [org.members.review.userId],
  });
  expect(asked.status).toBeLessThan(300);
  byEditor = (await newChangeRequest(org.members.edit.api, shared, 'By the editor')).id;
  await edit(admin(), shared, byEditor, [{ operation: 'insert_page', title: 'Help', document: { markdown: 'Help.\n' } }]);
  draft = (await newChangeRequest(admin(), shared, 'A draft')).id;
  expect((await admin().patch(`/v1/spaces/${shared}/change-requests/${draft}`, { status: 'draft' })).status).toBe(200);
  inHidden = (await newChangeRequest(admin(), hidden, 'Hidden work')).id;
  const otherSpace = (await newSpace(other.members.admin.api, other.id, { title: 'Theirs' })).id;
  elsewhere = (await newChangeRequest(other.members.admin.api, otherSpace, 'Theirs')).id;
});

afterAll(async () => {
  await t.close();
});

describe('GET /v1/orgs/:organizationId/change-requests', () => {
  it("lists the open change requests of every space a member reads, and none of another organization's", async () => {
    const res = await list();
    expect(res.status).toBe(200);
    expect(ids(res)).toEqual(sorted(byAdmin, byEditor, inHidden));
    expect(res.body.count).toBe(3);
    expect(ids(res)).not.toContain(elsewhere);
    expect(res.body.items[0]).toMatchObject({ object: 'change-request', status: 'open' });
  });

  it('filters by status, creator, contributor, requested reviewer and space', async () => {
    expect(ids(await list('?status=draft'))).toEqual([draft]);
    expect(ids(await list('?status=draft&status=open'))).toEqual(sorted(byAdmin, byEditor, inHidden, draft));
    expect(ids(await list(`?creator=${org.members.edit.userId}`))).toEqual([byEditor]);
    // The admin created some and edited the editor's.
    expect(ids(await list(`?contributor=${org.members.admin.userId}`))).toEqual(sorted(byAdmin, byEditor, inHidden));
    expect(ids(await list(`?requestedReviewer=${org.members.review.userId}`))).toEqual([byAdmin]);
    expect(ids(await list(`?space=${hidden}`))).toEqual([inHidden]);
    // Nothing here is linked to a site, so a site filter matches none.
    expect((await list('?site=anysite')).body).toEqual({ items: [], count: 0 });
  });

  it('orders newest first (by update or creation) and pages through every item once', async () => {
    const all = await list('?status=open&status=draft&orderBy=createdAt');
    expect(all.body.items.map((c: { id: string }) => c.id)).toEqual([inHidden, draft, byEditor, byAdmin]);
    const seen: string[] = [];
    let page: string | undefined;
    do {
      const res = await list(`?status=open&status=draft&limit=1${page ? `&page=${encodeURIComponent(page)}` : ''}`);
      expect(res.status).toBe(200);
      expect(res.body.count).toBe(4);
      expect(res.body.items).toHaveLength(1);
      seen.push(res.body.items[0].id);
      page = res.body.next?.page;
    } while (page);
    expect(seen.sort()).toEqual(sorted(byAdmin, byEditor, inHidden, draft));
  });

  it('never shows a guest the change requests of a space it cannot read, even when asked for that space', async () => {
    const guest = org.members.guest.api;
    expect(ids(await list('?status=open&status=draft', guest))).toEqual(sorted(byAdmin, byEditor, draft));
    expect((await list(`?space=${hidden}`, guest)).body).toEqual({ items: [], count: 0 });
  });

  it('refuses bad input with 400', async () => {
    expect400(await list('?status=closed'), /status/);
    expect400(await list('?limit=0'), /limit/);
    expect400(await list('?orderBy=title'), /orderBy/);
    expect400(await list('?page=not-a-cursor'), /page/);
  });

  it('asks for a token (401) and hides the organization from outsiders (404)', async () => {
    expect((await client(t.app).get(`/v1/orgs/${org.id}/change-requests`)).status).toBe(401);
    const res = await other.members.admin.api.get(`/v1/orgs/${org.id}/change-requests`);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe(404);
  });

  it("answers GitBook's client with GitBook's shape", async () => {
    const gitbook: any = new GitBookAPI({ endpoint: await listenOnLoopback(t), authToken: org.members.read.token });
    const res = await gitbook.orgs.listChangeRequestsForOrganization(org.id, { status: ['open', 'draft'], limit: 2 });
    expect(res.data.items).toHaveLength(2);
    expect(res.data.next).toBeDefined();
    expectMatchesGitBook('listChangeRequestsForOrganization', res.data);
    const single = await gitbook.orgs.listChangeRequestsForOrganization(org.id, { status: ['draft'] });
    expect(single.data.items.map((c: { id: string }) => c.id)).toEqual([draft]);
  });
});

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { addMember, client, createTestOrg, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { newSpace, searchCaughtUp, sql } from '../support/fixtures.ts';

let t: TestApp;
let org: TestOrg;
let other: TestOrg;

beforeAll(async () => {
  t = await startTestApp();
  org = await createTestOrg(t, 'Spaces org');
  other = await createTestOrg(t, 'Other org');
});
afterAll(() => t.close());

const admin = () => org.members.admin.api;

describe('creating spaces', () => {
  it('creates a space with every Space field', async () => {
    const s = await newSpace(admin(), org.id, { title: 'Handbook', emoji: '📘' });
    expect(s).toEqual({
      object: 'space',
      id: expect.any(String),
      title: 'Handbook',
      emoji: '📘',
      visibility: 'private',
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      editMode: 'live',
      organization: org.id,
      revision: expect.any(String),
      defaultLevel: null,
      comments: 0,
      changeRequests: 0,
      changeRequestsOpen: 0,
      changeRequestsDraft: 0,
      mergeRules: { type: 'inherit' },
      urls: { location: `http://docs.test/v1/spaces/${s.id}`, app: `http://docs.test/app/spaces/${s.id}` },
      permissions: {
        view: true,
        access: true,
        admin: true,
        viewInviteLinks: true,
        edit: true,
        triggerGitSync: true,
        comment: true,
        merge: true,
        review: true,
        installIntegration: true,
      },
    });
    const revision = await sql(t, 'select space_id from revision where id = ?', [s.revision]);
    expect(revision).toEqual([{ space_id: s.id }]);
  });

  it('validates the body', async () => {
    for (const body of [{ title: 'x'.repeat(51) }, { visibility: 'everyone' }, { editMode: 'frozen' }, { emoji: 'x'.repeat(51) }]) {
      const res = await admin().post(`/v1/orgs/${org.id}/spaces`, body);
      expect(res.status).toBe(400);
      expect(res.body.error.message).toMatch(new RegExp(Object.keys(body)[0]));
    }
    const inCollection = await admin().post(`/v1/orgs/${org.id}/spaces`, { visibility: 'in-collection' });
    expect(inCollection.status).toBe(400);
  });

  it('needs the create role in the organization or the collection', async () => {
    expect((await org.members.edit.api.post(`/v1/orgs/${org.id}/spaces`, { title: 'no' })).status).toBe(403);
    expect((await org.members.guest.api.post(`/v1/orgs/${org.id}/spaces`, { title: 'no' })).status).toBe(403);
    expect((await org.members.create.api.post(`/v1/orgs/${org.id}/spaces`, { title: 'yes' })).status).toBe(201);
    const c = (await admin().post(`/v1/orgs/${org.id}/collections`, { title: 'Open' })).body;
    await admin().patch(`/v1/collections/${c.id}`, { defaultLevel: 'create' });
    expect((await org.members.read.api.post(`/v1/orgs/${org.id}/spaces`, { title: 'via level', parent: c.id })).status).toBe(201);
    expect((await admin().post(`/v1/orgs/${other.id}/spaces`, { title: 'x' })).status).toBe(404);
  });
});

describe('reading and listing', () => {
  it('lists with stable keyset pages, even when spaces are created between pages', async () => {
    const fresh = await createTestOrg(t, 'Paging org');
    const api = fresh.members.admin.api;
    const created: string[] = [];
    for (let i = 0; i < 7; i++) created.push((await newSpace(api, fresh.id, { title: `s${i}` })).id);
    const seen: string[] = [];
    let page: string | undefined;
    let first = true;
    do {
      const res = await fresh.members.read.api.get(`/v1/orgs/${fresh.id}/spaces?limit=3${page ? `&page=${page}` : ''}`);
      expect(res.status).toBe(200);
      seen.push(...res.body.items.map((s: { id: string }) => s.id));
      page = res.body.next?.page;
      if (first) {
        created.push((await newSpace(api, fresh.id, { title: 'late' })).id);
        first = false;
      }
    } while (page);
    expect(seen).toEqual(created);
    expect(new Set(seen).size).toBe(seen.length);
    expect((await api.get(`/v1/orgs/${fresh.id}/spaces?limit=2000`)).status).toBe(400);
    expect((await fresh.members.guest.api.get(`/v1/orgs/${fresh.id}/spaces`)).body).toEqual({ items: [], count: 0 });
    expect((await api.get(`/v1/orgs/${other.id}/spaces`)).status).toBe(404);
  });

  it('gets a space (shareKey accepted) and hides it from other organizations', async () => {
    const s = await newSpace(admin(), org.id, { title: 'A space' });
    expect((await org.members.read.api.get(`/v1/spaces/${s.id}?shareKey=abc`)).status).toBe(200);
    expect((await other.members.admin.api.get(`/v1/spaces/${s.id}`)).status).toBe(404);
    expect((await client(t.app).get(`/v1/spaces/${s.id}`)).status).toBe(401);
    expect((await org.members.guest.api.get(`/v1/spaces/${s.id}`)).status).toBe(404);
    const reader = (await org.members.read.api.get(`/v1/spaces/${s.id}`)).body;
    expect(reader.permissions).toMatchObject({ view: true, edit: false, comment: false, admin: false });
  });
});

describe('updating', () => {
  it('lets editors change title and emoji, and only admins access settings', async () => {
    const s = await newSpace(admin(), org.id, { title: 'A space' });
    const edited = await org.members.edit.api.patch(`/v1/spaces/${s.id}`, { title: 'Edited', emoji: '🎉' });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ title: 'Edited', emoji: '🎉' });
    expect(Date.parse(edited.body.updatedAt)).toBeGreaterThanOrEqual(Date.parse(s.updatedAt));
    expect((await org.members.comment.api.patch(`/v1/spaces/${s.id}`, { title: 'no' })).status).toBe(403);
    expect((await org.members.edit.api.patch(`/v1/spaces/${s.id}`, { defaultLevel: 'admin' })).status).toBe(403);
    expect((await admin().patch(`/v1/spaces/${s.id}`, { defaultLevel: 'review' })).body.defaultLevel).toBe('review');
    expect((await org.members.read.api.get(`/v1/spaces/${s.id}`)).body.permissions.review).toBe(true);
    expect((await admin().patch(`/v1/spaces/${s.id}`, {})).status).toBe(400);
    expect((await admin().patch(`/v1/spaces/${s.id}`, { title: 'x'.repeat(51) })).status).toBe(400);
    expect((await other.members.admin.api.patch(`/v1/spaces/${s.id}`, { title: 'x' })).status).toBe(404);
  });

  it('refuses edits to a locked space until it is unlocked', async () => {
    const s = await newSpace(admin(), org.id, { title: 'A space' });
    const locked = await admin().patch(`/v1/spaces/${s.id}`, { editMode: 'locked' });
    expect(locked.body).toMatchObject({ editMode: 'locked', permissions: { edit: false, merge: false } });
    const refused = await org.members.edit.api.patch(`/v1/spaces/${s.id}`, { title: 'x' });
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toMatch(/locked/);
    expect((await admin().patch(`/v1/spaces/${s.id}`, { editMode: 'live', title: 'Unlocked' })).body).toMatchObject({
      editMode: 'live',
      title: 'Unlocked',
    });
  });
});

describe('duplicate, move and transfer', () => {
  it('duplicates a space into a new one with its own revision', async () => {
    const s = await newSpace(admin(), org.id, { title: 'Original', emoji: '📗' });
    const res = await org.members.create.api.post(`/v1/spaces/${s.id}/duplicate`);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ title: 'Original (copy)', emoji: '📗', organization: org.id });
    expect(res.body.id).not.toBe(s.id);
    expect(res.body.revision).not.toBe(s.revision);
    expect((await org.members.edit.api.post(`/v1/spaces/${s.id}/duplicate`)).status).toBe(403);
    expect((await other.members.admin.api.post(`/v1/spaces/${s.id}/duplicate`)).status).toBe(404);
  });

  it('indexes a new space and a duplicate for search through the search-index job', async () => {
    const s = await newSpace(admin(), org.id, { title: 'Searchable' });
    await searchCaughtUp(t, s.id);
    const found = await admin().get(`/v1/spaces/${s.id}/search?query=untitled`);
    expect(found.body.items.map((hit: { title: string }) => hit.title)).toEqual(['Untitled']);
    const copy = (await admin().post(`/v1/spaces/${s.id}/duplicate`)).body;
    await searchCaughtUp(t, copy.id);
    const inCopy = await admin().get(`/v1/spaces/${copy.id}/search?query=untitled`);
    expect(inCopy.body.items.map((hit: { title: string }) => hit.title)).toEqual(['Untitled']);
    const runs = await sql(t, 'select revision_id from search_state where space_id = ?', [copy.id]);
    expect(runs).toEqual([{ revision_id: copy.revision }]);
    // The index job of the copy's first revision wrote it.
    expect(await t.temporal.workflow.getHandle(`search-index/${copy.id}/${copy.revision}`).result()).toEqual({ changed: true });
  });

  it('moves a space into a collection and back to the root', async () => {
    const c = (await admin().post(`/v1/orgs/${org.id}/collections`, { title: 'Target' })).body;
    const s = await newSpace(admin(), org.id, { title: 'A space' });
    const moved = await admin().post(`/v1/spaces/${s.id}/move`, { parent: c.id });
    expect(moved.status).toBe(200);
    expect(moved.body.parent).toBe(c.id);
    expect((await admin().get(`/v1/collections/${c.id}/spaces`)).body.items.map((x: { id: string }) => x.id)).toContain(s.id);
    expect((await admin().post(`/v1/spaces/${s.id}/move`, { parent: null })).body.parent).toBeUndefined();
    expect((await admin().post(`/v1/spaces/${s.id}/move`, { parent: 'missing' })).status).toBe(404);
    expect((await org.members.edit.api.post(`/v1/spaces/${s.id}/move`, { parent: c.id })).status).toBe(403);
    const theirs = (await other.members.admin.api.post(`/v1/orgs/${other.id}/collections`, { title: 'Theirs' })).body;
    expect((await admin().post(`/v1/spaces/${s.id}/move`, { parent: theirs.id })).status).toBe(404);
  });

  it('transfers a space to another organization and collection', async () => {
    const target = await createTestOrg(t, 'Space target');
    const s = await newSpace(admin(), org.id, { title: 'Travelling' });
    expect((await admin().post(`/v1/spaces/${s.id}/transfer`, { organization: target.id })).status).toBe(404);
    await addMember(t, target.id, org.members.admin.userId, 'admin');
    const c = (await target.members.admin.api.post(`/v1/orgs/${target.id}/collections`, { title: 'Landing' })).body;
    const res = await admin().post(`/v1/spaces/${s.id}/transfer`, { organization: target.id, collection: c.id });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ organization: target.id, parent: c.id });
    expect((await target.members.read.api.get(`/v1/spaces/${s.id}`)).status).toBe(200);
    expect((await org.members.read.api.get(`/v1/spaces/${s.id}`)).status).toBe(404);
    expect((await admin().post(`/v1/spaces/${s.id}/transfer`, {})).status).toBe(400);
  });
});

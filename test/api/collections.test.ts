import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { addMember, client, createTestOrg, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { sql } from '../support/fixtures.ts';

let t: TestApp;
let org: TestOrg;
let other: TestOrg;

beforeAll(async () => {
  t = await startTestApp();
  org = await createTestOrg(t, 'Collections org');
  other = await createTestOrg(t, 'Other org');
});
afterAll(() => t.close());

const admin = () => org.members.admin.api;

async function newCollection(body: object = { title: 'A collection' }) {
  const res = await admin().post(`/v1/orgs/${org.id}/collections`, body);
  expect(res.status).toBe(201);
  return res.body;
}

describe('creating collections', () => {
  it('creates top-level and nested collections', async () => {
    const top = await newCollection({ title: 'Guides' });
    expect(top).toMatchObject({
      object: 'collection',
      title: 'Guides',
      organization: org.id,
      defaultLevel: null,
      permissions: { view: true, admin: true, create: true },
    });
    expect(top.parent).toBeUndefined();
    expect(top.urls).toEqual({ location: `http://docs.test/v1/collections/${top.id}`, app: `http://docs.test/app/collections/${top.id}` });
    const nested = await newCollection({ title: 'Nested', parent: top.id });
    expect(nested).toMatchObject({ parent: top.id, defaultLevel: 'inherit' });
  });

  it('validates the body and names the field', async () => {
    const res = await admin().post(`/v1/orgs/${org.id}/collections`, { title: 'x'.repeat(51) });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/title/);
    const missingParent = await admin().post(`/v1/orgs/${org.id}/collections`, { parent: 'doesnotexist' });
    expect(missingParent.status).toBe(404);
  });

  it('needs the create role', async () => {
    for (const role of ['review', 'edit', 'comment', 'read'] as const) {
      const res = await org.members[role].api.post(`/v1/orgs/${org.id}/collections`, { title: 'Nope' });
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe(403);
    }
    expect((await org.members.create.api.post(`/v1/orgs/${org.id}/collections`, { title: 'Yes' })).status).toBe(201);
  });

  it('does not reveal other organizations', async () => {
    expect((await admin().post(`/v1/orgs/${other.id}/collections`, { title: 'x' })).status).toBe(404);
    const theirs = (await other.members.admin.api.post(`/v1/orgs/${other.id}/collections`, { title: 'Theirs' })).body;
    for (const [method, url] of [
      ['get', `/v1/collections/${theirs.id}`],
      ['patch', `/v1/collections/${theirs.id}`],
      ['delete', `/v1/collections/${theirs.id}`],
      ['get', `/v1/collections/${theirs.id}/spaces`],
      ['post', `/v1/collections/${theirs.id}/move`],
      ['post', `/v1/collections/${theirs.id}/transfer`],
    ] as const) {
      const res = await (admin() as any)[method](
        url,
        method === 'get' || method === 'delete'
          ? undefined
          : method === 'post' && url.endsWith('transfer')
            ? { organization: org.id }
            : { title: 'x', parent: null },
      );
      expect([url, res.status]).toEqual([url, 404]);
    }
  });
});

describe('reading, updating and listing', () => {
  it('updates title, description and default level; roles below admin are refused', async () => {
    const c = await newCollection();
    const res = await admin().patch(`/v1/collections/${c.id}`, { title: 'Renamed', description: 'About', defaultLevel: 'edit' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ title: 'Renamed', description: 'About', defaultLevel: 'edit' });
    expect((await org.members.create.api.patch(`/v1/collections/${c.id}`, { title: 'no' })).status).toBe(403);
    expect((await admin().patch(`/v1/collections/${c.id}`, { description: 'x'.repeat(101) })).status).toBe(400);
    expect((await admin().patch(`/v1/collections/${c.id}`, { defaultLevel: 'owner' })).status).toBe(400);
    const read = await org.members.read.api.get(`/v1/collections/${c.id}`);
    expect(read.status).toBe(200);
    // defaultLevel edit lifts a reader to edit on this collection, which still is not create
    expect(read.body.permissions).toEqual({ view: true, admin: false, viewInviteLinks: false, create: false });
  });

  it('hides everything from guests without a grant', async () => {
    const c = await newCollection();
    expect((await org.members.guest.api.get(`/v1/collections/${c.id}`)).status).toBe(404);
    const list = await org.members.guest.api.get(`/v1/orgs/${org.id}/collections`);
    expect(list.body).toEqual({ items: [], count: 0 });
  });

  it('lists nested collections by default and top-level ones with nested=false', async () => {
    const fresh = await createTestOrg(t, 'Listing org');
    const api = fresh.members.admin.api;
    const a = (await api.post(`/v1/orgs/${fresh.id}/collections`, { title: 'A' })).body;
    await api.post(`/v1/orgs/${fresh.id}/collections`, { title: 'A1', parent: a.id });
    await api.post(`/v1/orgs/${fresh.id}/collections`, { title: 'B' });
    const all = await api.get(`/v1/orgs/${fresh.id}/collections`);
    expect(all.body.count).toBe(3);
    const top = await api.get(`/v1/orgs/${fresh.id}/collections?nested=false`);
    expect(top.body.items.map((c: { title: string }) => c.title).sort()).toEqual(['A', 'B']);
    expect(top.body.count).toBe(2);
  });
});

describe('moving', () => {
  it('moves a collection under another and refuses cycles', async () => {
    const a = await newCollection({ title: 'A' });
    const b = await newCollection({ title: 'B', parent: a.id });
    const moved = await admin().post(`/v1/collections/${a.id}/move`, { parent: b.id });
    expect(moved.status).toBe(409);
    const self = await admin().post(`/v1/collections/${a.id}/move`, { parent: a.id });
    expect(self.status).toBe(409);
    const c = await newCollection({ title: 'C' });
    const ok = await admin().post(`/v1/collections/${c.id}/move`, { parent: b.id });
    expect(ok.status).toBe(200);
    expect(ok.body.parent).toBe(b.id);
    const back = await admin().post(`/v1/collections/${c.id}/move`, { parent: null });
    expect(back.body.parent).toBeUndefined();
    expect((await admin().post(`/v1/collections/${c.id}/move`, {})).status).toBe(400);
  });

  it('persists before/after positions among siblings', async () => {
    const parent = await newCollection({ title: 'Ordered' });
    const spaces = [];
    for (const title of ['one', 'two', 'three']) {
      spaces.push((await admin().post(`/v1/orgs/${org.id}/spaces`, { title, parent: parent.id })).body);
    }
    const child = await newCollection({ title: 'Child', parent: parent.id });
    const moved = await admin().post(`/v1/collections/${child.id}/move`, { position: { before: { type: 'space', space: spaces[0].id } } });
    expect(moved.status).toBe(200);
    const move3 = await admin().post(`/v1/spaces/${spaces[2].id}/move`, {
      position: { after: { type: 'collection', collection: child.id } },
    });
    expect(move3.status).toBe(200);
    const order = await sql<{ id: string }>(
      t,
      `select id from (select id, position from space where parent_id = ? and deleted_at is null
                       union all select id, position from collection where parent_id = ?) s order by position`,
      [parent.id, parent.id],
    );
    expect(order.map((r) => r.id)).toEqual([child.id, spaces[2].id, spaces[0].id, spaces[1].id]);
    const listed = await admin().get(`/v1/collections/${parent.id}/spaces`);
    expect(listed.body.items.map((s: { title: string }) => s.title)).toEqual(['three', 'one', 'two']);
    const wrongParent = await admin().post(`/v1/spaces/${spaces[0].id}/move`, {
      position: { before: { type: 'collection', collection: parent.id } },
    });
    expect(wrongParent.status).toBe(400);
    expect(wrongParent.body.error.message).toMatch(/position.before/);
  });
});

describe('transfer', () => {
  it('moves the collection and its spaces to an organization where the caller is admin', async () => {
    const target = await createTestOrg(t, 'Target org');
    const c = await newCollection({ title: 'Portable' });
    const inner = await newCollection({ title: 'Inner', parent: c.id });
    const s = (await admin().post(`/v1/orgs/${org.id}/spaces`, { title: 'Inside', parent: inner.id })).body;
    // not a member of the target yet: it does not exist for the caller
    expect((await admin().post(`/v1/collections/${c.id}/transfer`, { organization: target.id })).status).toBe(404);
    await addMember(t, target.id, org.members.admin.userId, 'edit');
    expect((await admin().post(`/v1/collections/${c.id}/transfer`, { organization: target.id })).status).toBe(403);
    await addMember(t, target.id, org.members.admin.userId, 'admin');
    const res = await admin().post(`/v1/collections/${c.id}/transfer`, { organization: target.id });
    expect(res.status).toBe(200);
    expect(res.body.organization).toBe(target.id);
    expect((await target.members.read.api.get(`/v1/collections/${inner.id}`)).body.organization).toBe(target.id);
    expect((await target.members.read.api.get(`/v1/spaces/${s.id}`)).body.organization).toBe(target.id);
    expect((await org.members.read.api.get(`/v1/spaces/${s.id}`)).status).toBe(404);
    expect((await admin().post(`/v1/collections/${c.id}/transfer`, {})).status).toBe(400);
  });
});

describe('deleting', () => {
  it('answers 205 and sends its spaces through the restorable deletion', async () => {
    const c = await newCollection({ title: 'Doomed' });
    const sub = await newCollection({ title: 'Doomed child', parent: c.id });
    const s1 = (await admin().post(`/v1/orgs/${org.id}/spaces`, { title: 'In doomed', parent: c.id })).body;
    const s2 = (await admin().post(`/v1/orgs/${org.id}/spaces`, { title: 'In child', parent: sub.id })).body;
    expect((await org.members.create.api.delete(`/v1/collections/${c.id}`)).status).toBe(403);
    const res = await admin().delete(`/v1/collections/${c.id}`);
    expect(res.status).toBe(205);
    expect((await admin().get(`/v1/collections/${c.id}`)).status).toBe(404);
    expect((await admin().get(`/v1/collections/${sub.id}`)).status).toBe(404);
    for (const s of [s1, s2]) expect((await admin().get(`/v1/spaces/${s.id}`)).status).toBe(404);
    const restored = await admin().post(`/v1/spaces/${s2.id}/restore`);
    expect(restored.status).toBe(200);
    expect(restored.body.parent).toBeUndefined();
    expect(restored.body.visibility).toBe('private');
    expect((await client(t.app).delete(`/v1/collections/${c.id}`)).status).toBe(401);
  });
});

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { addMember, client, createTestOrg, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { sql } from '../support/fixtures.ts';
import { findOrCreateUser } from '../../src/db/accounts.ts';
import { newId } from '../../src/domain/ids.ts';

let t: TestApp;
let org: TestOrg;
let other: TestOrg;

beforeAll(async () => {
  t = await startTestApp();
  org = await freshOrg('Members org');
  other = await createTestOrg(t, 'Other org');
});
afterAll(() => t.close());

const admin = () => org.members.admin.api;
const ROLE_ORDER = ['admin', 'create', 'review', 'edit', 'comment', 'read', 'guest'] as const;

/** Every page of a list, following `next.page`. */
async function collect(api: ReturnType<typeof client>, url: string) {
  const ids: string[] = [];
  let page: string | undefined;
  let pages = 0;
  do {
    const res = await api.get(`${url}${url.includes('?') ? '&' : '?'}${page ? `page=${page}` : ''}`);
    expect(res.status).toBe(200);
    ids.push(
      ...res.body.items.map((m: { id?: string; space?: { id: string }; team?: { id: string } }) => m.id ?? m.space?.id ?? m.team?.id),
    );
    page = res.body.next?.page;
    pages++;
  } while (page);
  return { ids, pages };
}

/**
 * A fresh organization whose members can be changed freely. Members join one second apart in
 * ROLE_ORDER, so orders by join time are certain.
 */
async function freshOrg(title = 'Scratch org') {
  const o = await createTestOrg(t, title);
  for (const [i, role] of ROLE_ORDER.entries()) {
    await sql(t, 'update member set joined_at = ? where organization_id = ? and user_id = ?', [
      new Date(Date.UTC(2024, 0, 1, 0, 0, i)),
      o.id,
      o.members[role].userId,
    ]);
  }
  return o;
}

/** Gives rows of `table` creation times one second apart, in the order given. */
async function spreadCreation(table: 'space' | 'team', ids: string[]) {
  for (const [i, id] of ids.entries())
    await sql(t, `update ${table} set created_at = ? where id = ?`, [new Date(Date.UTC(2024, 0, 1, 0, 0, i)), id]);
}

describe('listing members', () => {
  it('lists every member with the Member fields, newest first by default', async () => {
    const res = await org.members.read.api.get(`/v1/orgs/${org.id}/members`);
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(7);
    expect(res.body.next).toBeUndefined();
    expect(res.body.items.map((m: { id: string }) => m.id)).toEqual([...ROLE_ORDER].reverse().map((r) => org.members[r].userId));
    const adminItem = res.body.items.find((m: { id: string }) => m.id === org.members.admin.userId);
    expect(adminItem).toEqual({
      object: 'member',
      id: org.members.admin.userId,
      role: 'admin',
      user: {
        object: 'user',
        id: org.members.admin.userId,
        displayName: 'admin user',
        email: expect.stringMatching(/^admin-.*@example\.com$/),
        urls: { location: `http://docs.test/v1/users/${org.members.admin.userId}` },
      },
      disabled: false,
      joinedAt: expect.any(String),
      sso: false,
      spaces: 0,
      teams: 0,
      sites: 0,
    });
    const guest = res.body.items.find((m: { id: string }) => m.id === org.members.guest.userId);
    expect(guest.role).toBeNull();
  });

  it('orders ascending on request and pages through every member exactly once', async () => {
    const asc = await admin().get(`/v1/orgs/${org.id}/members?order=asc`);
    expect(asc.body.items.map((m: { id: string }) => m.id)).toEqual(ROLE_ORDER.map((r) => org.members[r].userId));
    for (const order of ['asc', 'desc']) {
      for (const sort of ['joinedAt', 'name']) {
        const { ids, pages } = await collect(admin(), `/v1/orgs/${org.id}/members?limit=3&order=${order}&sort=${sort}`);
        expect(pages).toBe(3);
        expect(new Set(ids).size).toBe(7);
      }
    }
    const byName = await admin().get(`/v1/orgs/${org.id}/members?sort=name&order=asc`);
    expect(byName.body.items.map((m: { user: { displayName: string } }) => m.user.displayName)).toEqual([
      'admin user',
      'comment user',
      'create user',
      'edit user',
      'guest user',
      'read user',
      'review user',
    ]);
  });

  it('keeps its place when members join between pages', async () => {
    const o = await freshOrg('Paging members');
    const first = await o.members.admin.api.get(`/v1/orgs/${o.id}/members?limit=4&order=asc`);
    expect(first.body.items).toHaveLength(4);
    const late = await findOrCreateUser(t.orm.em.fork(), `late-${newId(6).toLowerCase()}@example.com`, 'late user');
    await addMember(t, o.id, late.id, 'read');
    const rest = await o.members.admin.api.get(`/v1/orgs/${o.id}/members?limit=4&order=asc&page=${first.body.next.page}`);
    expect(rest.body.items.map((m: { id: string }) => m.id)).toEqual([
      o.members.comment.userId,
      o.members.read.userId,
      o.members.guest.userId,
      late.id,
    ]);
  });

  it('filters by role (guest included) and searches display names and emails', async () => {
    const admins = await admin().get(`/v1/orgs/${org.id}/members?role=admin`);
    expect(admins.body.items.map((m: { id: string }) => m.id)).toEqual([org.members.admin.userId]);
    expect(admins.body.count).toBe(1);
    const guests = await admin().get(`/v1/orgs/${org.id}/members?role=guest`);
    expect(guests.body.items.map((m: { id: string }) => m.id)).toEqual([org.members.guest.userId]);
    const byName = await admin().get(`/v1/orgs/${org.id}/members?search=EDIT%20US`);
    expect(byName.body.items.map((m: { id: string }) => m.id)).toEqual([org.members.edit.userId]);
    const byEmail = await admin().get(`/v1/orgs/${org.id}/members?search=${encodeURIComponent('review-')}`);
    expect(byEmail.body.items.map((m: { id: string }) => m.id)).toEqual([org.members.review.userId]);
    expect((await admin().get(`/v1/orgs/${org.id}/members?search=EXAMPLE.COM`)).body.count).toBe(7);
    expect((await admin().get(`/v1/orgs/${org.id}/members?search=%25`)).body.count).toBe(0);
    expect((await admin().get(`/v1/orgs/${org.id}/members?search=_`)).body.count).toBe(0);
  });

  it('sorts by last activity, listing only members seen at least once', async () => {
    const o = await freshOrg('Activity org');
    expect((await o.members.admin.api.get(`/v1/orgs/${o.id}/members?sort=lastSeenAt`)).body).toEqual({ items: [], count: 0 });
    const ping = await o.members.guest.api.post(`/v1/orgs/${o.id}/ping`);
    expect(ping.status).toBe(200);
    expect(ping.body).toEqual({});
    const seen = await o.members.admin.api.get(`/v1/orgs/${o.id}/members?sort=lastSeenAt`);
    expect(seen.body.items.map((m: { id: string }) => m.id)).toEqual([o.members.guest.userId]);
    expect(Date.parse(seen.body.items[0].lastSeenAt)).toBeGreaterThan(Date.now() - 60_000);
    await sql(t, `update member set last_seen_at = ? where organization_id = ? and user_id = ?`, [
      '2024-01-01T00:00:00.000Z',
      o.id,
      o.members.read.userId,
    ]);
    await sql(t, `update member set last_seen_at = ? where organization_id = ? and user_id = ?`, [
      '2025-01-01T00:00:00.000Z',
      o.id,
      o.members.edit.userId,
    ]);
    const desc = await o.members.admin.api.get(`/v1/orgs/${o.id}/members?sort=lastSeenAt&limit=1`);
    expect(desc.body.count).toBe(3);
    const { ids } = await collect(o.members.admin.api, `/v1/orgs/${o.id}/members?sort=lastSeenAt&limit=1`);
    expect(ids).toEqual([o.members.guest.userId, o.members.edit.userId, o.members.read.userId]);
    const asc = await collect(o.members.admin.api, `/v1/orgs/${o.id}/members?sort=lastSeenAt&order=asc&limit=2`);
    expect(asc.ids).toEqual([o.members.read.userId, o.members.edit.userId, o.members.guest.userId]);
  });

  it('validates the query, needs a role, and hides other organizations', async () => {
    for (const [query, field] of [
      ['role=owner', 'role'],
      ['order=up', 'order'],
      ['sort=age', 'sort'],
      ['limit=2000', 'limit'],
      ['limit=0', 'limit'],
    ]) {
      const res = await admin().get(`/v1/orgs/${org.id}/members?${query}`);
      expect(res.status).toBe(400);
      expect(res.body.error).toEqual({ code: 400, message: expect.stringContaining(field) });
    }
    expect((await admin().get(`/v1/orgs/${org.id}/members?page=garbage`)).status).toBe(400);
    expect((await client(t.app).get(`/v1/orgs/${org.id}/members`)).status).toBe(401);
    const guest = await org.members.guest.api.get(`/v1/orgs/${org.id}/members`);
    expect(guest.status).toBe(403);
    expect(guest.body.error.code).toBe(403);
    expect((await admin().get(`/v1/orgs/${other.id}/members`)).status).toBe(404);
  });
});

describe('one member', () => {
  it('is readable by members with a role, and by the member themself', async () => {
    const res = await org.members.read.api.get(`/v1/orgs/${org.id}/members/${org.members.edit.userId}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ object: 'member', id: org.members.edit.userId, role: 'edit' });
    expect((await org.members.guest.api.get(`/v1/orgs/${org.id}/members/${org.members.guest.userId}`)).body.role).toBeNull();
    expect((await org.members.guest.api.get(`/v1/orgs/${org.id}/members/${org.members.edit.userId}`)).status).toBe(403);
    expect((await admin().get(`/v1/orgs/${org.id}/members/${other.members.admin.userId}`)).status).toBe(404);
    expect((await admin().get(`/v1/orgs/${org.id}/members/nobody`)).status).toBe(404);
    expect((await admin().get(`/v1/orgs/${other.id}/members/${other.members.admin.userId}`)).status).toBe(404);
    expect((await client(t.app).get(`/v1/orgs/${org.id}/members/${org.members.edit.userId}`)).status).toBe(401);
  });

  it('changes roles, admins only, with the body validated', async () => {
    const o = await freshOrg('Roles org');
    const api = o.members.admin.api;
    const url = `/v1/orgs/${o.id}/members/${o.members.read.userId}`;
    const res = await api.patch(url, { role: 'edit' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: o.members.read.userId, role: 'edit' });
    expect((await o.members.read.api.get(`/v1/orgs/${o.id}`)).body.permissions).toMatchObject({ listMembers: true, createContent: false });
    expect((await api.patch(url, { role: null })).body.role).toBeNull();
    expect((await o.members.read.api.get(`/v1/orgs/${o.id}/members`)).status).toBe(403);
    for (const body of [{}, { role: 'owner' }, { role: 3 }]) {
      const bad = await api.patch(url, body);
      expect(bad.status).toBe(400);
      expect(bad.body.error.message).toMatch(/role/);
    }
    expect((await o.members.create.api.patch(url, { role: 'admin' })).status).toBe(403);
    expect((await o.members.guest.api.patch(url, { role: 'admin' })).status).toBe(403);
    expect((await api.patch(`/v1/orgs/${o.id}/members/nobody`, { role: 'read' })).status).toBe(404);
    expect((await other.members.admin.api.patch(url, { role: 'read' })).status).toBe(404);
    expect((await client(t.app).patch(url, { role: 'read' })).status).toBe(401);
  });

  it('never leaves an organization without an admin', async () => {
    const o = await freshOrg('Last admin org');
    const me = o.members.admin;
    const demote = await me.api.patch(`/v1/orgs/${o.id}/members/${me.userId}`, { role: 'read' });
    expect(demote.status).toBe(409);
    expect(demote.body.error).toEqual({ code: 409, message: expect.stringMatching(/last admin/) });
    expect((await me.api.patch(`/v1/orgs/${o.id}/members/${me.userId}`, { role: null })).status).toBe(409);
    expect((await me.api.delete(`/v1/orgs/${o.id}/members/${me.userId}`)).status).toBe(409);
    expect((await me.api.patch(`/v1/orgs/${o.id}/members/${me.userId}`, { role: 'admin' })).status).toBe(200);
    // With a second admin, either may step down, but not both at once.
    expect((await me.api.patch(`/v1/orgs/${o.id}/members/${o.members.create.userId}`, { role: 'admin' })).status).toBe(200);
    const [a, b] = await Promise.all([
      me.api.patch(`/v1/orgs/${o.id}/members/${me.userId}`, { role: 'read' }),
      o.members.create.api.patch(`/v1/orgs/${o.id}/members/${o.members.create.userId}`, { role: 'read' }),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    const admins = await sql(t, `select user_id from member where organization_id = ? and role = 'admin'`, [o.id]);
    expect(admins).toHaveLength(1);
  });

  it('removes members (admins, or members leaving), with their team places and grants', async () => {
    const o = await freshOrg('Removal org');
    const api = o.members.admin.api;
    const space = (await api.post(`/v1/orgs/${o.id}/spaces`, { title: 'Shared' })).body;
    const team = (await api.put(`/v1/orgs/${o.id}/teams`, { title: 'Crew', members: [o.members.guest.userId] })).body;
    expect((await api.post(`/v1/spaces/${space.id}/permissions`, { role: 'edit', users: [o.members.guest.userId] })).status).toBe(204);
    expect((await o.members.edit.api.delete(`/v1/orgs/${o.id}/members/${o.members.guest.userId}`)).status).toBe(403);
    const removed = await api.delete(`/v1/orgs/${o.id}/members/${o.members.guest.userId}`);
    expect(removed.status).toBe(204);
    expect(removed.body).toBeFalsy();
    expect((await api.get(`/v1/orgs/${o.id}/members/${o.members.guest.userId}`)).status).toBe(404);
    expect((await o.members.guest.api.get(`/v1/orgs/${o.id}`)).status).toBe(404);
    expect((await api.get(`/v1/orgs/${o.id}/teams/${team.id}`)).body.members).toBe(0);
    expect((await api.get(`/v1/spaces/${space.id}/permissions/users`)).body.count).toBe(0);
    expect((await api.delete(`/v1/orgs/${o.id}/members/${o.members.guest.userId}`)).status).toBe(404);
    // Leaving on one's own
    expect((await o.members.read.api.delete(`/v1/orgs/${o.id}/members/${o.members.read.userId}`)).status).toBe(204);
    expect((await o.members.read.api.get(`/v1/orgs/${o.id}`)).status).toBe(404);
    expect((await other.members.admin.api.delete(`/v1/orgs/${o.id}/members/${o.members.edit.userId}`)).status).toBe(404);
    expect((await client(t.app).delete(`/v1/orgs/${o.id}/members/${o.members.edit.userId}`)).status).toBe(401);
  });

  it('marks members as SSO members, admins only', async () => {
    const o = await freshOrg('SSO org');
    const url = `/v1/orgs/${o.id}/members/${o.members.edit.userId}/sso`;
    expect((await o.members.create.api.post(url)).status).toBe(403);
    const res = await o.members.admin.api.post(url);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: o.members.edit.userId, sso: true });
    expect((await o.members.admin.api.get(`/v1/orgs/${o.id}/members/${o.members.edit.userId}`)).body.sso).toBe(true);
    expect((await o.members.admin.api.post(`/v1/orgs/${o.id}/members/nobody/sso`)).status).toBe(404);
    expect((await other.members.admin.api.post(url)).status).toBe(404);
    expect((await client(t.app).post(url)).status).toBe(401);
  });

  it('pings: any member, guests included, records their own activity', async () => {
    const o = await freshOrg('Ping org');
    expect((await o.members.guest.api.post(`/v1/orgs/${o.id}/ping`)).status).toBe(200);
    const rows = await sql(t, 'select user_id from member where organization_id = ? and last_seen_at is not null', [o.id]);
    expect(rows).toEqual([{ user_id: o.members.guest.userId }]);
    expect((await other.members.admin.api.post(`/v1/orgs/${o.id}/ping`)).status).toBe(404);
    expect((await client(t.app).post(`/v1/orgs/${o.id}/ping`)).status).toBe(401);
  });
});

describe("a member's spaces and teams", () => {
  it('lists the spaces a member can access with their effective permission', async () => {
    const o = await freshOrg('Member spaces org');
    const api = o.members.admin.api;
    const c = (await api.post(`/v1/orgs/${o.id}/collections`, { title: 'Docs' })).body;
    const inside = (await api.post(`/v1/orgs/${o.id}/spaces`, { title: 'Inside', parent: c.id })).body;
    const root = (await api.post(`/v1/orgs/${o.id}/spaces`, { title: 'Root' })).body;
    const edited = (await api.post(`/v1/orgs/${o.id}/spaces`, { title: 'Edited' })).body;
    await spreadCreation('space', [inside.id, root.id, edited.id]);
    await api.post(`/v1/spaces/${edited.id}/permissions`, { role: 'edit', users: [o.members.read.userId] });
    await api.post(`/v1/collections/${c.id}/permissions`, { role: 'comment', users: [o.members.guest.userId] });

    const reader = await o.members.comment.api.get(`/v1/orgs/${o.id}/members/${o.members.read.userId}/spaces`);
    expect(reader.status).toBe(200);
    expect(reader.body.count).toBe(3);
    expect(reader.body.items.map((i: { space: { id: string } }) => i.space.id)).toEqual([edited.id, root.id, inside.id]);
    expect(reader.body.items.map((i: { permission: string }) => i.permission)).toEqual(['edit', 'read', 'read']);
    // `space.permissions` are the caller's, `permission` the member's
    expect(reader.body.items[0].space.permissions.edit).toBe(false);
    const asc = await o.members.comment.api.get(`/v1/orgs/${o.id}/members/${o.members.read.userId}/spaces?order=asc&limit=2`);
    expect(asc.body.items.map((i: { space: { id: string } }) => i.space.id)).toEqual([inside.id, root.id]);
    const rest = await o.members.comment.api.get(
      `/v1/orgs/${o.id}/members/${o.members.read.userId}/spaces?order=asc&limit=2&page=${asc.body.next.page}`,
    );
    expect(rest.body.items.map((i: { space: { id: string } }) => i.space.id)).toEqual([edited.id]);
    expect(rest.body.next).toBeUndefined();

    const guest = await api.get(`/v1/orgs/${o.id}/members/${o.members.guest.userId}/spaces`);
    expect(guest.body.items.map((i: { space: { id: string }; permission: string }) => [i.space.id, i.permission])).toEqual([
      [inside.id, 'comment'],
    ]);
    const own = await o.members.guest.api.get(`/v1/orgs/${o.id}/members/${o.members.guest.userId}/spaces`);
    expect(own.body.count).toBe(1);
    expect(own.body.items[0].space.permissions).toMatchObject({ view: true, comment: true, edit: false });

    const members = (await api.get(`/v1/orgs/${o.id}/members?order=asc`)).body.items;
    expect(Object.fromEntries(members.map((m: { id: string; spaces: number }) => [m.id, m.spaces]))).toMatchObject({
      [o.members.read.userId]: 3,
      [o.members.guest.userId]: 1,
    });

    expect((await o.members.guest.api.get(`/v1/orgs/${o.id}/members/${o.members.read.userId}/spaces`)).status).toBe(403);
    expect((await api.get(`/v1/orgs/${o.id}/members/nobody/spaces`)).status).toBe(404);
    expect((await api.get(`/v1/orgs/${o.id}/members/${o.members.read.userId}/spaces?order=sideways`)).status).toBe(400);
    expect((await other.members.admin.api.get(`/v1/orgs/${o.id}/members/${o.members.read.userId}/spaces`)).status).toBe(404);
    expect((await client(t.app).get(`/v1/orgs/${o.id}/members/${o.members.read.userId}/spaces`)).status).toBe(401);
  });

  it('gives a disabled member no spaces', async () => {
    const o = await freshOrg('Disabled org');
    await o.members.admin.api.post(`/v1/orgs/${o.id}/spaces`, { title: 'Any' });
    await sql(t, 'update member set disabled = true where organization_id = ? and user_id = ?', [o.id, o.members.edit.userId]);
    const m = await o.members.admin.api.get(`/v1/orgs/${o.id}/members/${o.members.edit.userId}`);
    expect(m.body).toMatchObject({ disabled: true, spaces: 0 });
    expect((await o.members.admin.api.get(`/v1/orgs/${o.id}/members/${o.members.edit.userId}/spaces`)).body).toEqual({
      items: [],
      count: 0,
    });
    expect((await o.members.edit.api.get(`/v1/orgs/${o.id}`)).status).toBe(404);
  });

  it("lists a member's teams with their role, filtered by title", async () => {
    const o = await freshOrg('Member teams org');
    const api = o.members.admin.api;
    const who = o.members.edit.userId;
    const alpha = (await api.put(`/v1/orgs/${o.id}/teams`, { title: 'Alpha writers', members: [who] })).body;
    const beta = (await api.put(`/v1/orgs/${o.id}/teams`, { title: 'Beta readers', members: [who] })).body;
    await api.put(`/v1/orgs/${o.id}/teams`, { title: 'Gamma', members: [o.members.read.userId] });
    await spreadCreation('team', [alpha.id, beta.id]);
    expect((await api.put(`/v1/orgs/${o.id}/teams/${beta.id}/members/${who}`, { role: 'owner' })).status).toBe(204);
    const res = await o.members.read.api.get(`/v1/orgs/${o.id}/members/${who}/teams`);
    expect(res.status).toBe(200);
    expect(res.body.items.map((i: { team: { id: string }; member: { role: string } }) => [i.team.id, i.member.role])).toEqual([
      [alpha.id, 'member'],
      [beta.id, 'owner'],
    ]);
    expect(res.body.items[0].team).toMatchObject({ object: 'team', title: 'Alpha writers', members: 1 });
    const filtered = await api.get(`/v1/orgs/${o.id}/members/${who}/teams?title=READ`);
    expect(filtered.body.items.map((i: { team: { id: string } }) => i.team.id)).toEqual([beta.id]);
    const paged = await collect(api, `/v1/orgs/${o.id}/members/${who}/teams?limit=1`);
    expect(paged).toEqual({ ids: [alpha.id, beta.id], pages: 2 });
    expect((await api.get(`/v1/orgs/${o.id}/members/${who}`)).body.teams).toBe(2);
    expect((await o.members.guest.api.get(`/v1/orgs/${o.id}/members/${who}/teams`)).status).toBe(403);
    expect((await api.get(`/v1/orgs/${o.id}/members/nobody/teams`)).status).toBe(404);
    expect((await api.get(`/v1/orgs/${o.id}/members/${who}/teams?limit=5000`)).status).toBe(400);
    expect((await other.members.admin.api.get(`/v1/orgs/${o.id}/members/${who}/teams`)).status).toBe(404);
    expect((await client(t.app).get(`/v1/orgs/${o.id}/members/${who}/teams`)).status).toBe(401);
  });
});

describe('API document', () => {
  it('documents the member, team and permission operations in /openapi.json', async () => {
    const res = await client(t.app).get('/openapi.json');
    expect(res.status).toBe(200);
    const paths = Object.keys(res.body.paths);
    for (const path of [
      '/v1/orgs/{organizationId}/members',
      '/v1/orgs/{organizationId}/members/{userId}',
      '/v1/orgs/{organizationId}/ping',
      '/v1/orgs/{organizationId}/members/{userId}/sso',
      '/v1/orgs/{organizationId}/members/{userId}/spaces',
      '/v1/orgs/{organizationId}/members/{userId}/teams',
      '/v1/orgs/{organizationId}/teams',
      '/v1/orgs/{organizationId}/teams/{teamId}',
      '/v1/orgs/{organizationId}/teams/{teamId}/members',
      '/v1/orgs/{organizationId}/teams/{teamId}/members/{userId}',
      '/v1/spaces/{spaceId}/permissions',
      '/v1/spaces/{spaceId}/permissions/users/{userId}',
      '/v1/collections/{collectionId}/permissions/teams/{teamId}',
    ])
      expect(paths).toContain(path);
  });
});

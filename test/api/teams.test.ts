import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { client, createTestOrg, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { sql } from '../support/fixtures.ts';

let t: TestApp;
let org: TestOrg;
let other: TestOrg;

beforeAll(async () => {
  t = await startTestApp();
  org = await createTestOrg(t, 'Teams org');
  other = await createTestOrg(t, 'Other org');
});
afterAll(() => t.close());

const admin = () => org.members.admin.api;

async function newTeam(body: object, o: TestOrg = org) {
  const res = await o.members.admin.api.put(`/v1/orgs/${o.id}/teams`, body);
  expect(res.status).toBe(201);
  return res.body;
}

describe('creating teams', () => {
  it('creates a team with its members and every Team field', async () => {
    const res = await admin().put(`/v1/orgs/${org.id}/teams`, {
      title: 'Writers',
      members: [org.members.edit.userId, org.members.guest.userId, org.members.edit.userId],
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      object: 'team',
      id: expect.any(String),
      title: 'Writers',
      members: 2,
      spaces: 0,
      createdAt: expect.any(String),
      permissions: { admin: true, view: true },
    });
    expect(Date.parse(res.body.createdAt)).toBeGreaterThan(Date.now() - 60_000);
  });

  it('validates the title and refuses users who are not members, naming them', async () => {
    for (const body of [{}, { title: '' }, { title: 'x'.repeat(65) }]) {
      const res = await admin().put(`/v1/orgs/${org.id}/teams`, body);
      expect(res.status).toBe(400);
      expect(res.body.error).toEqual({ code: 400, message: expect.stringMatching(/title/) });
    }
    const outsider = other.members.read.userId;
    const res = await admin().put(`/v1/orgs/${org.id}/teams`, { title: 'Mixed', members: [org.members.read.userId, outsider] });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe(`members[1]: ${outsider} is not a member of the organization`);
    expect((await admin().put(`/v1/orgs/${org.id}/teams`, { title: 'Bad', members: 'x' })).status).toBe(400);
    expect((await sql(t, 'select count(*)::int as n from team where organization_id = ? and title = ?', [org.id, 'Mixed']))[0].n).toBe(0);
  });

  it('is for admins only, and other organizations do not exist', async () => {
    for (const role of ['create', 'read', 'guest'] as const) {
      const res = await org.members[role].api.put(`/v1/orgs/${org.id}/teams`, { title: 'Nope' });
      expect(res.status).toBe(403);
    }
    expect((await admin().put(`/v1/orgs/${other.id}/teams`, { title: 'Nope' })).status).toBe(404);
    expect((await client(t.app).put(`/v1/orgs/${org.id}/teams`, { title: 'Nope' })).status).toBe(401);
  });
});

describe('listing teams', () => {
  it('pages through teams in creation order and filters by title', async () => {
    const o = await createTestOrg(t, 'Team list org');
    const made = [];
    for (const title of ['Design', 'Docs', 'Support', 'Sales', 'Legal']) made.push(await newTeam({ title }, o));
    for (const [i, team] of made.entries())
      await sql(t, 'update team set created_at = ? where id = ?', [new Date(Date.UTC(2024, 0, 1, 0, 0, i)), team.id]);
    const seen: string[] = [];
    let page: string | undefined;
    do {
      const res = await o.members.read.api.get(`/v1/orgs/${o.id}/teams?limit=2${page ? `&page=${page}` : ''}`);
      expect(res.status).toBe(200);
      expect(res.body.count).toBe(5);
      seen.push(...res.body.items.map((x: { id: string }) => x.id));
      page = res.body.next?.page;
    } while (page);
    expect(seen).toEqual(made.map((x) => x.id));
    const s = await o.members.read.api.get(`/v1/orgs/${o.id}/teams?title=S`);
    expect(s.body.items.map((x: { title: string }) => x.title)).toEqual(['Design', 'Docs', 'Support', 'Sales']);
    const sa = await o.members.read.api.get(`/v1/orgs/${o.id}/teams?title=sa`);
    expect(sa.body.items.map((x: { title: string }) => x.title)).toEqual(['Sales']);
    expect(sa.body.items[0].permissions).toEqual({ admin: false, view: true });
    expect((await o.members.read.api.get(`/v1/orgs/${o.id}/teams?limit=1001`)).status).toBe(400);
    expect((await o.members.read.api.get(`/v1/orgs/${o.id}/teams?page=nope`)).status).toBe(400);
  });

  it('lists the teams a member can manage with `owner`', async () => {
    const o = await createTestOrg(t, 'Owner filter org');
    const a = await newTeam({ title: 'A' }, o);
    const b = await newTeam({ title: 'B', members: [o.members.edit.userId] }, o);
    await o.members.admin.api.put(`/v1/orgs/${o.id}/teams/${a.id}/members/${o.members.edit.userId}`, { role: 'owner' });
    const ids = async (owner: string) =>
      (await o.members.read.api.get(`/v1/orgs/${o.id}/teams?owner=${owner}`)).body.items.map((x: { id: string }) => x.id).sort();
    expect(await ids(o.members.admin.userId)).toEqual([a.id, b.id].sort());
    expect(await ids(o.members.edit.userId)).toEqual([a.id]);
    expect(await ids(o.members.read.userId)).toEqual([]);
    expect(await ids(other.members.admin.userId)).toEqual([]);
    const asOwner = await o.members.edit.api.get(`/v1/orgs/${o.id}/teams?title=A`);
    expect(asOwner.body.items[0].permissions).toEqual({ admin: true, view: true });
  });

  it('needs a role in the organization', async () => {
    expect((await org.members.guest.api.get(`/v1/orgs/${org.id}/teams`)).status).toBe(403);
    expect((await admin().get(`/v1/orgs/${other.id}/teams`)).status).toBe(404);
    expect((await client(t.app).get(`/v1/orgs/${org.id}/teams`)).status).toBe(401);
  });
});

describe('one team', () => {
  it('is read by members with a role and by the team itself', async () => {
    const team = await newTeam({ title: 'Readers', members: [org.members.guest.userId] });
    const res = await org.members.read.api.get(`/v1/orgs/${org.id}/teams/${team.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...team, permissions: { admin: false, view: true } });
    expect((await org.members.guest.api.get(`/v1/orgs/${org.id}/teams/${team.id}`)).body.permissions).toEqual({ admin: false, view: true });
    const outside = await newTeam({ title: 'Elsewhere' });
    expect((await org.members.guest.api.get(`/v1/orgs/${org.id}/teams/${outside.id}`)).status).toBe(403);
    expect((await admin().get(`/v1/orgs/${org.id}/teams/missing`)).status).toBe(404);
    expect((await other.members.admin.api.get(`/v1/orgs/${other.id}/teams/${team.id}`)).status).toBe(404);
    expect((await other.members.admin.api.get(`/v1/orgs/${org.id}/teams/${team.id}`)).status).toBe(404);
    expect((await client(t.app).get(`/v1/orgs/${org.id}/teams/${team.id}`)).status).toBe(401);
  });

  it('is renamed by admins and team owners only', async () => {
    const team = await newTeam({ title: 'Old', members: [org.members.read.userId, org.members.comment.userId] });
    await admin().put(`/v1/orgs/${org.id}/teams/${team.id}/members/${org.members.read.userId}`, { role: 'owner' });
    const renamed = await org.members.read.api.patch(`/v1/orgs/${org.id}/teams/${team.id}`, { title: 'New' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ id: team.id, title: 'New', members: 2, permissions: { admin: true } });
    expect((await org.members.comment.api.patch(`/v1/orgs/${org.id}/teams/${team.id}`, { title: 'Mine' })).status).toBe(403);
    expect((await org.members.create.api.patch(`/v1/orgs/${org.id}/teams/${team.id}`, { title: 'Mine' })).status).toBe(403);
    for (const body of [{}, { title: '' }, { title: 'y'.repeat(65) }]) {
      const res = await admin().patch(`/v1/orgs/${org.id}/teams/${team.id}`, body);
      expect(res.status).toBe(400);
      expect(res.body.error.message).toMatch(/title/);
    }
    expect((await admin().patch(`/v1/orgs/${org.id}/teams/missing`, { title: 'x' })).status).toBe(404);
    expect((await other.members.admin.api.patch(`/v1/orgs/${org.id}/teams/${team.id}`, { title: 'x' })).status).toBe(404);
  });

  it('is deleted with its grants, by admins and owners', async () => {
    const team = await newTeam({ title: 'Doomed', members: [org.members.read.userId] });
    const space = (await admin().post(`/v1/orgs/${org.id}/spaces`, { title: 'Team space' })).body;
    await admin().post(`/v1/spaces/${space.id}/permissions`, { role: 'admin', teams: [team.id] });
    expect((await org.members.read.api.get(`/v1/spaces/${space.id}`)).body.permissions.admin).toBe(true);
    expect((await admin().get(`/v1/orgs/${org.id}/teams/${team.id}`)).body.spaces).toBe(1);
    expect((await org.members.read.api.delete(`/v1/orgs/${org.id}/teams/${team.id}`)).status).toBe(403);
    const res = await admin().delete(`/v1/orgs/${org.id}/teams/${team.id}`);
    expect(res.status).toBe(204);
    expect((await admin().get(`/v1/orgs/${org.id}/teams/${team.id}`)).status).toBe(404);
    expect((await org.members.read.api.get(`/v1/spaces/${space.id}`)).body.permissions.admin).toBe(false);
    expect((await admin().delete(`/v1/orgs/${org.id}/teams/${team.id}`)).status).toBe(404);
    const owned = await newTeam({ title: 'Owned', members: [org.members.comment.userId] });
    await admin().put(`/v1/orgs/${org.id}/teams/${owned.id}/members/${org.members.comment.userId}`, { role: 'owner' });
    expect((await org.members.comment.api.delete(`/v1/orgs/${org.id}/teams/${owned.id}`)).status).toBe(204);
    expect((await other.members.admin.api.delete(`/v1/orgs/${org.id}/teams/${owned.id}`)).status).toBe(404);
    expect((await client(t.app).delete(`/v1/orgs/${org.id}/teams/${owned.id}`)).status).toBe(401);
  });

  it('counts the spaces the team reaches through grants on spaces and collections', async () => {
    const o = await createTestOrg(t, 'Team reach org');
    const api = o.members.admin.api;
    const team = await newTeam({ title: 'Reach' }, o);
    const c = (await api.post(`/v1/orgs/${o.id}/collections`, { title: 'C' })).body;
    const nested = (await api.post(`/v1/orgs/${o.id}/collections`, { title: 'Nested', parent: c.id })).body;
    await api.post(`/v1/orgs/${o.id}/spaces`, { title: 'In C', parent: c.id });
    await api.post(`/v1/orgs/${o.id}/spaces`, { title: 'In nested', parent: nested.id });
    const alone = (await api.post(`/v1/orgs/${o.id}/spaces`, { title: 'Alone' })).body;
    await api.post(`/v1/orgs/${o.id}/spaces`, { title: 'Not granted' });
    await api.post(`/v1/collections/${c.id}/permissions`, { role: 'read', teams: [team.id] });
    await api.post(`/v1/spaces/${alone.id}/permissions`, { role: 'edit', teams: [team.id] });
    expect((await api.get(`/v1/orgs/${o.id}/teams/${team.id}`)).body.spaces).toBe(3);
    expect((await api.delete(`/v1/spaces/${alone.id}`)).status).toBe(205);
    expect((await api.get(`/v1/orgs/${o.id}/teams/${team.id}`)).body.spaces).toBe(2);
  });
});

describe('team members', () => {
  it('adds by id or email, sets roles, removes, and lists members with their team role', async () => {
    const o = await createTestOrg(t, 'Team members org');
    const api = o.members.admin.api;
    const team = await newTeam({ title: 'Crew' }, o);
    const base = `/v1/orgs/${o.id}/teams/${team.id}/members`;
    const readEmail = (await api.get(`/v1/orgs/${o.id}/members/${o.members.read.userId}`)).body.user.email;
    const update = await api.put(base, {
      add: [o.members.edit.userId, readEmail.toUpperCase(), o.members.guest.userId, o.members.comment.userId],
      memberships: { [o.members.create.userId]: { role: 'owner' } },
      remove: [o.members.guest.userId, 'nobody@example.com'],
    });
    expect(update.status).toBe(204);
    const list = await api.get(base);
    expect(list.status).toBe(200);
    expect(list.body.count).toBe(4);
    const byId = Object.fromEntries(
      list.body.items.map((i: { organization: { id: string }; team: { role: string } }) => [i.organization.id, i.team.role]),
    );
    expect(byId).toEqual({
      [o.members.edit.userId]: 'member',
      [o.members.read.userId]: 'member',
      [o.members.comment.userId]: 'member',
      [o.members.create.userId]: 'owner',
    });
    expect(list.body.items[0]).toMatchObject({ organization: { object: 'member', teams: 1 }, permissions: { view: true } });

    const paged: string[] = [];
    let page: string | undefined;
    do {
      const res = await o.members.read.api.get(`${base}?limit=3${page ? `&page=${page}` : ''}`);
      paged.push(...res.body.items.map((i: { organization: { id: string } }) => i.organization.id));
      page = res.body.next?.page;
    } while (page);
    expect(paged.sort()).toEqual(Object.keys(byId).sort());

    // The owner manages the team from now on.
    const owner = o.members.create.api;
    expect((await owner.put(`${base}/${o.members.guest.userId}`, {})).status).toBe(204);
    expect((await owner.put(`${base}/${o.members.guest.userId}`, { role: 'owner' })).status).toBe(204);
    expect((await api.get(`/v1/orgs/${o.id}/members/${o.members.guest.userId}/teams`)).body.items[0].member.role).toBe('owner');
    expect((await owner.delete(`${base}/${o.members.comment.userId}`)).status).toBe(205);
    expect((await owner.delete(`${base}/${o.members.comment.userId}`)).status).toBe(204);
    expect((await api.get(`/v1/orgs/${o.id}/teams/${team.id}`)).body.members).toBe(4);

    expect((await o.members.edit.api.put(base, { add: [o.members.review.userId] })).status).toBe(403);
    expect((await o.members.edit.api.delete(`${base}/${o.members.read.userId}`)).status).toBe(403);
    expect((await o.members.edit.api.put(`${base}/${o.members.review.userId}`, {})).status).toBe(403);
    const bad = await api.put(base, { add: [o.members.review.userId, other.members.admin.userId] });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toBe(`add[1]: ${other.members.admin.userId} is not a member of the organization`);
    expect((await api.put(base, { memberships: { [o.members.review.userId]: { role: 'boss' } } })).status).toBe(400);
    expect((await api.put(`${base}/${other.members.admin.userId}`, {})).status).toBe(404);
    expect((await api.put(`${base}/${o.members.review.userId}`, { role: 'chief' })).status).toBe(400);
    expect((await o.members.guest.api.get(`/v1/orgs/${o.id}/teams/${team.id}/members`)).status).toBe(200);
    expect((await api.get(`/v1/orgs/${o.id}/teams/missing/members`)).status).toBe(404);
    expect((await other.members.admin.api.get(base)).status).toBe(404);
    expect((await other.members.admin.api.put(base, { add: [] })).status).toBe(404);
    expect((await client(t.app).get(base)).status).toBe(401);
  });

  it('gives team grants only to current team members', async () => {
    const o = await createTestOrg(t, 'Team grant org');
    const api = o.members.admin.api;
    const team = await newTeam({ title: 'Editors' }, o);
    const space = (await api.post(`/v1/orgs/${o.id}/spaces`, { title: 'S' })).body;
    await api.post(`/v1/spaces/${space.id}/permissions`, { role: 'edit', teams: [team.id] });
    const reader = o.members.read.api;
    expect((await reader.get(`/v1/spaces/${space.id}`)).body.permissions.edit).toBe(false);
    await api.put(`/v1/orgs/${o.id}/teams/${team.id}/members/${o.members.read.userId}`, {});
    expect((await reader.get(`/v1/spaces/${space.id}`)).body.permissions.edit).toBe(true);
    expect((await reader.patch(`/v1/spaces/${space.id}`, { title: 'Edited by the team' })).status).toBe(200);
    await api.delete(`/v1/orgs/${o.id}/teams/${team.id}/members/${o.members.read.userId}`);
    expect((await reader.get(`/v1/spaces/${space.id}`)).body.permissions.edit).toBe(false);
    expect((await reader.patch(`/v1/spaces/${space.id}`, { title: 'No longer' })).status).toBe(403);
  });
});

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { client, createTestOrg, startTestApp, type Api, type TestApp, type TestOrg } from '../support/harness.ts';
import { collectionPermissions, spacePermissions, ROLES, type Role } from '../../src/domain/roles.ts';

/**
 * The access rule, end to end: effective permission on a space = the highest of the member's
 * organization role, the default levels of the space and of its collections, and explicit grants
 * (on the space or a collection above it) to the user or their teams. Guests reach only grants.
 */
let t: TestApp;
let org: TestOrg;
let other: TestOrg;

beforeAll(async () => {
  t = await startTestApp();
  org = await createTestOrg(t, 'Permissions org');
  other = await createTestOrg(t, 'Other org');
});
afterAll(() => t.close());

const admin = () => org.members.admin.api;
type Who = Role | 'guest';
type Place = 'space' | 'inner' | 'outer';

/** outer collection ⊃ inner collection ⊃ space, created fresh for each case. */
async function tree() {
  const outer = (await admin().post(`/v1/orgs/${org.id}/collections`, { title: 'Outer' })).body;
  const inner = (await admin().post(`/v1/orgs/${org.id}/collections`, { title: 'Inner', parent: outer.id })).body;
  const space = (await admin().post(`/v1/orgs/${org.id}/spaces`, { title: 'Leaf', parent: inner.id })).body;
  return { outer: outer.id as string, inner: inner.id as string, space: space.id as string };
}

const url = (ids: Record<Place, string>, place: Place) => (place === 'space' ? `/v1/spaces/${ids.space}` : `/v1/collections/${ids[place]}`);

interface Case {
  who: Who;
  levels?: Partial<Record<Place, Role>>;
  userGrants?: Partial<Record<Place, Role>>;
  teamGrants?: Partial<Record<Place, Role>>;
  /** Expected effective role on the space, the inner and the outer collection (null: not visible). */
  expect: Record<Place, Role | null>;
}

const CASES: Case[] = [
  { who: 'read', expect: { space: 'read', inner: 'read', outer: 'read' } },
  { who: 'read', levels: { space: 'edit' }, expect: { space: 'edit', inner: 'read', outer: 'read' } },
  { who: 'read', levels: { outer: 'review' }, expect: { space: 'review', inner: 'review', outer: 'review' } },
  { who: 'comment', levels: { inner: 'read' }, expect: { space: 'comment', inner: 'comment', outer: 'comment' } },
  { who: 'read', userGrants: { outer: 'comment' }, expect: { space: 'comment', inner: 'comment', outer: 'comment' } },
  { who: 'read', userGrants: { space: 'admin' }, expect: { space: 'admin', inner: 'read', outer: 'read' } },
  { who: 'read', teamGrants: { inner: 'admin' }, expect: { space: 'admin', inner: 'admin', outer: 'read' } },
  { who: 'edit', userGrants: { space: 'read' }, teamGrants: { outer: 'comment' }, expect: { space: 'edit', inner: 'edit', outer: 'edit' } },
  { who: 'admin', userGrants: { space: 'read' }, levels: { space: 'read' }, expect: { space: 'admin', inner: 'admin', outer: 'admin' } },
  {
    who: 'comment',
    levels: { space: 'create' },
    userGrants: { inner: 'edit' },
    teamGrants: { space: 'review' },
    expect: { space: 'create', inner: 'edit', outer: 'comment' },
  },
  { who: 'guest', expect: { space: null, inner: null, outer: null } },
  { who: 'guest', levels: { space: 'admin', inner: 'edit', outer: 'edit' }, expect: { space: null, inner: null, outer: null } },
  { who: 'guest', userGrants: { space: 'read' }, levels: { space: 'edit' }, expect: { space: 'read', inner: null, outer: null } },
  { who: 'guest', teamGrants: { outer: 'edit' }, expect: { space: 'edit', inner: 'edit', outer: 'edit' } },
  {
    who: 'guest',
    userGrants: { inner: 'comment' },
    teamGrants: { space: 'review' },
    expect: { space: 'review', inner: 'comment', outer: null },
  },
  {
    who: 'guest',
    userGrants: { outer: 'read' },
    teamGrants: { inner: 'create' },
    expect: { space: 'create', inner: 'create', outer: 'read' },
  },
];

function describeCase(c: Case) {
  const parts = [`${c.who}`];
  if (c.levels) parts.push(`levels ${JSON.stringify(c.levels)}`);
  if (c.userGrants) parts.push(`user grants ${JSON.stringify(c.userGrants)}`);
  if (c.teamGrants) parts.push(`team grants ${JSON.stringify(c.teamGrants)}`);
  return parts.join(', ');
}

async function grant(ids: Record<Place, string>, place: Place, body: object) {
  const res = await admin().post(`${url(ids, place)}/permissions`, body);
  expect(res.status).toBe(204);
}

describe('the access rule', () => {
  it.each(CASES.map((c) => [describeCase(c), c] as const))('%s', async (_name, c) => {
    const ids = await tree();
    const member = org.members[c.who];
    for (const [place, level] of Object.entries(c.levels ?? {}) as [Place, Role][]) {
      expect((await admin().patch(url(ids, place), { defaultLevel: level })).status).toBe(200);
    }
    for (const [place, role] of Object.entries(c.userGrants ?? {}) as [Place, Role][])
      await grant(ids, place, { role, users: [member.userId] });
    if (c.teamGrants) {
      const team = (await admin().put(`/v1/orgs/${org.id}/teams`, { title: 'Case team', members: [member.userId] })).body;
      for (const [place, role] of Object.entries(c.teamGrants) as [Place, Role][]) await grant(ids, place, { role, teams: [team.id] });
    }
    for (const place of ['space', 'inner', 'outer'] as const) {
      const res = await member.api.get(url(ids, place));
      const expected = c.expect[place];
      if (expected === null) {
        expect([place, res.status]).toEqual([place, 404]);
        continue;
      }
      expect([place, res.status]).toEqual([place, 200]);
      const permissions = place === 'space' ? spacePermissions(expected) : collectionPermissions(expected);
      expect([place, res.body.permissions]).toEqual([place, permissions]);
    }
    // The outcome of writes follows the same role: editing the title needs edit, settings need admin.
    const edit = await member.api.patch(url(ids, 'space'), { title: 'Edited' });
    const canSee = c.expect.space !== null;
    const canEdit = canSee && ROLES.indexOf(c.expect.space!) <= ROLES.indexOf('edit');
    expect(edit.status).toBe(!canSee ? 404 : canEdit ? 200 : 403);
    const settings = await member.api.patch(url(ids, 'space'), { defaultLevel: null });
    expect(settings.status).toBe(!canSee ? 404 : c.expect.space === 'admin' ? 200 : 403);
  });

  it('lets guests list exactly the spaces and collections granted to them or their teams', async () => {
    const o = await createTestOrg(t, 'Guest lists org');
    const api = o.members.admin.api;
    const guest = o.members.guest.api;
    const post = async (path: string, body: object) => (await api.post(`/v1/orgs/${o.id}/${path}`, body)).body;
    const shared = await post('collections', { title: 'Shared' });
    const below = await post('collections', { title: 'Below', parent: shared.id });
    const hidden = await post('collections', { title: 'Hidden' });
    const inShared = await post('spaces', { title: 'In shared', parent: shared.id });
    const inBelow = await post('spaces', { title: 'In below', parent: below.id });
    const direct = await post('spaces', { title: 'Direct', parent: hidden.id });
    await post('spaces', { title: 'Not granted' });
    await post('spaces', { title: 'Also hidden', parent: hidden.id });

    expect((await guest.get(`/v1/orgs/${o.id}/spaces`)).body).toEqual({ items: [], count: 0 });
    expect((await guest.get(`/v1/orgs/${o.id}/collections`)).body).toEqual({ items: [], count: 0 });

    const team = (await api.put(`/v1/orgs/${o.id}/teams`, { title: 'Guests', members: [o.members.guest.userId] })).body;
    await api.post(`/v1/collections/${shared.id}/permissions`, { role: 'read', teams: [team.id] });
    await api.post(`/v1/spaces/${direct.id}/permissions`, { role: 'comment', users: [o.members.guest.userId] });

    const spaces = await guest.get(`/v1/orgs/${o.id}/spaces`);
    expect(spaces.status).toBe(200);
    expect(spaces.body.count).toBe(3);
    expect(spaces.body.items.map((s: { id: string }) => s.id).sort()).toEqual([inShared.id, inBelow.id, direct.id].sort());
    // The permissions of listed items follow the same rule (grants reach down through collections).
    const perms = Object.fromEntries(
      spaces.body.items.map((s: { id: string; permissions: { view: boolean; comment: boolean } }) => [
        s.id,
        [s.permissions.view, s.permissions.comment],
      ]),
    );
    expect(perms).toEqual({ [inShared.id]: [true, false], [inBelow.id]: [true, false], [direct.id]: [true, true] });
    const listedCollections = await guest.get(`/v1/orgs/${o.id}/collections`);
    expect(listedCollections.body.items.map((c: { permissions: { view: boolean } }) => c.permissions.view)).toEqual([true, true]);

    const paged: string[] = [];
    let page: string | undefined;
    do {
      const res = await guest.get(`/v1/orgs/${o.id}/spaces?limit=2${page ? `&page=${page}` : ''}`);
      paged.push(...res.body.items.map((s: { id: string }) => s.id));
      page = res.body.next?.page;
    } while (page);
    expect(paged.sort()).toEqual([inShared.id, inBelow.id, direct.id].sort());

    const collections = await guest.get(`/v1/orgs/${o.id}/collections`);
    expect(collections.body.items.map((c: { id: string }) => c.id).sort()).toEqual([shared.id, below.id].sort());
    const top = await guest.get(`/v1/orgs/${o.id}/collections?nested=false`);
    expect(top.body.items.map((c: { id: string }) => c.id)).toEqual([shared.id]);
    const inside = await guest.get(`/v1/collections/${shared.id}/spaces`);
    expect(inside.body.items.map((s: { id: string }) => s.id)).toEqual([inShared.id]);
    expect((await guest.get(`/v1/collections/${hidden.id}`)).status).toBe(404);
    expect((await guest.get(`/v1/collections/${hidden.id}/spaces`)).status).toBe(404);

    // Deleted spaces and revoked grants drop out.
    expect((await api.delete(`/v1/spaces/${inBelow.id}`)).status).toBe(205);
    expect((await api.delete(`/v1/collections/${shared.id}/permissions/teams/${team.id}`)).status).toBe(205);
    expect((await guest.get(`/v1/orgs/${o.id}/spaces`)).body.items.map((s: { id: string }) => s.id)).toEqual([direct.id]);
    expect((await guest.get(`/v1/orgs/${o.id}/collections`)).body.count).toBe(0);
  });

  it('does not let a team of another organization or a former member reach content', async () => {
    const o = await createTestOrg(t, 'Leaving org');
    const space = (await o.members.admin.api.post(`/v1/orgs/${o.id}/spaces`, { title: 'Private' })).body;
    await o.members.admin.api.post(`/v1/spaces/${space.id}/permissions`, { role: 'admin', users: [o.members.guest.userId] });
    expect((await o.members.guest.api.get(`/v1/spaces/${space.id}`)).status).toBe(200);
    await o.members.admin.api.delete(`/v1/orgs/${o.id}/members/${o.members.guest.userId}`);
    expect((await o.members.guest.api.get(`/v1/spaces/${space.id}`)).status).toBe(404);
    const theirTeam = (await other.members.admin.api.put(`/v1/orgs/${other.id}/teams`, { title: 'Theirs' })).body;
    const res = await o.members.admin.api.post(`/v1/spaces/${space.id}/permissions`, { role: 'read', teams: [theirTeam.id] });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe(`teams[0]: ${theirTeam.id} is not a team of the organization`);
  });
});

describe.each(['space', 'collection'] as const)('%s permissions', (kind) => {
  async function target(api: Api = admin()) {
    const res =
      kind === 'space'
        ? await api.post(`/v1/orgs/${org.id}/spaces`, { title: 'Granted' })
        : await api.post(`/v1/orgs/${org.id}/collections`, { title: 'Granted' });
    expect(res.status).toBe(201);
    return `/v1/${kind === 'space' ? 'spaces' : 'collections'}/${res.body.id}/permissions`;
  }

  it('invites users and teams, lists them, changes and removes their grants', async () => {
    const base = await target();
    const team = (await admin().put(`/v1/orgs/${org.id}/teams`, { title: `${kind} team`, members: [org.members.comment.userId] })).body;
    expect((await admin().post(base, { role: 'edit', users: [org.members.read.userId, org.members.guest.userId] })).status).toBe(204);
    expect((await admin().post(base, { role: 'review', teams: [team.id] })).status).toBe(204);
    // Inviting again changes the role rather than adding a second grant.
    expect((await admin().post(base, { role: 'comment', users: [org.members.guest.userId] })).status).toBe(204);

    const users = await org.members.read.api.get(`${base}/users`);
    expect(users.status).toBe(200);
    expect(users.body.count).toBe(2);
    const byUser = Object.fromEntries(users.body.items.map((i: { user: { id: string }; permission: string }) => [i.user.id, i.permission]));
    expect(byUser).toEqual({ [org.members.read.userId]: 'edit', [org.members.guest.userId]: 'comment' });
    expect(users.body.items[0].user).toMatchObject({
      object: 'user',
      displayName: expect.any(String),
      urls: { location: expect.stringContaining('/v1/users/') },
    });
    const first = await admin().get(`${base}/users?limit=1`);
    const second = await admin().get(`${base}/users?limit=1&page=${first.body.next.page}`);
    expect([...first.body.items, ...second.body.items].map((i: { user: { id: string } }) => i.user.id).sort()).toEqual(
      Object.keys(byUser).sort(),
    );
    expect(second.body.next).toBeUndefined();

    const teams = await admin().get(`${base}/teams`);
    expect(teams.body).toMatchObject({ count: 1, items: [{ permission: 'review', team: { id: team.id, object: 'team', members: 1 } }] });

    expect((await admin().patch(`${base}/users/${org.members.read.userId}`, { role: 'admin' })).status).toBe(204);
    expect((await admin().patch(`${base}/teams/${team.id}`, { role: 'read' })).status).toBe(204);
    expect((await admin().get(`${base}/teams`)).body.items[0].permission).toBe('read');
    expect((await admin().patch(`${base}/users/${org.members.edit.userId}`, { role: 'read' })).status).toBe(404);
    expect((await admin().patch(`${base}/teams/missing`, { role: 'read' })).status).toBe(404);
    const badRole = await admin().patch(`${base}/users/${org.members.read.userId}`, { role: 'owner' });
    expect(badRole.status).toBe(400);
    expect(badRole.body.error.message).toMatch(/role/);
    expect((await admin().patch(`${base}/users/${org.members.read.userId}`, {})).status).toBe(400);

    // A member made admin of the object through a grant manages its grants.
    expect((await org.members.read.api.post(base, { role: 'read', users: [org.members.edit.userId] })).status).toBe(204);
    expect((await org.members.read.api.patch(`${base}/users/${org.members.guest.userId}`, { role: null })).status).toBe(204);
    expect((await admin().get(`${base}/users`)).body.count).toBe(2);

    expect((await admin().delete(`${base}/users/${org.members.edit.userId}`)).status).toBe(205);
    expect((await admin().delete(`${base}/users/${org.members.edit.userId}`)).status).toBe(204);
    expect((await admin().delete(`${base}/teams/${team.id}`)).status).toBe(205);
    expect((await admin().delete(`${base}/teams/${team.id}`)).status).toBe(204);
    expect((await admin().post(base, { role: null, users: [org.members.read.userId] })).status).toBe(204);
    expect((await admin().get(`${base}/users`)).body).toEqual({ items: [], count: 0 });
  });

  it('validates invitations and names the bad field', async () => {
    const base = await target();
    const cases: [object, RegExp][] = [
      [{ users: [org.members.read.userId] }, /role/],
      [{ role: 'owner', users: [org.members.read.userId] }, /role/],
      [{ role: 'read' }, /users or body\.teams/],
      [{ role: 'read', users: [] }, /users/],
      [
        { role: 'read', users: [org.members.read.userId, other.members.read.userId] },
        /^users\[1\]: .* is not a member of the organization$/,
      ],
      [{ role: 'read', teams: ['missing'] }, /^teams\[0\]: missing is not a team of the organization$/],
    ];
    for (const [body, message] of cases) {
      const res = await admin().post(base, body);
      expect([JSON.stringify(body), res.status]).toEqual([JSON.stringify(body), 400]);
      expect(res.body.error.code).toBe(400);
      expect(res.body.error.message).toMatch(message);
    }
    expect((await admin().get(`${base}/users?limit=0`)).status).toBe(400);
    expect((await admin().get(`${base}/teams?page=bad`)).status).toBe(400);
  });

  it('needs admin on the object to change grants, and hides other organizations', async () => {
    const base = await target();
    await admin().post(base, { role: 'read', users: [org.members.read.userId] });
    for (const role of ['create', 'review', 'edit', 'comment', 'read'] as const) {
      const api = org.members[role].api;
      expect((await api.post(base, { role: 'admin', users: [org.members[role].userId] })).status).toBe(403);
      expect((await api.patch(`${base}/users/${org.members.read.userId}`, { role: 'admin' })).status).toBe(403);
      expect((await api.delete(`${base}/users/${org.members.read.userId}`)).status).toBe(403);
      expect((await api.get(`${base}/users`)).status).toBe(200);
    }
    // Guests cannot see the object at all.
    expect((await org.members.guest.api.get(`${base}/users`)).status).toBe(404);
    expect((await org.members.guest.api.post(base, { role: 'admin', users: [org.members.guest.userId] })).status).toBe(404);
    for (const [method, path, body] of [
      ['post', base, { role: 'read', users: [other.members.read.userId] }],
      ['get', `${base}/users`, undefined],
      ['get', `${base}/teams`, undefined],
      ['patch', `${base}/users/${org.members.read.userId}`, { role: 'admin' }],
      ['delete', `${base}/users/${org.members.read.userId}`, undefined],
      ['patch', `${base}/teams/x`, { role: 'admin' }],
      ['delete', `${base}/teams/x`, undefined],
    ] as const) {
      const res = await (other.members.admin.api as any)[method](path, body);
      expect([method, path, res.status]).toEqual([method, path, 404]);
      expect((await (client(t.app) as any)[method](path, body)).status).toBe(401);
    }
    const missing = kind === 'space' ? '/v1/spaces/missing/permissions/users' : '/v1/collections/missing/permissions/users';
    expect((await admin().get(missing)).status).toBe(404);
  });
});

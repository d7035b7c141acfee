import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { GitBookAPI } from '@gitbook/api';
import { randomBytes } from 'node:crypto';
import { addMember, createTestOrg, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { expectMatchesGitBook } from '../support/gitbook-openapi.ts';

/**
 * Site permissions: a role granted on a site to a member or a team raises what they may do on that
 * site (and only there) above their organization role, through the site's own operations; removing
 * the grant takes it away at once, in every API process. Only those who can manage the site change
 * its grants, for members and teams of its organization only.
 */
let t: TestApp;
let second: TestApp;
let org: TestOrg;
let other: TestOrg;

beforeAll(async () => {
  t = await startTestApp();
  // A second API process of the same service: what one grants or removes holds in the other at once.
  second = await startTestApp();
  org = await createTestOrg(t, 'Site permissions org');
  other = await createTestOrg(t, 'Other org');
});
afterAll(async () => {
  await second?.close();
  await t?.close();
});

const admin = () => org.members.admin.api;
const unique = (prefix: string) => `${prefix}-${randomBytes(4).toString('hex')}`;

async function newSite(title = unique('Site')) {
  const res = await admin().post(`/v1/orgs/${org.id}/sites`, { title });
  expect(res.status).toBe(201);
  return res.body.id as string;
}
const siteUrl = (siteId: string) => `/v1/orgs/${org.id}/sites/${siteId}`;

async function newTeam(members: string[]) {
  const res = await admin().put(`/v1/orgs/${org.id}/teams`, { title: unique('Team'), members });
  expect(res.status).toBeLessThan(300);
  return res.body.id as string;
}

describe('the effect of a grant on the site operations', () => {
  it('lets a reader granted admin on a site manage that site, and no other', async () => {
    const siteId = await newSite();
    const elsewhere = await newSite();
    const reader = org.members.read.api;
    expect((await reader.patch(siteUrl(siteId), { title: 'Renamed by reader' })).status).toBe(403);
    expect((await reader.post(`${siteUrl(siteId)}/share-links`, { name: 'L' })).status).toBe(403);

    const granted = await admin().post(`${siteUrl(siteId)}/permissions`, { role: 'admin', users: [org.members.read.userId] });
    expect(granted.status).toBe(204);

    const renamed = await reader.patch(siteUrl(siteId), { title: 'Renamed by reader' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.title).toBe('Renamed by reader');
    expect(renamed.body.permissions.admin).toBe(true);
    expect((await reader.post(`${siteUrl(siteId)}/share-links`, { name: 'L' })).status).toBe(201);
    expect((await reader.post(`${siteUrl(siteId)}/publish`)).status).toBe(200);
    // Managing the site includes its grants.
    expect((await reader.post(`${siteUrl(siteId)}/permissions`, { role: 'read', users: [org.members.comment.userId] })).status).toBe(204);
    // Nothing changes on another site.
    expect((await reader.patch(siteUrl(elsewhere), { title: 'Nope' })).status).toBe(403);
    expect((await reader.get(siteUrl(elsewhere))).body.permissions.admin).toBe(false);
    // The listing shows each site as the reader's role on it is.
    const listed = (await reader.get(`/v1/orgs/${org.id}/sites?limit=1000`)).body.items;
    expect(listed.find((s: any) => s.id === siteId).permissions.admin).toBe(true);
    expect(listed.find((s: any) => s.id === elsewhere).permissions.admin).toBe(false);
  });

  it('gives a guest of the organization access to the site granted, through a team too', async () => {
    const siteId = await newSite();
    const guest = org.members.guest.api;
    expect((await guest.get(siteUrl(siteId))).status).toBe(403);
    const listed = async () => (await guest.get(`/v1/orgs/${org.id}/sites`)).body.items.map((s: any) => s.id);
    expect(await listed()).toEqual([]);
    const team = await newTeam([org.members.guest.userId]);
    expect((await admin().post(`${siteUrl(siteId)}/permissions`, { role: 'create', teams: [team] })).status).toBe(204);
    // The guest's listing holds the site granted (through their team), and no other.
    expect(await listed()).toEqual([siteId]);

    const read = await guest.get(siteUrl(siteId));
    expect(read.status).toBe(200);
    expect(read.body.permissions).toMatchObject({ view: true, create: true, admin: false });
    // `create` on the site is what changing its structure takes.
    expect((await guest.post(`${siteUrl(siteId)}/section-groups`, { title: 'By a guest' })).status).toBe(201);
    expect((await guest.get(`${siteUrl(siteId)}/structure`)).status).toBe(200);
    expect((await guest.patch(siteUrl(siteId), { title: 'Not an admin' })).status).toBe(403);
    // The guest's member answer counts the sites granted to them.
    expect((await admin().get(`/v1/orgs/${org.id}/members/${org.members.guest.userId}`)).body.sites).toBe(1);
  });

  it('never lowers the organization role: an editor granted read keeps edit', async () => {
    const siteId = await newSite();
    expect((await admin().post(`${siteUrl(siteId)}/permissions`, { role: 'read', users: [org.members.create.userId] })).status).toBe(204);
    const space = (await admin().post(`/v1/orgs/${org.id}/spaces`, { title: 'Kept create' })).body.id;
    expect((await org.members.create.api.post(`${siteUrl(siteId)}/site-spaces`, { spaceId: space })).status).toBe(201);
  });

  it('takes the access away at once when the grant is removed, in every API process', async () => {
    const siteId = await newSite();
    const reader = org.members.read;
    const inSecond = (path: string, body: unknown) =>
      second.app.inject({
        method: 'PATCH',
        url: path,
        headers: { authorization: `Bearer ${reader.token}`, 'content-type': 'application/json' },
        payload: JSON.stringify(body),
      });
    expect((await admin().post(`${siteUrl(siteId)}/permissions`, { role: 'admin', users: [reader.userId] })).status).toBe(204);
    expect((await inSecond(siteUrl(siteId), { title: 'Through the second process' })).statusCode).toBe(200);

    expect((await admin().delete(`${siteUrl(siteId)}/permissions/users/${reader.userId}`)).status).toBe(205);
    expect((await inSecond(siteUrl(siteId), { title: 'Refused now' })).statusCode).toBe(403);
    expect((await reader.api.patch(siteUrl(siteId), { title: 'Refused here too' })).status).toBe(403);
    // Removing what is not there answers 204.
    expect((await admin().delete(`${siteUrl(siteId)}/permissions/users/${reader.userId}`)).status).toBe(204);
  });

  it('takes a team grant away when it is set to null, and when the member leaves the team', async () => {
    const siteId = await newSite();
    const team = await newTeam([org.members.comment.userId]);
    const commenter = org.members.comment.api;
    expect((await admin().post(`${siteUrl(siteId)}/permissions`, { role: 'admin', teams: [team] })).status).toBe(204);
    expect((await commenter.patch(siteUrl(siteId), { title: 'By the team' })).status).toBe(200);

    expect((await admin().delete(`/v1/orgs/${org.id}/teams/${team}/members/${org.members.comment.userId}`)).status).toBeLessThan(300);
    expect((await commenter.patch(siteUrl(siteId), { title: 'Not in the team' })).status).toBe(403);

    expect(
      (await admin().put(`/v1/orgs/${org.id}/teams/${team}/members/${org.members.comment.userId}`, { role: 'member' })).status,
    ).toBeLessThan(300);
    expect((await commenter.patch(siteUrl(siteId), { title: 'Back in the team' })).status).toBe(200);
    expect((await admin().patch(`${siteUrl(siteId)}/permissions/teams/${team}`, { role: null })).status).toBe(204);
    expect((await commenter.patch(siteUrl(siteId), { title: 'Grant gone' })).status).toBe(403);
    expect((await admin().patch(`${siteUrl(siteId)}/permissions/teams/${team}`, { role: 'read' })).status).toBe(404);
  });

  it('drops the grants of a member who leaves the organization', async () => {
    const extra = await createTestOrg(t, 'Leaver home');
    const leaver = extra.members.read;
    await addMember(t, org.id, leaver.userId, 'read');
    const siteId = await newSite();
    expect((await admin().post(`${siteUrl(siteId)}/permissions`, { role: 'admin', users: [leaver.userId] })).status).toBe(204);
    expect((await admin().delete(`/v1/orgs/${org.id}/members/${leaver.userId}`)).status).toBeLessThan(300);
    await addMember(t, org.id, leaver.userId, 'read');
    expect((await leaver.api.patch(siteUrl(siteId), { title: 'Rejoined' })).status).toBe(403);
    expect((await admin().get(`${siteUrl(siteId)}/permissions/users`)).body.items).toEqual([]);
  });
});

describe('who may change grants, and for whom', () => {
  it('needs the admin role on the site; outsiders get 404', async () => {
    const siteId = await newSite();
    const body = { role: 'read', users: [org.members.read.userId] };
    for (const role of ['read', 'comment', 'edit', 'review', 'create'] as const) {
      const res = await org.members[role].api.post(`${siteUrl(siteId)}/permissions`, body);
      expect({ role, status: res.status }).toEqual({ role, status: 403 });
      expect(res.body.error.code).toBe(403);
    }
    expect((await org.members.read.api.delete(`${siteUrl(siteId)}/permissions/users/${org.members.read.userId}`)).status).toBe(403);
    expect((await other.members.admin.api.post(`${siteUrl(siteId)}/permissions`, body)).status).toBe(404);
    expect((await other.members.admin.api.get(`${siteUrl(siteId)}/permissions/users`)).status).toBe(404);
    // Any reader of the site lists its grants.
    expect((await org.members.read.api.get(`${siteUrl(siteId)}/permissions/users`)).status).toBe(200);
    expect((await org.members.guest.api.get(`${siteUrl(siteId)}/permissions/users`)).status).toBe(403);
  });

  it('refuses users who are not members and teams of another organization with a clear 400', async () => {
    const siteId = await newSite();
    const outsider = await admin().post(`${siteUrl(siteId)}/permissions`, { role: 'read', users: [other.members.read.userId] });
    expect(outsider.status).toBe(400);
    expect(outsider.body.error.message).toContain('users[0]');
    expect(outsider.body.error.message).toContain('not a member of the organization');
    const foreignTeam = (await other.members.admin.api.put(`/v1/orgs/${other.id}/teams`, { title: unique('Foreign') })).body.id;
    const team = await admin().post(`${siteUrl(siteId)}/permissions`, { role: 'read', teams: [foreignTeam] });
    expect(team.status).toBe(400);
    expect(team.body.error.message).toContain('not a team of the organization');
    // Nothing of a refused request is kept.
    const mixed = await admin().post(`${siteUrl(siteId)}/permissions`, {
      role: 'read',
      users: [org.members.read.userId, other.members.read.userId],
    });
    expect(mixed.status).toBe(400);
    expect((await admin().get(`${siteUrl(siteId)}/permissions/users`)).body.items).toEqual([]);

    for (const body of [
      { role: 'read' },
      { role: 'owner', users: [org.members.read.userId] },
      { role: 'read', users: [] },
      { users: ['x'] },
    ]) {
      const res = await admin().post(`${siteUrl(siteId)}/permissions`, body);
      expect({ body, status: res.status }).toEqual({ body, status: 400 });
      expect(res.body.error.code).toBe(400);
    }
    expect((await admin().patch(`${siteUrl(siteId)}/permissions/users/${org.members.read.userId}`, { role: 'owner' })).status).toBe(400);
    expect((await admin().patch(`${siteUrl(siteId)}/permissions/users/${org.members.read.userId}`, { role: 'edit' })).status).toBe(404);
    expect(
      (await admin().post(`/v1/orgs/${org.id}/sites/no-such-site/permissions`, { role: 'read', users: [org.members.read.userId] })).status,
    ).toBe(404);
  });
});

describe('listings', () => {
  it('pages through user and team grants, oldest first, and updates a role in place', async () => {
    const siteId = await newSite();
    const users = [org.members.read.userId, org.members.comment.userId, org.members.edit.userId];
    for (const userId of users)
      expect((await admin().post(`${siteUrl(siteId)}/permissions`, { role: 'read', users: [userId] })).status).toBe(204);
    const first = await admin().get(`${siteUrl(siteId)}/permissions/users?limit=2`);
    expect(first.status).toBe(200);
    expect(first.body.count).toBe(3);
    expect(first.body.items.map((i: any) => i.user.id)).toEqual(users.slice(0, 2));
    const rest = await admin().get(`${siteUrl(siteId)}/permissions/users?limit=2&page=${encodeURIComponent(first.body.next.page)}`);
    expect(rest.body.items.map((i: any) => i.user.id)).toEqual(users.slice(2));
    expect(rest.body.next).toBeUndefined();
    expect((await admin().get(`${siteUrl(siteId)}/permissions/users?page=not-a-cursor`)).status).toBe(400);

    expect((await admin().patch(`${siteUrl(siteId)}/permissions/users/${users[1]}`, { role: 'edit' })).status).toBe(204);
    const after = (await admin().get(`${siteUrl(siteId)}/permissions/users`)).body.items;
    expect(after.map((i: any) => [i.user.id, i.permission])).toEqual([
      [users[0], 'read'],
      [users[1], 'edit'],
      [users[2], 'read'],
    ]);

    const teams = [await newTeam([]), await newTeam([])];
    expect((await admin().post(`${siteUrl(siteId)}/permissions`, { role: 'review', teams })).status).toBe(204);
    const teamPage = await admin().get(`${siteUrl(siteId)}/permissions/teams?limit=1`);
    expect(teamPage.body.count).toBe(2);
    expect(teamPage.body.items[0].permission).toBe('review');
    const teamRest = await admin().get(`${siteUrl(siteId)}/permissions/teams?limit=1&page=${encodeURIComponent(teamPage.body.next.page)}`);
    expect(new Set([teamPage.body.items[0].team.id, teamRest.body.items[0].team.id])).toEqual(new Set(teams));
    // Null removes the grants of the given users and teams.
    expect((await admin().post(`${siteUrl(siteId)}/permissions`, { role: null, users: users.slice(0, 2), teams })).status).toBe(204);
    expect((await admin().get(`${siteUrl(siteId)}/permissions/users`)).body.items.map((i: any) => i.user.id)).toEqual(users.slice(2));
    expect((await admin().get(`${siteUrl(siteId)}/permissions/teams`)).body.count).toBe(0);
  });

  it('aggregates everyone who can access the site with their effective role and its origin', async () => {
    const siteId = await newSite();
    const team = await newTeam([org.members.guest.userId]);
    expect((await admin().post(`${siteUrl(siteId)}/permissions`, { role: 'admin', users: [org.members.read.userId] })).status).toBe(204);
    expect((await admin().post(`${siteUrl(siteId)}/permissions`, { role: 'comment', teams: [team] })).status).toBe(204);
    expect((await admin().post(`${siteUrl(siteId)}/permissions`, { role: 'read', users: [org.members.edit.userId] })).status).toBe(204);

    const all = await admin().get(`${siteUrl(siteId)}/permissions/aggregate?limit=1000&sort=name&order=asc`);
    expect(all.status).toBe(200);
    const byUser = new Map(all.body.items.map((i: any) => [i.user.id, i]));
    expect(byUser.get(org.members.read.userId)).toMatchObject({
      permission: 'admin',
      origin: { type: 'site', site: siteId, reason: 'member' },
    });
    expect(byUser.get(org.members.guest.userId)).toMatchObject({ permission: 'comment', origin: { type: 'site', reason: 'team', team } });
    expect(byUser.get(org.members.edit.userId)).toMatchObject({
      permission: 'edit',
      origin: { type: 'organization', organization: org.id },
    });
    expect(byUser.get(org.members.admin.userId)).toMatchObject({ permission: 'admin', origin: { type: 'organization' } });
    // Every member with an organization role, and the guest through their team.
    const members = (await admin().get(`/v1/orgs/${org.id}/members?limit=1000`)).body.items;
    expect(all.body.count).toBe(members.filter((m: any) => m.role !== null).length + 1);

    const admins = (await admin().get(`${siteUrl(siteId)}/permissions/aggregate?role=admin`)).body.items.map((i: any) => i.user.id);
    expect(new Set(admins)).toEqual(new Set([org.members.admin.userId, org.members.read.userId]));
    const guests = (await admin().get(`${siteUrl(siteId)}/permissions/aggregate?role=guest`)).body.items.map((i: any) => i.user.id);
    expect(guests).toEqual([org.members.guest.userId]);
    const inTeam = (await admin().get(`${siteUrl(siteId)}/permissions/aggregate?team=${team}`)).body.items.map((i: any) => i.user.id);
    expect(inTeam).toEqual([org.members.guest.userId]);
    const searched = await admin().get(`${siteUrl(siteId)}/permissions/aggregate?search=${encodeURIComponent('review user')}`);
    expect(searched.body.items.map((i: any) => i.user.id)).toEqual([org.members.review.userId]);

    const page = await admin().get(`${siteUrl(siteId)}/permissions/aggregate?limit=3&sort=name&order=asc`);
    const next = await admin().get(
      `${siteUrl(siteId)}/permissions/aggregate?limit=3&sort=name&order=asc&page=${encodeURIComponent(page.body.next.page)}`,
    );
    expect([...page.body.items, ...next.body.items].map((i: any) => i.user.id)).toEqual(
      all.body.items.slice(0, 6).map((i: any) => i.user.id),
    );
  });
});

describe("GitBook's client", () => {
  it("drives every site permission operation, each answer matching GitBook's schema", async () => {
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = t.app.server.address() as { port: number };
    const api: any = new GitBookAPI({ endpoint: `http://127.0.0.1:${port}`, authToken: org.members.admin.token });
    const siteId = await newSite();
    const team = await newTeam([org.members.comment.userId]);

    expect((await api.orgs.inviteToSite(org.id, siteId, { role: 'edit', users: [org.members.read.userId] })).status).toBe(204);
    expect((await api.orgs.inviteToSite(org.id, siteId, { role: 'read', teams: [team] })).status).toBe(204);
    expectMatchesGitBook('listUserPermissionsInSite', (await api.orgs.listUserPermissionsInSite(org.id, siteId)).data);
    expectMatchesGitBook('listTeamPermissionsInSite', (await api.orgs.listTeamPermissionsInSite(org.id, siteId)).data);
    const aggregate = (await api.orgs.listPermissionsAggregateInSite(org.id, siteId, { role: 'edit' })).data;
    expectMatchesGitBook('listPermissionsAggregateInSite', aggregate);
    expect(aggregate.items.map((i: any) => i.user.id)).toContain(org.members.read.userId);

    expect((await api.orgs.updateUserPermissionInSite(org.id, siteId, org.members.read.userId, { role: 'admin' })).status).toBe(204);
    expect((await api.orgs.updateTeamPermissionInSite(org.id, siteId, team, { role: 'comment' })).status).toBe(204);
    expect((await api.orgs.removeUserFromSite(org.id, siteId, org.members.read.userId)).status).toBe(205);
    expect((await api.orgs.removeTeamFromSite(org.id, siteId, team)).status).toBe(205);
    expect((await api.orgs.removeTeamFromSite(org.id, siteId, team)).status).toBe(204);
  });
});

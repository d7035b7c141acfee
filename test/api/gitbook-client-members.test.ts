import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { GitBookAPI } from '@gitbook/api';
import { createTestOrg, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { listenOnLoopback } from '../support/fixtures.ts';
import { expectMatchesGitBook } from '../support/gitbook-openapi.ts';

/**
 * GitBook's own client drives members, teams, team members and space and collection permissions;
 * every response is checked against the schema GitBook's OpenAPI document gives for the operation.
 */
let t: TestApp;
let org: TestOrg;
// The package's bundled type declarations do not resolve under NodeNext, so the client is typed loosely here.
let api: any;
let endpoint: string;

beforeAll(async () => {
  t = await startTestApp();
  endpoint = await listenOnLoopback(t);
  org = await createTestOrg(t, 'Client members org');
  api = new GitBookAPI({ endpoint, authToken: org.members.admin.token });
});
afterAll(() => t.close());

describe('GitBook client: organization members', () => {
  it('lists, reads, updates, pings, marks SSO and removes members', async () => {
    const list = (await api.orgs.listMembersInOrganizationById(org.id, { limit: 2, order: 'asc', sort: 'joinedAt' })).data;
    expectMatchesGitBook('listMembersInOrganizationById', list);
    expect(list.items).toHaveLength(2);
    expect(list.next?.page).toBeDefined();
    expectMatchesGitBook(
      'listMembersInOrganizationById',
      (await api.orgs.listMembersInOrganizationById(org.id, { page: list.next.page, limit: 2 })).data,
    );
    expectMatchesGitBook(
      'listMembersInOrganizationById',
      (await api.orgs.listMembersInOrganizationById(org.id, { role: 'guest', search: 'guest' })).data,
    );

    const reader = org.members.read.userId;
    expectMatchesGitBook('getMemberInOrganizationById', (await api.orgs.getMemberInOrganizationById(org.id, reader)).data);
    const updated = (await api.orgs.updateMemberInOrganizationById(org.id, reader, { role: 'comment' })).data;
    expectMatchesGitBook('updateMemberInOrganizationById', updated);
    expect(updated.role).toBe('comment');
    expectMatchesGitBook(
      'updateMemberInOrganizationById',
      (await api.orgs.updateMemberInOrganizationById(org.id, reader, { role: null })).data,
    );

    const ping = await api.orgs.updateOrganizationMemberLastSeenAt(org.id);
    expect(ping.status).toBe(200);
    expectMatchesGitBook('updateOrganizationMemberLastSeenAt', ping.data);
    const seen = (await api.orgs.listMembersInOrganizationById(org.id, { sort: 'lastSeenAt' })).data;
    expectMatchesGitBook('listMembersInOrganizationById', seen);
    expect(seen.items.map((m: { id: string }) => m.id)).toEqual([org.members.admin.userId]);

    const sso = (await api.orgs.setUserAsSsoMemberForOrganization(org.id, org.members.edit.userId)).data;
    expectMatchesGitBook('setUserAsSSOMemberForOrganization', sso);
    expect(sso.sso).toBe(true);

    const removed = await api.orgs.removeMemberFromOrganizationById(org.id, org.members.review.userId);
    expect(removed.status).toBe(204);
    expectMatchesGitBook('removeMemberFromOrganizationById', removed.data || undefined, 204);
    await expect(api.orgs.removeMemberFromOrganizationById(org.id, org.members.admin.userId)).rejects.toMatchObject({ code: 409 });
  });

  it("lists a member's spaces and teams", async () => {
    const space = (await api.orgs.createSpace(org.id, { title: 'Member space' })).data;
    await api.orgs.createSpace(org.id, { title: 'Second member space' });
    await api.spaces.inviteToSpace(space.id, { role: 'admin', users: [org.members.create.userId] });
    const spaces = (await api.orgs.listSpacesForOrganizationMember(org.id, org.members.create.userId, { limit: 1 })).data;
    expectMatchesGitBook('listSpacesForOrganizationMember', spaces);
    expect(spaces.next?.page).toBeDefined();
    const all = (await api.orgs.listSpacesForOrganizationMember(org.id, org.members.create.userId, { order: 'asc' })).data;
    expectMatchesGitBook('listSpacesForOrganizationMember', all);
    expect(all.items.find((i: { space: { id: string } }) => i.space.id === space.id).permission).toBe('admin');

    const team = (await api.orgs.createOrganizationTeam(org.id, { title: 'Member team', members: [org.members.create.userId] })).data;
    const teams = (await api.orgs.listTeamsForOrganizationMember(org.id, org.members.create.userId, { title: 'member' })).data;
    expectMatchesGitBook('listTeamsForOrganizationMember', teams);
    expect(teams.items.map((i: { team: { id: string } }) => i.team.id)).toEqual([team.id]);
  });
});

describe('GitBook client: teams', () => {
  it('creates, lists, reads, renames, fills and deletes teams', async () => {
    const created = await api.orgs.createOrganizationTeam(org.id, { title: 'Client team', members: [org.members.edit.userId] });
    expect(created.status).toBe(201);
    expectMatchesGitBook('createOrganizationTeam', created.data, 201);
    const team = created.data;
    await api.orgs.createOrganizationTeam(org.id, { title: 'Another client team' });
    const listed = (await api.orgs.listTeamsInOrganizationById(org.id, { limit: 1 })).data;
    expectMatchesGitBook('listTeamsInOrganizationById', listed);
    expect(listed.next?.page).toBeDefined();
    expectMatchesGitBook(
      'listTeamsInOrganizationById',
      (await api.orgs.listTeamsInOrganizationById(org.id, { title: 'client', owner: org.members.admin.userId })).data,
    );
    expectMatchesGitBook('getTeamInOrganizationById', (await api.orgs.getTeamInOrganizationById(org.id, team.id)).data);
    const renamed = (await api.orgs.updateTeamInOrganizationById(org.id, team.id, { title: 'Renamed team' })).data;
    expectMatchesGitBook('updateTeamInOrganizationById', renamed);
    expect(renamed.title).toBe('Renamed team');

    const bulk = await api.orgs.updateMembersInOrganizationTeam(org.id, team.id, {
      add: [org.members.read.userId, org.members.comment.userId],
      memberships: { [org.members.edit.userId]: { role: 'owner' } },
      remove: [org.members.comment.userId],
    });
    expect(bulk.status).toBe(204);
    expectMatchesGitBook('updateMembersInOrganizationTeam', bulk.data || undefined, 204);
    const added = await api.orgs.addMemberToOrganizationTeamById(org.id, team.id, org.members.guest.userId, { role: 'member' });
    expect(added.status).toBe(204);
    expectMatchesGitBook('addMemberToOrganizationTeamById', added.data || undefined, 204);
    const members = (await api.orgs.listTeamMembersInOrganizationById(org.id, team.id, { limit: 2 })).data;
    expectMatchesGitBook('listTeamMembersInOrganizationById', members);
    expect(members.count).toBe(3);
    const removed = await api.orgs.deleteMemberFromOrganizationTeamById(org.id, team.id, org.members.guest.userId);
    expect(removed.status).toBe(205);
    expectMatchesGitBook('deleteMemberFromOrganizationTeamById', removed.data || undefined, 205);

    const deleted = await api.orgs.removeTeamFromOrganizationById(org.id, team.id);
    expect(deleted.status).toBe(204);
    expectMatchesGitBook('removeTeamFromOrganizationById', deleted.data || undefined, 204);
    await expect(api.orgs.getTeamInOrganizationById(org.id, team.id)).rejects.toMatchObject({ code: 404 });
  });
});

describe('GitBook client: space and collection permissions', () => {
  it('invites, lists, updates and removes users and teams on a space', async () => {
    const space = (await api.orgs.createSpace(org.id, { title: 'Shared space' })).data;
    const team = (await api.orgs.createOrganizationTeam(org.id, { title: 'Space team' })).data;
    const invited = await api.spaces.inviteToSpace(space.id, { role: 'read', users: [org.members.read.userId], teams: [team.id] });
    expect(invited.status).toBe(204);
    expectMatchesGitBook('inviteToSpace', invited.data || undefined, 204);
    expectMatchesGitBook('listUserPermissionsInSpace', (await api.spaces.listUserPermissionsInSpace(space.id)).data);
    const teams = (await api.spaces.listTeamPermissionsInSpace(space.id)).data;
    expectMatchesGitBook('listTeamPermissionsInSpace', teams);
    expect(teams.items[0].team.spaces).toBe(1);
    expect((await api.spaces.updateUserPermissionInSpace(space.id, org.members.read.userId, { role: 'edit' })).status).toBe(204);
    expect((await api.spaces.updateTeamPermissionInSpace(space.id, team.id, { role: 'comment' })).status).toBe(204);
    const users = (await api.spaces.listUserPermissionsInSpace(space.id)).data;
    expectMatchesGitBook('listUserPermissionsInSpace', users);
    expect(users.items[0].permission).toBe('edit');
    const removedUser = await api.spaces.removeUserFromSpace(space.id, org.members.read.userId);
    expect(removedUser.status).toBe(205);
    expectMatchesGitBook('removeUserFromSpace', removedUser.data || undefined, 205);
    const removedTeam = await api.spaces.removeTeamFromSpace(space.id, team.id);
    expect(removedTeam.status).toBe(205);
    expectMatchesGitBook('removeTeamFromSpace', removedTeam.data || undefined, 205);
    expect((await api.spaces.removeTeamFromSpace(space.id, team.id)).status).toBe(204);
  });

  it('invites, lists, updates and removes users and teams on a collection', async () => {
    const collection = (await api.orgs.createCollection(org.id, { title: 'Shared collection' })).data;
    const team = (await api.orgs.createOrganizationTeam(org.id, { title: 'Collection team' })).data;
    const invited = await api.collections.inviteToCollection(collection.id, {
      role: 'comment',
      users: [org.members.guest.userId],
      teams: [team.id],
    });
    expect(invited.status).toBe(204);
    expectMatchesGitBook('inviteToCollection', invited.data || undefined, 204);
    expectMatchesGitBook('listUserPermissionsInCollection', (await api.collections.listUserPermissionsInCollection(collection.id)).data);
    expectMatchesGitBook('listTeamPermissionsInCollection', (await api.collections.listTeamPermissionsInCollection(collection.id)).data);
    expect((await api.collections.updateUserPermissionInCollection(collection.id, org.members.guest.userId, { role: 'read' })).status).toBe(
      204,
    );
    expect((await api.collections.updateTeamPermissionInCollection(collection.id, team.id, { role: 'edit' })).status).toBe(204);
    const guest: any = new GitBookAPI({ endpoint, authToken: org.members.guest.token });
    const seen = (await guest.orgs.listCollectionsInOrganizationById(org.id)).data;
    expectMatchesGitBook('listCollectionsInOrganizationById', seen);
    expect(seen.items.map((c: { id: string }) => c.id)).toEqual([collection.id]);
    expect((await api.collections.removeUserFromCollection(collection.id, org.members.guest.userId)).status).toBe(205);
    expect((await api.collections.removeTeamFromCollection(collection.id, team.id)).status).toBe(205);
    expect((await guest.orgs.listCollectionsInOrganizationById(org.id)).data.count).toBe(0);
  });
});

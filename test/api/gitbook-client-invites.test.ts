import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { GitBookAPI } from '@gitbook/api';
import { findOrCreateUser, issueToken } from '../../src/db/accounts.ts';
import { newId } from '../../src/domain/ids.ts';
import { createTestOrg, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { listenOnLoopback } from '../support/fixtures.ts';
import { expectMatchesGitBook } from '../support/gitbook-openapi.ts';

/**
 * GitBook's own client drives organization invites by email and invite links; every response is
 * checked against the schema GitBook's OpenAPI document gives for the operation.
 */
let t: TestApp;
let org: TestOrg;
// The package's bundled type declarations do not resolve under NodeNext, so the client is typed loosely here.
let api: any;
let endpoint: string;

async function newcomer() {
  const em = t.orm.em.fork();
  const email = `client-invitee-${newId(8).toLowerCase()}@example.com`;
  const user = await findOrCreateUser(em, email);
  const { token } = await issueToken(em, user.id, 'test');
  return { userId: user.id, email, api: new GitBookAPI({ endpoint, authToken: token }) as any };
}

beforeAll(async () => {
  t = await startTestApp();
  endpoint = await listenOnLoopback(t);
  org = await createTestOrg(t, 'Client invites org');
  api = new GitBookAPI({ endpoint, authToken: org.members.admin.token });
});
afterAll(() => t.close());

describe('GitBook client: organization invites', () => {
  it('invites users by email', async () => {
    const invitee = await newcomer();
    const res = await api.orgs.inviteUsersToOrganization(org.id, {
      emails: [invitee.email, { email: `nobody-${newId(6).toLowerCase()}@example.com`, role: 'edit' }],
      role: 'comment',
    });
    expectMatchesGitBook('inviteUsersToOrganization', res.data);
    // The invitee is not a member until they accept: the answer names members only.
    expect(res.data).toEqual({ users: [], invited: 0 });
  });

  it('creates, lists, reads, changes, joins with and deletes invite links', async () => {
    const created = await api.orgs.createOrganizationInvite(org.id, { role: 'review' });
    expect(created.status).toBe(201);
    expectMatchesGitBook('createOrganizationInvite', created.data, 201);
    const id = created.data.id;
    await api.orgs.createOrganizationInvite(org.id, { role: null });

    const list = (await api.orgs.listOrganizationInviteLinks(org.id, { limit: 1 })).data;
    expectMatchesGitBook('listOrganizationInviteLinks', list);
    expect(list.next?.page).toBeDefined();
    expectMatchesGitBook(
      'listOrganizationInviteLinks',
      (await api.orgs.listOrganizationInviteLinks(org.id, { page: list.next.page })).data,
    );

    const got = (await api.orgs.getOrganizationInviteLink(org.id, id)).data;
    expectMatchesGitBook('getOrganizationInviteLink', got);
    expect(got).toMatchObject({ object: 'invite', id, role: 'review' });

    const updated = (await api.orgs.updateOrganizationInviteById(org.id, id, { role: 'edit' })).data;
    expectMatchesGitBook('updateOrganizationInviteById', updated);
    expect(updated.role).toBe('edit');

    const invitee = await newcomer();
    const joined = await invitee.api.orgs.joinOrganizationWithInvite(org.id, id);
    expectMatchesGitBook('joinOrganizationWithInvite', joined.data);
    expect((await api.orgs.getMemberInOrganizationById(org.id, invitee.userId)).data.role).toBe('edit');

    const deleted = await api.orgs.deleteOrganizationInviteById(org.id, id);
    expect(deleted.status).toBe(205);
    expectMatchesGitBook('deleteOrganizationInviteById', deleted.data || undefined, 205);
    const again = await api.orgs.deleteOrganizationInviteById(org.id, id);
    expect(again.status).toBe(204);
    expectMatchesGitBook('deleteOrganizationInviteById', again.data || undefined, 204);
  });

  it('creates, reads, changes and joins with links to a space and to a collection', async () => {
    const space = (await api.orgs.createSpace(org.id, { title: 'Shared space' })).data;
    const created = await api.orgs.createOrganizationInvite(org.id, { level: 'comment', space: space.id });
    expect(created.status).toBe(201);
    expectMatchesGitBook('createOrganizationInvite', created.data, 201);
    expect(created.data).toMatchObject({ level: 'comment', space: { id: space.id } });
    const got = (await api.orgs.getOrganizationInviteLink(org.id, created.data.id)).data;
    expectMatchesGitBook('getOrganizationInviteLink', got);
    const updated = (await api.orgs.updateOrganizationInviteById(org.id, created.data.id, { level: 'edit' })).data;
    expectMatchesGitBook('updateOrganizationInviteById', updated);
    expect(updated.level).toBe('edit');
    // The list holds every link, so admins find each one: a link to a space shows as GitBook's
    // InviteLinkToOrganization (role null: it makes a guest) with its level and space.
    const list = (await api.orgs.listOrganizationInviteLinks(org.id, { limit: 100 })).data;
    expectMatchesGitBook('listOrganizationInviteLinks', list);
    expect(list.items.find((l: { id: string }) => l.id === created.data.id)).toMatchObject({
      role: null,
      level: 'edit',
      space: { id: space.id },
    });

    const invitee = await newcomer();
    expectMatchesGitBook('joinOrganizationWithInvite', (await invitee.api.orgs.joinOrganizationWithInvite(org.id, created.data.id)).data);
    expect((await api.orgs.getMemberInOrganizationById(org.id, invitee.userId)).data.role).toBeNull();
    expect((await invitee.api.spaces.getSpaceById(space.id)).data.id).toBe(space.id);

    const collection = (await api.orgs.createCollection(org.id, { title: 'Shared collection' })).data;
    const toCollection = await api.orgs.createOrganizationInvite(org.id, { level: 'read', collection: collection.id });
    expectMatchesGitBook('createOrganizationInvite', toCollection.data, 201);
    expect(toCollection.data.collection.id).toBe(collection.id);
  });
});

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { GitBookAPI, GitBookAPIError } from '@gitbook/api';
import { addMember, createTestOrg, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { listenOnLoopback } from '../support/fixtures.ts';
import { expectMatchesGitBook } from '../support/gitbook-openapi.ts';

/**
 * GitBook's own client drives the service over HTTP; every response body is checked against the
 * schema GitBook's OpenAPI document gives for that operation.
 */
let t: TestApp;
let org: TestOrg;
// The package's bundled type declarations do not resolve under NodeNext, so the client is typed loosely here.
let api: any;

beforeAll(async () => {
  t = await startTestApp();
  const serverUrl = await listenOnLoopback(t);
  org = await createTestOrg(t, 'Client org');
  api = new GitBookAPI({ endpoint: serverUrl, authToken: org.members.admin.token });
});
afterAll(() => t.close());

describe('GitBook client against this service', () => {
  it('reads the user and organizations', async () => {
    expectMatchesGitBook('getAuthenticatedUser', (await api.user.getAuthenticatedUser()).data);
    expectMatchesGitBook(
      'listOrganizationsForAuthenticatedUser',
      (await api.orgs.listOrganizationsForAuthenticatedUser({ limit: 1 })).data,
    );
    const orgBody = (await api.orgs.getOrganizationById(org.id)).data;
    expectMatchesGitBook('getOrganizationById', orgBody);
    expect(orgBody.id).toBe(org.id);
  });

  it('creates, lists, moves, deletes and restores collections and spaces', async () => {
    const collection = (await api.orgs.createCollection(org.id, { title: 'Client collection' })).data;
    expectMatchesGitBook('createCollection', collection, 201);
    const child = (await api.orgs.createCollection(org.id, { title: 'Child', parent: collection.id })).data;
    expectMatchesGitBook('createCollection', child, 201);
    expectMatchesGitBook('getCollectionById', (await api.collections.getCollectionById(collection.id)).data);
    expectMatchesGitBook(
      'updateCollectionById',
      (await api.collections.updateCollectionById(collection.id, { description: 'Described', defaultLevel: 'read' })).data,
    );
    expectMatchesGitBook(
      'listCollectionsInOrganizationById',
      (await api.orgs.listCollectionsInOrganizationById(org.id, { limit: 1 })).data,
    );

    const space = (await api.orgs.createSpace(org.id, { title: 'Client space', emoji: '📙', parent: collection.id })).data;
    expectMatchesGitBook('createSpace', space, 201);
    const second = (await api.orgs.createSpace(org.id, { title: 'Second' })).data;
    expectMatchesGitBook('getSpaceById', (await api.spaces.getSpaceById(space.id)).data);
    expectMatchesGitBook('updateSpaceById', (await api.spaces.updateSpaceById(space.id, { title: 'Renamed', emoji: '📕' })).data);
    const listed = (await api.orgs.listSpacesInOrganizationById(org.id, { limit: 1 })).data;
    expectMatchesGitBook('listSpacesInOrganizationById', listed);
    expect(listed.next?.page).toBeDefined();
    expectMatchesGitBook(
      'listSpacesInOrganizationById',
      (await api.orgs.listSpacesInOrganizationById(org.id, { page: listed.next!.page })).data,
    );
    expectMatchesGitBook('listSpacesInCollectionById', (await api.collections.listSpacesInCollectionById(collection.id)).data);

    const moved = (
      await api.spaces.moveSpace(second.id, { parent: collection.id, position: { before: { type: 'space', space: space.id } } })
    ).data;
    expectMatchesGitBook('moveSpace', moved);
    const inCollection = (await api.collections.listSpacesInCollectionById(collection.id)).data.items.map((s: { id: string }) => s.id);
    expect(inCollection).toEqual([second.id, space.id]);
    expectMatchesGitBook('moveCollection', (await api.collections.moveCollection(child.id, { parent: null })).data);
    expectMatchesGitBook('duplicateSpace', (await api.spaces.duplicateSpace(space.id)).data, 201);

    const deleted = await api.spaces.deleteSpaceById(space.id);
    expect(deleted.status).toBe(205);
    await expect(api.spaces.getSpaceById(space.id)).rejects.toMatchObject({ code: 404 });
    const restored = (await api.spaces.restoreSpace(space.id)).data;
    expectMatchesGitBook('restoreSpace', restored);
    expect(restored.id).toBe(space.id);

    const target = await createTestOrg(t, 'Client target');
    await addMember(t, target.id, org.members.admin.userId, 'admin');
    const transferred = (await api.collections.transferCollection(collection.id, { organization: target.id })).data;
    expectMatchesGitBook('transferCollection', transferred);
    expect(transferred.organization).toBe(target.id);
    expect((await api.collections.deleteCollectionById(child.id)).status).toBe(205);
  });

  it('surfaces errors the way the client expects', async () => {
    let error: unknown;
    try {
      await api.orgs.createSpace(org.id, { title: 'x'.repeat(60) });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(GitBookAPIError);
    expect((error as GitBookAPIError).code).toBe(400);
    expect((error as GitBookAPIError).errorMessage).toMatch(/title/);
    const reader: any = new GitBookAPI({ endpoint: api.endpoint, authToken: org.members.read.token });
    await expect(reader.orgs.createCollection(org.id, { title: 'nope' })).rejects.toMatchObject({ code: 403 });
  });
});

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { GitBookAPI } from '@gitbook/api';
import { client, createTestOrg, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { edit, expect400, listenOnLoopback, merge, newChangeRequest, newSpace, PNG_2X3 } from '../support/fixtures.ts';
import { expectMatchesGitBook, expectMatchesGitBookSchema } from '../support/gitbook-openapi.ts';

/**
 * The semantic changes of a revision against its first parent, and of a change request's content
 * against its base: pages created, edited, moved and deleted, files created and deleted.
 */
let t: TestApp;
let org: TestOrg;
let other: TestOrg;
let spaceId: string;
let otherSpaceId: string;
let first: string;
let second: string;
let guideId: string;
let installId: string;
let crId: string;
// The package's bundled type declarations do not resolve under NodeNext, so the client is typed loosely here.
let gitbook: any;

const admin = () => org.members.admin.api;
const changesOf = (revisionId: string, query = '') => admin().get(`/v1/spaces/${spaceId}/revisions/${revisionId}/changes${query}`);

beforeAll(async () => {
  t = await startTestApp();
  org = await createTestOrg(t, 'Revision changes org');
  other = await createTestOrg(t, 'Revision changes other org');
  spaceId = (await newSpace(admin(), org.id, { title: 'Changing docs' })).id;
  otherSpaceId = (await newSpace(other.members.admin.api, other.id, { title: 'Elsewhere' })).id;

  const cr1 = await newChangeRequest(admin(), spaceId, 'Write');
  const written = await edit(admin(), spaceId, cr1.id, [
    { operation: 'insert_files', files: [{ name: 'dot.png', contentType: 'image/png', base64: PNG_2X3 }] },
    { operation: 'insert_page', title: 'Guide', document: { markdown: '# Guide\n' } },
  ]);
  guideId = written.changes[0].page.id;
  installId = (
    await edit(admin(), spaceId, cr1.id, [
      { operation: 'insert_page', into: guideId, title: 'Install', document: { markdown: 'Run it.\n' } },
    ])
  ).changes[0].page.id;
  await merge(admin(), spaceId, cr1.id);
  first = (await admin().get(`/v1/spaces/${spaceId}`)).body.revision;

  const cr2 = await newChangeRequest(admin(), spaceId, 'Rework');
  await edit(admin(), spaceId, cr2.id, [
    { operation: 'update_page', page: installId, title: 'Setup', into: null },
    { operation: 'insert_page', title: 'FAQ', document: { markdown: 'Questions.\n' } },
    { operation: 'delete_page', page: guideId },
  ]);
  await merge(admin(), spaceId, cr2.id);
  second = (await admin().get(`/v1/spaces/${spaceId}`)).body.revision;

  const cr3 = await newChangeRequest(admin(), spaceId, 'Draft more');
  await edit(admin(), spaceId, cr3.id, [{ operation: 'insert_page', title: 'Changelog', document: { markdown: 'v1\n' } }]);
  crId = cr3.id;

  gitbook = new GitBookAPI({ endpoint: await listenOnLoopback(t), authToken: org.members.read.token });
});

afterAll(async () => {
  await t.close();
});

describe('GET /v1/spaces/:spaceId/revisions/:revisionId/changes', () => {
  it('lists the pages and files the first merge created', async () => {
    const res = await changesOf(first);
    expect(res.status).toBe(200);
    expect(res.body.changes).toEqual([
      { type: 'page_created', page: { id: guideId, type: 'document', title: 'Guide', path: 'guide' } },
      { type: 'page_created', page: { id: installId, type: 'document', title: 'Install', path: 'guide/install' } },
      {
        type: 'file_created',
        file: { id: expect.any(String), name: 'dot.png', contentType: 'image/png', downloadURL: expect.stringMatching(/\/download$/) },
      },
    ]);
    expect(res.body.more).toBeUndefined();
    expect(res.body.mergedFrom).toMatchObject({ subject: 'Write' });
  });

  it('reports a move with its parents, an edit with its attributes, a creation and a deletion', async () => {
    const res = await changesOf(second);
    expect(res.status).toBe(200);
    expect(res.body.changes).toEqual([
      {
        type: 'page_moved',
        page: { id: installId, type: 'document', title: 'Setup', path: 'install' },
        parent: { before: { id: guideId, type: 'document', title: 'Guide', path: 'guide' } },
      },
      {
        type: 'page_edited',
        page: { id: installId, type: 'document', title: 'Setup', path: 'install' },
        attributes: { title: { before: 'Install', after: 'Setup' } },
      },
      { type: 'page_created', page: expect.objectContaining({ type: 'document', title: 'FAQ', path: 'faq' }) },
      { type: 'page_deleted', page: { id: guideId, type: 'document', title: 'Guide', path: 'guide' } },
    ]);
  });

  it('answers the first `limit` changes and counts the others in `more`', async () => {
    const res = await changesOf(second, '?limit=1');
    expect(res.status).toBe(200);
    expect(res.body.changes).toHaveLength(1);
    expect(res.body.more).toBe(3);
  });

  it('refuses a bad limit with 400', async () => {
    expect400(await changesOf(second, '?limit=0'), /limit/);
    expect400(await changesOf(second, '?limit=many'), /limit/);
  });

  it('asks for a token (401)', async () => {
    const res = await client(t.app).get(`/v1/spaces/${spaceId}/revisions/${second}/changes`);
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe(401);
  });

  it('hides the space from another organization and from a guest without a grant (404)', async () => {
    expect((await other.members.admin.api.get(`/v1/spaces/${spaceId}/revisions/${second}/changes`)).status).toBe(404);
    expect((await org.members.guest.api.get(`/v1/spaces/${spaceId}/revisions/${second}/changes`)).status).toBe(404);
  });

  it("does not read another space's revision through this space (404)", async () => {
    const foreign = (await other.members.admin.api.get(`/v1/spaces/${otherSpaceId}`)).body.revision;
    expect((await other.members.admin.api.get(`/v1/spaces/${otherSpaceId}/revisions/${second}/changes`)).status).toBe(404);
    expect((await changesOf(foreign)).status).toBe(404);
  });

  it("answers GitBook's client with GitBook's shape", async () => {
    const res = await gitbook.spaces.getRevisionSemanticChanges(spaceId, second, { limit: 10 });
    // An edit's attributes are GitBook's of its page's type (the erratum of page_edited's `oneOf` is
    // in test/support/gitbook-exceptions.ts).
    const edits = res.data.changes.filter((c: { type: string }) => c.type === 'page_edited');
    expect(edits).toHaveLength(1);
    for (const edited of edits) expectMatchesGitBookSchema('RevisionPageDocumentChangeAttributes', edited.attributes);
    expectMatchesGitBook('getRevisionSemanticChanges', res.data);
    expectMatchesGitBook('getRevisionSemanticChanges', (await gitbook.spaces.getRevisionSemanticChanges(spaceId, first)).data);
  });
});

describe('GET /v1/spaces/:spaceId/change-requests/:changeRequestId/changes', () => {
  it('lists what the change request changes against its base, for any reader of the space', async () => {
    const res = await org.members.read.api.get(`/v1/spaces/${spaceId}/change-requests/${crId}/changes`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      changes: [{ type: 'page_created', page: expect.objectContaining({ type: 'document', title: 'Changelog', path: 'changelog' }) }],
    });
  });

  it('refuses a bad limit (400), no token (401), another organization and an unknown change request (404)', async () => {
    expect400(await admin().get(`/v1/spaces/${spaceId}/change-requests/${crId}/changes?limit=-1`), /limit/);
    expect((await client(t.app).get(`/v1/spaces/${spaceId}/change-requests/${crId}/changes`)).status).toBe(401);
    expect((await other.members.admin.api.get(`/v1/spaces/${spaceId}/change-requests/${crId}/changes`)).status).toBe(404);
    expect((await admin().get(`/v1/spaces/${spaceId}/change-requests/nope/changes`)).status).toBe(404);
  });

  it("answers GitBook's client with GitBook's shape", async () => {
    const res = await gitbook.spaces.getChangeRequestChanges(spaceId, crId, { limit: 5 });
    expectMatchesGitBook('getChangeRequestChanges', res.data);
  });
});

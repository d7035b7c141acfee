import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestOrg, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { contentPages, edit, newChangeRequest, newSpace } from '../support/fixtures.ts';
import { startImportFixtures, type ImportFixtures } from '../support/import-fixtures.ts';

/**
 * The contributors of a change request count an edit for every path that writes a revision into
 * it: content edits, an update from the space, and a content import into it (the Git Sync import
 * that opens a conflict change request is checked in git-sync.test.ts).
 */
let t: TestApp;
let org: TestOrg;
let fx: ImportFixtures;

beforeAll(async () => {
  t = await startTestApp();
  org = await createTestOrg(t, 'Contributors org');
  fx = await startImportFixtures();
  fx.routes.set('/docs/notes.md', { type: 'text/markdown', body: '# Notes\n\nImported into a change request.\n' });
});
afterAll(async () => {
  await fx?.close();
  await t?.close();
});

const as = (role: 'admin' | 'create' | 'review' | 'edit') => org.members[role].api;

async function edits(spaceId: string, crId: string): Promise<Record<string, number>> {
  const res = await as('review').get(`/v1/spaces/${spaceId}/change-requests/${crId}/contributors`);
  expect(res.status).toBe(200);
  const out: Record<string, number> = {};
  for (const c of res.body.items as { user: { id: string }; actionType: string; count: number }[])
    if (c.actionType === 'edit') out[c.user.id] = c.count;
  return out;
}

describe('contributors from every edit path', () => {
  it('counts an update from the space as an edit by whoever asked for it', async () => {
    const space = await newSpace(as('admin'), org.id);
    const cr = await newChangeRequest(as('edit'), space.id, 'Behind');
    // The space moves on through another change request, merged.
    const other = await newChangeRequest(as('admin'), space.id, 'Ahead');
    const root = (await contentPages(as('admin'), space.id))[0];
    await edit(as('admin'), space.id, other.id, [{ operation: 'insert_page', title: 'New in space', document: { markdown: 'Hi\n' } }]);
    const merged = await as('admin').post(`/v1/spaces/${space.id}/change-requests/${other.id}/merge`);
    expect(merged.body.result).toBe('merge');
    await edit(as('edit'), space.id, cr.id, [{ operation: 'update_page', page: root.id, document: { markdown: 'Mine\n' } }]);

    const updated = await as('create').post(`/v1/spaces/${space.id}/change-requests/${cr.id}/update`);
    expect(updated.status).toBe(200);
    expect(updated.body.result).toBe('update');
    expect(await edits(space.id, cr.id)).toEqual({ [org.members.edit.userId]: 2, [org.members.create.userId]: 1 });
    // Nothing new to pull: no revision, no edit.
    expect((await as('create').post(`/v1/spaces/${space.id}/change-requests/${cr.id}/update`)).status).toBe(200);
    expect(await edits(space.id, cr.id)).toEqual({ [org.members.edit.userId]: 2, [org.members.create.userId]: 1 });
  });

  it('counts a content import into the change request as an edit by whoever imported', async () => {
    const space = await newSpace(as('admin'), org.id);
    const cr = await newChangeRequest(as('edit'), space.id, 'Imported');
    const res = await as('admin').post(`/v1/spaces/${space.id}/change-requests/${cr.id}/content/import`, {
      source: 'markdown',
      url: `${fx.base}/docs/notes.md`,
    });
    expect(res.status).toBe(201);
    expect(await edits(space.id, cr.id)).toEqual({ [org.members.edit.userId]: 1, [org.members.admin.userId]: 1 });
    // An import into the space's own content is no edit of the change request.
    expect(
      (await as('admin').post(`/v1/spaces/${space.id}/content/import`, { source: 'markdown', url: `${fx.base}/docs/notes.md` })).status,
    ).toBe(201);
    expect(await edits(space.id, cr.id)).toEqual({ [org.members.edit.userId]: 1, [org.members.admin.userId]: 1 });
  });
});

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestOrg, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { contentPages, newChangeRequest, newSpace, postChanges, searchCaughtUp } from '../support/fixtures.ts';

let t: TestApp;
let org: TestOrg;
let other: TestOrg;

beforeAll(async () => {
  t = await startTestApp();
  org = await createTestOrg(t, 'Content org');
  other = await createTestOrg(t, 'Elsewhere');
});
afterAll(() => t.close());

const admin = () => org.members.admin.api;

describe('space content', () => {
  it('starts a new space with one empty page', async () => {
    const s = await newSpace(admin(), org.id);
    const tree = await contentPages(admin(), s.id);
    expect(tree).toHaveLength(1);
    expect(tree[0]).toMatchObject({ title: 'Untitled', slug: 'untitled', path: 'untitled', type: 'document', markdown: '', pages: [] });
    const revision = await admin().get(`/v1/spaces/${s.id}/content`);
    expect(revision.body).toMatchObject({ object: 'revision', id: s.revision, type: 'edits', parents: [], files: [] });
    const page = await admin().get(`/v1/spaces/${s.id}/content/page/${tree[0].id}?format=markdown`);
    expect(page.status).toBe(200);
    expect(page.body.id).toBe(tree[0].id);
    expect((await admin().get(`/v1/spaces/${s.id}/content/page/nope`)).status).toBe(404);
    expect((await other.members.admin.api.get(`/v1/spaces/${s.id}/content`)).status).toBe(404);
  });
});

describe('change requests', () => {
  it('numbers change requests per space without gaps under concurrent creation', async () => {
    const s = await newSpace(admin(), org.id);
    const created = await Promise.all(Array.from({ length: 8 }, () => admin().post(`/v1/spaces/${s.id}/change-requests`, {})));
    expect(created.map((r) => r.status)).toEqual(Array(8).fill(201));
    expect(created.map((r) => r.body.number).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    const space = await admin().get(`/v1/spaces/${s.id}`);
    expect(space.body).toMatchObject({ changeRequests: 8, changeRequestsOpen: 8, changeRequestsDraft: 0 });
    const byNumber = await admin().get(`/v1/spaces/${s.id}/change-requests/3`);
    expect(byNumber.body.number).toBe(3);
    await admin().patch(`/v1/spaces/${s.id}/change-requests/2`, { status: 'draft' });
    await admin().patch(`/v1/spaces/${s.id}/change-requests/3`, { status: 'archived' });
    expect((await admin().get(`/v1/spaces/${s.id}`)).body).toMatchObject({
      changeRequests: 8,
      changeRequestsOpen: 6,
      changeRequestsDraft: 1,
    });
  });

  it('counts open comments on the space content', async () => {
    const s = await newSpace(admin(), org.id);
    const root = (await contentPages(admin(), s.id))[0];
    const posted = await admin().post(`/v1/spaces/${s.id}/comments`, { page: root.id, body: { markdown: 'Looks good' } });
    expect(posted.status).toBe(200);
    expect((await admin().get(`/v1/spaces/${s.id}`)).body.comments).toBe(1);
    const listed = await admin().get(`/v1/orgs/${org.id}/spaces?limit=1000`);
    expect(listed.body.items.find((x: { id: string }) => x.id === s.id).comments).toBe(1);
    await admin().put(`/v1/spaces/${s.id}/comments/${posted.body.id}`, { resolved: true });
    expect((await admin().get(`/v1/spaces/${s.id}`)).body.comments).toBe(0);
  });

  it('applies a batch atomically and merges it into the space', async () => {
    const s = await newSpace(admin(), org.id);
    const cr = await newChangeRequest(admin(), s.id);
    const root = (await contentPages(admin(), s.id))[0];
    const res = await postChanges(admin(), s.id, cr.id, [
      { operation: 'insert_page', ref: 'guide', title: 'Guide', document: { markdown: '# Guide\n\nHello world\n' } },
      { operation: 'insert_page', into: 'guide', title: 'Install', document: { markdown: 'Run the installer.\n' } },
      { operation: 'update_page', page: root.id, title: 'Welcome', document: { markdown: 'Welcome text\n' } },
    ]);
    expect(res.status).toBe(200);
    expect(res.body.changes.map((c: { object: string }) => c.object)).toEqual(['created_page', 'created_page', 'updated_page']);
    const inCr = await contentPages(admin(), s.id, cr.id);
    expect(inCr.map((p) => p.title)).toEqual(['Welcome', 'Guide']);
    expect(inCr[1].pages[0]).toMatchObject({ title: 'Install', path: 'guide/install' });
    expect((await contentPages(admin(), s.id)).map((p) => p.title)).toEqual(['Untitled']);

    const bad = await postChanges(admin(), s.id, cr.id, [
      { operation: 'insert_page', title: 'Fine', document: { markdown: 'x' } },
      { operation: 'delete_page', page: 'missing' },
    ]);
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/changes\[1\]/);
    expect((await contentPages(admin(), s.id, cr.id)).map((p) => p.title)).toEqual(['Welcome', 'Guide']);

    const merged = await admin().post(`/v1/spaces/${s.id}/change-requests/${cr.id}/merge`);
    expect(merged.status).toBe(200);
    expect(merged.body.result).toBe('merge');
    const space = await admin().get(`/v1/spaces/${s.id}`);
    expect(space.body.revision).toBe(merged.body.revision);
    expect((await contentPages(admin(), s.id)).map((p) => p.title)).toEqual(['Welcome', 'Guide']);
    const after = await admin().get(`/v1/spaces/${s.id}/change-requests/${cr.id}`);
    expect(after.body).toMatchObject({
      status: 'merged',
      revisionMerged: merged.body.revision,
      mergedBy: { id: org.members.admin.userId },
    });
    const again = await admin().post(`/v1/spaces/${s.id}/change-requests/${cr.id}/merge`);
    expect(again.body).toEqual(merged.body);
    const revision = await admin().get(`/v1/spaces/${s.id}/content`);
    expect(revision.body.parents).toEqual([s.revision, expect.any(String)]);
    expect(revision.body.type).toBe('merge');
    expect((await postChanges(admin(), s.id, cr.id, [{ operation: 'delete_page', page: root.id }])).status).toBe(409);

    const copy = await admin().post(`/v1/spaces/${s.id}/duplicate`);
    expect(copy.status).toBe(201);
    const copied = await contentPages(admin(), copy.body.id);
    expect(copied.map((p) => p.title)).toEqual(['Welcome', 'Guide']);
    expect(copied[1].pages[0]).toMatchObject({ title: 'Install', markdown: 'Run the installer.\n' });
    await searchCaughtUp(t, copy.body.id);
    const found = await admin().get(`/v1/spaces/${copy.body.id}/search?query=installer`);
    expect(found.body.items.map((i: { title: string }) => i.title)).toEqual(['Install']);
  });

  it('merges edits to different lines of one page, and reports conflicts on the same line', async () => {
    const s = await newSpace(admin(), org.id);
    const setup = await newChangeRequest(admin(), s.id);
    const root = (await contentPages(admin(), s.id))[0];
    await postChanges(admin(), s.id, setup.id, [
      { operation: 'update_page', page: root.id, document: { markdown: 'one\ntwo\nthree\nfour\nfive\n' } },
    ]);
    await admin().post(`/v1/spaces/${s.id}/change-requests/${setup.id}/merge`);

    const a = await newChangeRequest(admin(), s.id);
    const b = await newChangeRequest(admin(), s.id);
    const c = await newChangeRequest(admin(), s.id);
    await postChanges(admin(), s.id, a.id, [
      { operation: 'update_page', page: root.id, document: { markdown: 'ONE\ntwo\nthree\nfour\nfive\n' } },
    ]);
    await postChanges(admin(), s.id, b.id, [
      { operation: 'update_page', page: root.id, document: { markdown: 'one\ntwo\nthree\nfour\nFIVE\n' } },
    ]);
    await postChanges(admin(), s.id, c.id, [
      { operation: 'update_page', page: root.id, document: { markdown: 'uno\ntwo\nthree\nfour\nfive\n' } },
    ]);
    expect((await admin().post(`/v1/spaces/${s.id}/change-requests/${a.id}/merge`)).body.result).toBe('merge');
    expect((await admin().get(`/v1/spaces/${s.id}/change-requests/${b.id}`)).body.outdated).toBe(true);
    expect((await admin().post(`/v1/spaces/${s.id}/change-requests/${b.id}/merge`)).body.result).toBe('merge');
    const page = await admin().get(`/v1/spaces/${s.id}/content/page/${root.id}`);
    expect(page.body.markdown).toBe('ONE\ntwo\nthree\nfour\nFIVE\n');

    const before = (await admin().get(`/v1/spaces/${s.id}`)).body.revision;
    const conflicted = await admin().post(`/v1/spaces/${s.id}/change-requests/${c.id}/merge`);
    expect(conflicted.body.result).toBe('conflicts');
    expect((await admin().get(`/v1/spaces/${s.id}`)).body.revision).toBe(before);
    const cr = await admin().get(`/v1/spaces/${s.id}/change-requests/${c.id}`);
    expect(cr.body.status).toBe('open');
    expect(cr.body.conflicts[0]).toMatchObject({ pageId: root.id, kind: 'content' });
  });

  it('updates a change request from the space, then merges cleanly', async () => {
    const s = await newSpace(admin(), org.id);
    const root = (await contentPages(admin(), s.id))[0];
    const main = await newChangeRequest(admin(), s.id);
    const mine = await newChangeRequest(admin(), s.id);
    await postChanges(admin(), s.id, main.id, [{ operation: 'insert_page', title: 'From main', document: { markdown: 'main\n' } }]);
    await postChanges(admin(), s.id, mine.id, [{ operation: 'update_page', page: root.id, title: 'Renamed in CR' }]);
    await admin().post(`/v1/spaces/${s.id}/change-requests/${main.id}/merge`);
    const spaceRevision = (await admin().get(`/v1/spaces/${s.id}`)).body.revision;
    const updated = await admin().post(`/v1/spaces/${s.id}/change-requests/${mine.id}/update`);
    expect(updated.status).toBe(200);
    expect(updated.body.result).toBe('update');
    const cr = (await admin().get(`/v1/spaces/${s.id}/change-requests/${mine.id}`)).body;
    expect(cr).toMatchObject({ revisionMergedAncestor: spaceRevision, outdated: false, revision: updated.body.revision });
    expect((await contentPages(admin(), s.id, mine.id)).map((p) => p.title)).toEqual(['Renamed in CR', 'From main']);
    expect((await admin().post(`/v1/spaces/${s.id}/change-requests/${mine.id}/merge`)).body.result).toBe('merge');
    expect((await contentPages(admin(), s.id)).map((p) => p.title)).toEqual(['Renamed in CR', 'From main']);
  });

  it('keeps concurrent merges into one space from losing either change', async () => {
    const s = await newSpace(admin(), org.id);
    const crs = [];
    for (let i = 0; i < 4; i++) {
      const cr = await newChangeRequest(admin(), s.id);
      await postChanges(admin(), s.id, cr.id, [{ operation: 'insert_page', title: `Page ${i}`, document: { markdown: `text ${i}\n` } }]);
      crs.push(cr);
    }
    const results = await Promise.all(crs.map((cr) => admin().post(`/v1/spaces/${s.id}/change-requests/${cr.id}/merge`)));
    expect(results.map((r) => r.body.result)).toEqual(['merge', 'merge', 'merge', 'merge']);
    expect((await contentPages(admin(), s.id)).map((p) => p.title).sort()).toEqual(['Page 0', 'Page 1', 'Page 2', 'Page 3', 'Untitled']);
  });

  it('enforces roles, status and the locked edit mode', async () => {
    const s = await newSpace(admin(), org.id);
    expect((await org.members.comment.api.post(`/v1/spaces/${s.id}/change-requests`, {})).status).toBe(403);
    const cr = await newChangeRequest(org.members.edit.api, s.id);
    expect((await org.members.edit.api.post(`/v1/spaces/${s.id}/change-requests/${cr.id}/merge`)).status).toBe(403);
    expect((await postChanges(org.members.read.api, s.id, cr.id, [{ operation: 'insert_page', title: 'x', document: {} }])).status).toBe(
      403,
    );
    expect((await admin().patch(`/v1/spaces/${s.id}/change-requests/${cr.id}`, { status: 'merged' })).status).toBe(400);
    expect((await admin().patch(`/v1/spaces/${s.id}/change-requests/${cr.id}`, { status: 'archived' })).body.status).toBe('archived');
    expect((await admin().post(`/v1/spaces/${s.id}/change-requests/${cr.id}/merge`)).status).toBe(409);
    expect((await admin().patch(`/v1/spaces/${s.id}/change-requests/${cr.id}`, { status: 'draft', subject: 'Back' })).body).toMatchObject({
      status: 'draft',
      subject: 'Back',
    });
    await admin().patch(`/v1/spaces/${s.id}`, { editMode: 'locked' });
    const locked = await postChanges(admin(), s.id, cr.id, [{ operation: 'insert_page', title: 'x', document: {} }]);
    expect(locked.status).toBe(403);
    expect(locked.body.error.message).toMatch(/locked/);
    expect((await admin().post(`/v1/spaces/${s.id}/change-requests/${cr.id}/merge`)).status).toBe(403);
    const list = await admin().get(`/v1/spaces/${s.id}/change-requests?status=draft`);
    expect(list.body.items.map((c: { id: string }) => c.id)).toEqual([cr.id]);
    expect((await admin().get(`/v1/spaces/${s.id}/change-requests`)).body.count).toBe(0);
    expect((await other.members.admin.api.get(`/v1/spaces/${s.id}/change-requests`)).status).toBe(404);
  });

  it('stores inserted files once and serves them', async () => {
    const s = await newSpace(admin(), org.id);
    const cr = await newChangeRequest(admin(), s.id);
    const png = Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAIAAAADCAYAAAC56t6BAAAAEklEQVR4nGP8z8DwnwEKGJFZAFApAwHxtIzbAAAAAElFTkSuQmCC',
      'base64',
    );
    const res = await postChanges(admin(), s.id, cr.id, [
      { operation: 'insert_files', files: [{ name: 'dot.png', contentType: 'image/png', base64: png.toString('base64') }] },
    ]);
    expect(res.status).toBe(200);
    const file = res.body.insertedFiles[0];
    expect(file).toMatchObject({ name: 'dot.png', contentType: 'image/png', size: png.length, dimensions: { width: 2, height: 3 } });
    const listed = await admin().get(`/v1/spaces/${s.id}/change-requests/${cr.id}/content/files`);
    expect(listed.body.items.map((f: { id: string }) => f.id)).toEqual([file.id]);
    const download = await t.app.inject({
      url: new URL(file.downloadURL).pathname,
      headers: { authorization: `Bearer ${org.members.read.token}` },
    });
    expect(download.statusCode).toBe(200);
    expect(Buffer.compare(download.rawPayload, png)).toBe(0);
    const missingType = await postChanges(admin(), s.id, cr.id, [
      { operation: 'insert_files', files: [{ name: 'x.bin', base64: 'AAAA' }] },
    ]);
    expect(missingType.status).toBe(400);
    const privateUrl = await postChanges(admin(), s.id, cr.id, [
      { operation: 'insert_files', files: [{ name: 'x', url: 'http://10.0.0.1/secret' }] },
    ]);
    expect(privateUrl.status).toBe(400);
    expect(privateUrl.body.error.message).toMatch(/ADDRESS_NOT_ALLOWED/);
  });
});

import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestOrg, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { edit, expect400, merge, newChangeRequest, newSpace, PNG_2X3 } from '../support/fixtures.ts';
import { loadPageMap, writeRevision } from '../../src/db/content.ts';
import { setRevisionGit, setSpaceRevision } from '../../src/db/git-sync.ts';
import { forkEm, transaction } from '../../src/db/orm.ts';

/**
 * Reads of a space's revisions by id, and the reusable contents and page meta links of a space's
 * content and of a change request's: what GitBook's site renderer reads of a published space.
 */
let t: TestApp;
let org: TestOrg;
let other: TestOrg;
let spaceId: string;
/** The revision with pages, a file and reusable contents (the space's current one). */
let revisionId: string;
/** An earlier revision of the space, without reusable contents. */
let earlier: string;
let guideId: string;
let installId: string;
let fileId: string;
let otherFileId: string;
let crId: string;

const admin = () => org.members.admin.api;

beforeAll(async () => {
  t = await startTestApp();
  org = await createTestOrg(t, 'Revision reads org');
  other = await createTestOrg(t, 'Revision reads other org');
  spaceId = (await newSpace(admin(), org.id, { title: 'Published docs' })).id;
  const cr = await newChangeRequest(admin(), spaceId, 'Write');
  const first = await edit(admin(), spaceId, cr.id, [
    {
      operation: 'insert_files',
      files: [
        { name: 'dot.png', contentType: 'image/png', base64: PNG_2X3 },
        { name: 'notes.txt', contentType: 'text/plain', base64: Buffer.from('notes').toString('base64') },
      ],
    },
    { operation: 'insert_page', title: 'Guide', document: { markdown: '# Guide\n\nStart here.\n' } },
  ]);
  guideId = first.changes[0].page.id;
  const second = await edit(admin(), spaceId, cr.id, [
    { operation: 'insert_page', into: guideId, title: 'Install', document: { markdown: 'Run the installer.\n\n## Step 2\n\nDone.\n' } },
  ]);
  installId = second.changes[0].page.id;
  await merge(admin(), spaceId, cr.id);
  earlier = (await admin().get(`/v1/spaces/${spaceId}`)).body.revision;
  const files = (await admin().get(`/v1/spaces/${spaceId}/content/files`)).body.items;
  fileId = files.find((f: { name: string }) => f.name === 'dot.png').id;
  otherFileId = files.find((f: { name: string }) => f.name === 'notes.txt').id;

  // Reusable contents come from Git Sync; written here directly, as an import writes them.
  revisionId = await transaction(forkEm(t.orm), async (tx) => {
    const pages = await loadPageMap(tx, earlier, true);
    const id = await writeRevision(tx, {
      spaceId,
      parents: [earlier],
      type: 'edits',
      base: { revisionId: earlier, pages },
      pages,
      reusableContents: [
        { id: 'rc-intro', title: 'Shared intro', path: '.gitbook/includes/intro.md', markdown: 'Welcome to **the product**.\n' },
        { id: 'rc-legal', title: 'Legal', path: null, markdown: '' },
      ],
    });
    await setSpaceRevision(tx, spaceId, id);
    return id;
  });
  crId = (await newChangeRequest(admin(), spaceId, 'Later')).id;
});
afterAll(() => t.close());

const base = () => `/v1/spaces/${spaceId}/revisions/${revisionId}`;

describe('a revision by id', () => {
  it('answers the revision with its pages, files and reusable contents', async () => {
    const res = await admin().get(base());
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ object: 'revision', id: revisionId, parents: [earlier], type: 'edits' });
    expect(res.body.pages.map((p: { title: string }) => p.title)).toEqual(['Untitled', 'Guide']);
    expect(res.body.pages[1].pages.map((p: { id: string }) => p.id)).toEqual([installId]);
    expect(res.body.files.map((f: { id: string }) => f.id)).toEqual([fileId, otherFileId]);
    expect(res.body.files[0].downloadURL).toBe(`http://docs.test/v1/spaces/${spaceId}/content/files/${fileId}/download`);
    expect(res.body.reusableContents).toEqual([
      { id: 'rc-legal', title: 'Legal' },
      { id: 'rc-intro', title: 'Shared intro', path: '.gitbook/includes/intro.md' },
    ]);
    expect((await admin().get(`${base()}?metadata=false&computed=false`)).status).toBe(200);
    // An earlier revision reads as it was.
    const old = await admin().get(`/v1/spaces/${spaceId}/revisions/${earlier}`);
    expect(old.status).toBe(200);
    expect(old.body.reusableContents).toEqual([]);
    // The space's current content lists the same reusable contents.
    expect((await admin().get(`/v1/spaces/${spaceId}/content`)).body.reusableContents).toHaveLength(2);
  });

  it('answers git metadata an export records after the revision was first read, as JSON', async () => {
    const first = await admin().get(base());
    expect(first.headers['content-type']).toMatch(/^application\/json/);
    expect(first.body.git).toBeUndefined();
    // An export records the commit on a revision that already exists (and may have been read).
    await transaction(forkEm(t.orm), (tx) => setRevisionGit(tx, revisionId, { oid: 'c0ffee', message: 'Export' }));
    expect((await admin().get(base())).body.git).toEqual({
      oid: 'c0ffee',
      message: 'Export',
      createdByService: false,
      createdByGitBook: false,
    });
    expect((await admin().get(`${base()}?metadata=false`)).body.git).toBeUndefined();
    // The same pages and files, whichever way the revision is read.
    const again = (await admin().get(base())).body;
    expect(again.pages).toEqual(first.body.pages);
    expect(again.files).toEqual(first.body.files);
  });

  it("names a change request's files under the change request, though its revision was read under the space", async () => {
    const space = (await newSpace(admin(), org.id, { title: 'Shared revision' })).id;
    const cr = await newChangeRequest(admin(), space, 'Same content');
    const revision = (await admin().get(`/v1/spaces/${space}/change-requests/${cr.id}`)).body.revision;
    expect(revision).toBe((await admin().get(`/v1/spaces/${space}`)).body.revision);
    await edit(admin(), space, cr.id, [
      { operation: 'insert_files', files: [{ name: 'a.txt', contentType: 'text/plain', base64: Buffer.from('a').toString('base64') }] },
    ]);
    const crRevision = (await admin().get(`/v1/spaces/${space}/change-requests/${cr.id}`)).body.revision;
    const bySpace = await admin().get(`/v1/spaces/${space}/revisions/${crRevision}`);
    expect(bySpace.status).toBe(200);
    const file = bySpace.body.files[0];
    expect(file.downloadURL).toBe(`http://docs.test/v1/spaces/${space}/content/files/${file.id}/download`);
    const byCr = await admin().get(`/v1/spaces/${space}/change-requests/${cr.id}/content`);
    expect(byCr.body.files[0].downloadURL).toBe(
      `http://docs.test/v1/spaces/${space}/change-requests/${cr.id}/content/files/${file.id}/download`,
    );
  });

  it('answers compressed to a client that accepts gzip, the same revision and document', async () => {
    const get = async (url: string, encoding?: string) => {
      const res = await t.app.inject({
        method: 'GET',
        url,
        headers: { authorization: `Bearer ${org.members.admin.token}`, ...(encoding ? { 'accept-encoding': encoding } : {}) },
      });
      const raw = res.rawPayload;
      return { res, json: JSON.parse((res.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw).toString()) };
    };
    // Enough pages for the revision to be worth compressing.
    const cr = await newChangeRequest(admin(), spaceId, 'Many pages');
    const many = await edit(
      admin(),
      spaceId,
      cr.id,
      Array.from({ length: 20 }, (_, i) => ({
        operation: 'insert_page',
        title: `Page ${i}`,
        document: { markdown: `Text ${i}. `.repeat(40) },
      })),
    );
    expect(many.changes).toHaveLength(20);
    const crRevision = (await admin().get(`/v1/spaces/${spaceId}/change-requests/${cr.id}`)).body.revision;
    const url = `/v1/spaces/${spaceId}/revisions/${crRevision}`;
    const plain = await get(url);
    expect(plain.res.headers['content-encoding']).toBeUndefined();
    for (const encoding of ['gzip', 'gzip, deflate', 'br;q=1, gzip;q=0.5', '*']) {
      const zipped = await get(url, encoding);
      expect([encoding, zipped.res.headers['content-encoding']]).toEqual([encoding, 'gzip']);
      expect(zipped.res.headers.vary).toContain('accept-encoding');
      expect(zipped.res.rawPayload.length).toBeLessThan(plain.res.rawPayload.length);
      expect(zipped.json).toEqual(plain.json);
    }
    for (const refused of ['gzip;q=0', 'deflate', 'identity']) {
      expect((await get(url, refused)).res.headers['content-encoding']).toBeUndefined();
    }
    // A small answer goes out as it is.
    const doc = await get(`${base()}/page/${installId}/document`, 'gzip');
    expect(doc.res.headers['content-encoding']).toBeUndefined();
    expect(doc.json.object).toBe('document');
  });

  it('lists the pages as a tree', async () => {
    const res = await admin().get(`${base()}/pages`);
    expect(res.status).toBe(200);
    expect(res.body.pages[1]).toMatchObject({ id: guideId, path: 'guide', pages: [{ id: installId, path: 'guide/install' }] });
  });

  it('answers a page by id, as markdown or as a document', async () => {
    const page = await admin().get(`${base()}/page/${installId}`);
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({
      id: installId,
      title: 'Install',
      path: 'guide/install',
      markdown: expect.stringContaining('installer'),
    });
    const doc = await admin().get(`${base()}/page/${installId}?format=document&evaluated=true&dereferenced=reusable-contents`);
    expect(doc.status).toBe(200);
    expect(doc.body.markdown).toBeUndefined();
    expect(doc.body.document).toMatchObject({ object: 'document', nodes: expect.any(Array) });
    expect(JSON.stringify(doc.body.document)).toContain('Run the installer.');
    expect((await admin().get(`${base()}/page/${installId}?format=markdown`)).body.markdown).toContain('## Step 2');
  });

  it('answers a page by path, with the path URL-encoded or not', async () => {
    for (const path of ['guide%2Finstall', 'guide/install']) {
      const res = await admin().get(`${base()}/path/${path}`);
      expect(res.status).toBe(200);
      expect(res.body.id).toBe(installId);
    }
    expect((await admin().get(`${base()}/path/guide`)).body.id).toBe(guideId);
    expect((await admin().get(`${base()}/path/guide%2Fnope`)).status).toBe(404);
  });

  it('answers the document of a page, evaluated and dereferenced as asked', async () => {
    for (const query of ['', '?evaluated=deterministic-only&dereferenced=reusable-contents', '?evaluated=false&dereferenced=true']) {
      const res = await admin().get(`${base()}/page/${installId}/document${query}`);
      expect(res.status).toBe(200);
      expect(res.body.object).toBe('document');
      expect(res.body.nodes[0]).toMatchObject({ object: 'block', type: 'paragraph' });
    }
  });

  it('lists the files a page at a time, and answers one file', async () => {
    const list = await admin().get(`${base()}/files?limit=1`);
    expect(list.status).toBe(200);
    expect(list.body.items).toHaveLength(1);
    expect(list.body.count).toBe(2);
    const rest = await admin().get(`${base()}/files?limit=1&page=${encodeURIComponent(list.body.next.page)}`);
    expect(rest.status).toBe(200);
    expect(rest.body.next).toBeUndefined();
    expect([...list.body.items, ...rest.body.items].map((f: { id: string }) => f.id).sort()).toEqual([fileId, otherFileId].sort());
    const file = await admin().get(`${base()}/files/${fileId}`);
    expect(file.status).toBe(200);
    expect(file.body).toMatchObject({ id: fileId, name: 'dot.png', contentType: 'image/png', dimensions: { width: 2, height: 3 } });
    expect((await admin().get(`${base()}/files?page=not-a-cursor`)).status).toBe(400);
  });

  it('answers a reusable content and its document', async () => {
    const content = await admin().get(`${base()}/reusable-contents/rc-intro`);
    expect(content.status).toBe(200);
    expect(content.body).toEqual({ id: 'rc-intro', title: 'Shared intro', path: '.gitbook/includes/intro.md' });
    const doc = await admin().get(`${base()}/reusable-contents/rc-intro/document?evaluated=deterministic-only`);
    expect(doc.status).toBe(200);
    expect(JSON.stringify(doc.body)).toContain('the product');
    const empty = await admin().get(`${base()}/reusable-contents/rc-legal/document`);
    expect(empty.body).toEqual({ object: 'document', data: {}, nodes: [] });
  });

  it("answers a page's meta links", async () => {
    const res = await admin().get(`${base()}/page/${installId}/meta-links`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ alternates: [] });
  });
});

describe('reusable contents of a copied space', () => {
  it('copies them with the content, readable in the copy', async () => {
    const copy = await admin().post(`/v1/spaces/${spaceId}/duplicate`);
    expect(copy.status).toBe(201);
    const revision = (await admin().get(`/v1/spaces/${copy.body.id}/revisions/${copy.body.revision}`)).body;
    expect(revision.reusableContents.map((r: { id: string }) => r.id)).toEqual(['rc-legal', 'rc-intro']);
    const doc = await admin().get(`/v1/spaces/${copy.body.id}/revisions/${copy.body.revision}/reusable-contents/rc-intro/document`);
    expect(JSON.stringify(doc.body)).toContain('the product');
  });
});

describe('reusable contents and meta links of content and change requests', () => {
  it('answers them for the space content and for a change request', async () => {
    for (const prefix of [`/v1/spaces/${spaceId}`, `/v1/spaces/${spaceId}/change-requests/${crId}`]) {
      const content = await admin().get(`${prefix}/content/reusable-contents/rc-intro`);
      expect(content.status).toBe(200);
      expect(content.body.title).toBe('Shared intro');
      expect((await admin().get(`${prefix}/content/page/${guideId}/meta-links`)).body).toEqual({ alternates: [] });
      expect((await admin().get(`${prefix}/content/reusable-contents/nope`)).status).toBe(404);
      expect((await admin().get(`${prefix}/content/page/nope/meta-links`)).status).toBe(404);
    }
    expect((await admin().get(`/v1/spaces/${spaceId}/change-requests/999/content/reusable-contents/rc-intro`)).status).toBe(404);
  });
});

/** Every route, with a path under a revision (or a content prefix). */
const routes = () => [
  base(),
  `${base()}/pages`,
  `${base()}/page/${installId}`,
  `${base()}/path/guide%2Finstall`,
  `${base()}/path/guide/install`,
  `${base()}/page/${installId}/document`,
  `${base()}/page/${installId}/meta-links`,
  `${base()}/files`,
  `${base()}/files/${fileId}`,
  `${base()}/reusable-contents/rc-intro`,
  `${base()}/reusable-contents/rc-intro/document`,
  `/v1/spaces/${spaceId}/content/reusable-contents/rc-intro`,
  `/v1/spaces/${spaceId}/content/page/${guideId}/meta-links`,
  `/v1/spaces/${spaceId}/change-requests/${crId}/content/reusable-contents/rc-intro`,
  `/v1/spaces/${spaceId}/change-requests/${crId}/content/page/${guideId}/meta-links`,
];

describe('refusals', () => {
  it('answers 401 without a token on every route', async () => {
    const anonymous = t.app;
    for (const url of routes()) {
      const res = await anonymous.inject({ method: 'GET', url });
      expect([url, res.statusCode]).toEqual([url, 401]);
      expect(JSON.parse(res.body).error.code).toBe(401);
    }
  });

  it('answers 404 to a member of another organization on every route, as if the space did not exist', async () => {
    for (const url of routes()) {
      const res = await other.members.admin.api.get(url);
      expect([url, res.status]).toEqual([url, 404]);
      expect(res.body.error.message).toBe('Space not found');
    }
  });

  it('answers every role of the organization, down to read', async () => {
    for (const url of routes()) expect([url, (await org.members.read.api.get(url)).status]).toEqual([url, 200]);
  });

  it('answers 404 for a revision of another space, even one the caller reads', async () => {
    const mine = await newSpace(admin(), org.id, { title: 'Another space' });
    const foreign = await newSpace(other.members.admin.api, other.id, { title: 'Foreign' });
    for (const revision of [mine.revision, foreign.revision, 'unknown-revision']) {
      const res = await admin().get(`/v1/spaces/${spaceId}/revisions/${revision}`);
      expect(res.status).toBe(404);
      expect(res.body.error.message).toBe('Revision not found');
      expect((await admin().get(`/v1/spaces/${spaceId}/revisions/${revision}/page/${installId}`)).status).toBe(404);
      expect((await admin().get(`/v1/spaces/${spaceId}/revisions/${revision}/files`)).status).toBe(404);
      expect((await admin().get(`/v1/spaces/${spaceId}/revisions/${revision}/path/guide%2Finstall`)).status).toBe(404);
      expect((await admin().get(`/v1/spaces/${spaceId}/revisions/${revision}/reusable-contents/rc-intro/document`)).status).toBe(404);
    }
    // The other space's own revision is readable through that space only.
    expect((await admin().get(`/v1/spaces/${mine.id}/revisions/${mine.revision}`)).status).toBe(200);
  });

  it("answers 404 to an outsider naming this space's revision under a space of their own", async () => {
    const attacker = other.members.admin.api;
    const theirs = await newSpace(attacker, other.id, { title: 'Attacker space' });
    for (const path of [
      '',
      '/pages',
      `/page/${installId}`,
      `/page/${installId}/document`,
      '/path/guide%2Finstall',
      `/files/${fileId}`,
      '/reusable-contents/rc-intro',
      '/reusable-contents/rc-intro/document',
    ]) {
      const res = await attacker.get(`/v1/spaces/${theirs.id}/revisions/${revisionId}${path}`);
      expect([path, res.status, res.body.error?.message]).toEqual([path, 404, 'Revision not found']);
    }
  });

  it('answers 404 for an unknown page, file or reusable content of the revision', async () => {
    for (const url of [
      `${base()}/page/nope`,
      `${base()}/page/nope/document`,
      `${base()}/page/nope/meta-links`,
      `${base()}/path/nope`,
      `${base()}/files/nope`,
      `${base()}/reusable-contents/nope`,
      `${base()}/reusable-contents/nope/document`,
      // Reusable contents are per revision: the earlier one had none.
      `/v1/spaces/${spaceId}/revisions/${earlier}/reusable-contents/rc-intro`,
    ]) {
      const res = await admin().get(url);
      expect([url, res.status]).toEqual([url, 404]);
    }
  });

  it('answers 400 for bad parameters', async () => {
    expect400(await admin().get(`${base()}/page/${installId}/document?evaluated=maybe`), /evaluated/);
    expect400(await admin().get(`${base()}/page/${installId}/document?dereferenced=everything`), /dereferenced/);
    expect400(await admin().get(`${base()}/page/${installId}?format=html`), /format/);
    expect400(await admin().get(`${base()}?metadata=perhaps`), /metadata/);
    expect400(await admin().get(`${base()}/files?limit=0`), /limit/);
    expect400(await admin().get(`${base()}/files?limit=5000`), /limit/);
    expect((await admin().get(`/v1/spaces/${spaceId}/revisions/${'x'.repeat(65)}`)).status).toBe(400);
  });
});

describe('reusable contents of a change request brought up to date', () => {
  it("takes the space's reusable contents when a change request is updated", async () => {
    const space = await newSpace(admin(), org.id, { title: 'Updated includes' });
    const cr = await newChangeRequest(admin(), space.id, 'Open early');
    await edit(admin(), space.id, cr.id, [{ operation: 'insert_page', title: 'Draft', document: { markdown: 'Draft.\n' } }]);
    // The space's content moves on with a reusable content (as a Git Sync import writes it).
    await transaction(forkEm(t.orm), async (tx) => {
      const pages = await loadPageMap(tx, space.revision, true);
      const id = await writeRevision(tx, {
        spaceId: space.id,
        parents: [space.revision],
        type: 'edits',
        base: { revisionId: space.revision, pages },
        pages,
        reusableContents: [{ id: 'rc-new', title: 'New include', path: '.gitbook/includes/new.md', markdown: 'New.\n' }],
      });
      await setSpaceRevision(tx, space.id, id);
    });
    const crContent = `/v1/spaces/${space.id}/change-requests/${cr.id}/content`;
    expect((await admin().get(crContent)).body.reusableContents).toEqual([]);
    const updated = await admin().post(`/v1/spaces/${space.id}/change-requests/${cr.id}/update`);
    expect(updated.body.result).toBe('update');
    const after = (await admin().get(crContent)).body;
    expect(after.reusableContents).toEqual([{ id: 'rc-new', title: 'New include', path: '.gitbook/includes/new.md' }]);
    expect(after.pages.map((p: { title: string }) => p.title)).toContain('Draft');
  });
});

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestOrg, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { edit, newChangeRequest, PNG_2X3 } from '../support/fixtures.ts';

let t: TestApp;
let org: TestOrg;
let other: TestOrg;

const admin = () => org.members.admin.api;

/**
 * Untitled (the first page), Guide (→ Install), API, and a file dot.png, merged into the space:
 * pages link to each other with relative `.md` paths, to this service's URL and to the web.
 */
let space: { id: string };
let ids: { untitled: string; guide: string; install: string; api: string };
let fileId: string;

beforeAll(async () => {
  t = await startTestApp();
  org = await createTestOrg(t, 'Links org');
  other = await createTestOrg(t, 'Links elsewhere');
  space = (await admin().post(`/v1/orgs/${org.id}/spaces`, { title: 'Linked docs' })).body;
  const untitled = (await admin().get(`/v1/spaces/${space.id}/content/pages`)).body.pages[0].id;
  const cr = await newChangeRequest(admin(), space.id, 'Links');
  const first = await edit(admin(), space.id, cr.id, [
    { operation: 'insert_files', files: [{ name: 'dot.png', contentType: 'image/png', base64: PNG_2X3 }] },
    {
      operation: 'insert_page',
      ref: 'guide',
      title: 'Guide',
      document: {
        markdown: [
          'Start with [the install page](install.md) or read [the API](../api.md).',
          '',
          'A [missing page](nope.md), [the app](http://docs.test/somewhere) and [GitBook](https://www.gitbook.com).',
          '',
          '![Dot](.gitbook/assets/dot.png)',
          '',
        ].join('\n'),
      },
    },
    {
      operation: 'insert_page',
      into: 'guide',
      title: 'Install',
      document: { markdown: 'Back to [the guide](../guide.md). See [the API](/api.md) and [nowhere](../../x.md).\n' },
    },
    { operation: 'insert_page', title: 'API', document: { markdown: 'placeholder\n' } },
  ]);
  fileId = first.insertedFiles[0].id;
  const [guide, install, api] = first.changes.map((c: { page: { id: string } }) => c.page.id);
  await edit(admin(), space.id, cr.id, [
    {
      operation: 'update_page',
      page: api,
      document: {
        markdown:
          'Read [install](guide/install.md) and [gone](gone.md), home at [docs](http://docs.test/), [mail](mailto:team@example.com).\n\nDownload [dot](/files/' +
          fileId +
          ').\n',
      },
    },
  ]);
  expect((await admin().post(`/v1/spaces/${space.id}/change-requests/${cr.id}/merge`)).body.result).toBe('merge');
  ids = { untitled, guide, install, api };
});
afterAll(() => t.close());

const page = (id: string) => ({ kind: 'page', page: id, space: space.id });
const at = (...pages: string[]) => pages.map((p) => ({ kind: 'page', organization: org.id, space: space.id, page: p }));
const ref = (status: string, targetReference: unknown, ...pages: string[]) => ({
  status,
  relation: 'reference',
  targetReference,
  locationReferences: at(...pages),
});

describe('links', () => {
  it('lists every link of the space once per target, in page order, with statuses and stats', async () => {
    const res = await admin().get(`/v1/spaces/${space.id}/links`);
    expect(res.status).toBe(200);
    expect(res.body.items).toEqual([
      ref('ok', page(ids.install), ids.guide, ids.api),
      ref('ok', page(ids.api), ids.guide, ids.install),
      ref('broken', { kind: 'url', url: 'nope.md' }, ids.guide),
      ref('in-app', { kind: 'url', url: 'http://docs.test/somewhere' }, ids.guide),
      ref('ok', { kind: 'url', url: 'https://www.gitbook.com' }, ids.guide),
      ref('ok', { kind: 'file', file: fileId, space: space.id }, ids.guide, ids.api),
      ref('ok', page(ids.guide), ids.install),
      ref('broken', { kind: 'url', url: '../../x.md' }, ids.install),
      ref('broken', { kind: 'url', url: 'gone.md' }, ids.api),
      ref('in-app', { kind: 'url', url: 'http://docs.test/' }, ids.api),
      ref('ok', { kind: 'url', url: 'mailto:team@example.com' }, ids.api),
    ]);
    expect(res.body.count).toBe(11);
    expect(res.body.stats).toEqual({ total: 11, broken: { total: 3, changeRequest: 0 } });
    expect(res.body.next).toBeUndefined();
  });

  it('filters by status and pages through the list', async () => {
    const broken = await admin().get(`/v1/spaces/${space.id}/links?status=broken`);
    expect(broken.body.items.map((i: { targetReference: { url: string } }) => i.targetReference.url)).toEqual([
      'nope.md',
      '../../x.md',
      'gone.md',
    ]);
    expect(broken.body.count).toBe(3);
    expect(broken.body.stats).toEqual({ total: 11, broken: { total: 3, changeRequest: 0 } });
    const inApp = await admin().get(`/v1/spaces/${space.id}/links?status=in-app`);
    expect(inApp.body.count).toBe(2);

    const all = (await admin().get(`/v1/spaces/${space.id}/links`)).body.items;
    const seen: unknown[] = [];
    let cursor: string | undefined;
    let calls = 0;
    do {
      const res = await admin().get(`/v1/spaces/${space.id}/links?limit=4${cursor ? `&page=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      expect(res.body.count).toBe(11);
      seen.push(...res.body.items);
      cursor = res.body.next?.page;
      calls++;
    } while (cursor);
    expect(calls).toBe(3);
    expect(seen).toEqual(all);
  });

  it("lists one page's links", async () => {
    const res = await org.members.read.api.get(`/v1/spaces/${space.id}/content/page/${ids.guide}/links`);
    expect(res.status).toBe(200);
    expect(res.body.items).toEqual([
      ref('ok', page(ids.install), ids.guide),
      ref('ok', page(ids.api), ids.guide),
      ref('broken', { kind: 'url', url: 'nope.md' }, ids.guide),
      ref('in-app', { kind: 'url', url: 'http://docs.test/somewhere' }, ids.guide),
      ref('ok', { kind: 'url', url: 'https://www.gitbook.com' }, ids.guide),
      ref('ok', { kind: 'file', file: fileId, space: space.id }, ids.guide),
    ]);
    expect(res.body.stats).toEqual({ total: 6, broken: { total: 1, changeRequest: 0 } });
    const untitled = await admin().get(`/v1/spaces/${space.id}/content/page/${ids.untitled}/links`);
    expect(untitled.body).toEqual({ items: [], count: 0, stats: { total: 0, broken: { total: 0, changeRequest: 0 } } });
    const okOnly = await admin().get(`/v1/spaces/${space.id}/content/page/${ids.guide}/links?status=ok&limit=2`);
    expect(okOnly.body.items).toHaveLength(2);
    expect(okOnly.body.count).toBe(4);
    expect(okOnly.body.next.page).toEqual(expect.any(String));
  });

  it('reads links in change request content and counts broken links of open change requests', async () => {
    const cr = await newChangeRequest(admin(), space.id, 'Links');
    await edit(admin(), space.id, cr.id, [{ operation: 'delete_page', page: ids.api }]);

    const inCr = await admin().get(`/v1/spaces/${space.id}/change-requests/${cr.id}/content/page/${ids.guide}/links`);
    expect(inCr.status).toBe(200);
    expect(inCr.body.items.slice(0, 3)).toEqual([
      ref('ok', page(ids.install), ids.guide),
      ref('broken', { kind: 'url', url: '../api.md' }, ids.guide),
      ref('broken', { kind: 'url', url: 'nope.md' }, ids.guide),
    ]);
    // Broken in this change request's Guide page: ../api.md and nope.md.
    expect(inCr.body.stats).toEqual({ total: 6, broken: { total: 2, changeRequest: 2 } });
    const byNumber = await admin().get(`/v1/spaces/${space.id}/change-requests/${cr.number}/links?status=broken`);
    expect(byNumber.body.items.map((i: { targetReference: { url: string } }) => i.targetReference.url)).toEqual([
      '../api.md',
      'nope.md',
      '/api.md',
      '../../x.md',
    ]);

    // The space's own links are unchanged; the open change request's broken links are counted apart.
    const spaceLinks = await admin().get(`/v1/spaces/${space.id}/links`);
    expect(spaceLinks.body.stats).toEqual({ total: 11, broken: { total: 3, changeRequest: 4 } });
    const guideLinks = await admin().get(`/v1/spaces/${space.id}/content/page/${ids.guide}/links`);
    expect(guideLinks.body.stats).toEqual({ total: 6, broken: { total: 1, changeRequest: 2 } });
    expect((await admin().get(`/v1/spaces/${space.id}/change-requests/${cr.id}/content/page/${ids.api}/links`)).status).toBe(404);

    // Archived change requests are not counted.
    await admin().patch(`/v1/spaces/${space.id}/change-requests/${cr.id}`, { status: 'archived' });
    expect((await admin().get(`/v1/spaces/${space.id}/links`)).body.stats.broken.changeRequest).toBe(0);
  });

  it('validates its parameters and hides what the caller cannot see', async () => {
    const bad = await admin().get(`/v1/spaces/${space.id}/links?status=dead`);
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/status/);
    expect((await admin().get(`/v1/spaces/${space.id}/links?limit=0`)).status).toBe(400);
    expect((await admin().get(`/v1/spaces/${space.id}/links?page=garbage`)).status).toBe(400);
    expect((await t.app.inject({ url: `/v1/spaces/${space.id}/links` })).statusCode).toBe(401);
    expect((await other.members.admin.api.get(`/v1/spaces/${space.id}/links`)).status).toBe(404);
    expect((await other.members.admin.api.get(`/v1/spaces/${space.id}/content/page/${ids.guide}/links`)).status).toBe(404);
    expect((await other.members.admin.api.get(`/v1/spaces/${space.id}/content/files/${fileId}/backlinks`)).status).toBe(404);
    expect((await org.members.guest.api.get(`/v1/spaces/${space.id}/links`)).status).toBe(404);
    expect((await admin().get(`/v1/spaces/${space.id}/content/page/nope/links`)).status).toBe(404);
    expect((await admin().get(`/v1/spaces/${space.id}/change-requests/999/links`)).status).toBe(404);
  });
});

describe('backlinks', () => {
  it('lists the pages linking to a file, by asset path or /files/<id>, in space and change request content', async () => {
    const res = await org.members.read.api.get(`/v1/spaces/${space.id}/content/files/${fileId}/backlinks`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ items: at(ids.guide, ids.api), count: 2 });

    const first = await admin().get(`/v1/spaces/${space.id}/content/files/${fileId}/backlinks?limit=1`);
    expect(first.body.items).toEqual(at(ids.guide));
    const second = await admin().get(`/v1/spaces/${space.id}/content/files/${fileId}/backlinks?limit=1&page=${first.body.next.page}`);
    expect(second.body).toEqual({ items: at(ids.api), count: 2 });

    const cr = await newChangeRequest(admin(), space.id, 'Links');
    await edit(admin(), space.id, cr.id, [
      { operation: 'update_page', page: ids.guide, document: { markdown: 'No picture any more.\n' } },
      { operation: 'update_page', page: ids.install, document: { markdown: `Picture: ![dot](gitbook://file/${fileId})\n` } },
    ]);
    const inCr = await admin().get(`/v1/spaces/${space.id}/change-requests/${cr.id}/content/files/${fileId}/backlinks`);
    expect(inCr.body).toEqual({ items: at(ids.install, ids.api), count: 2 });
    expect((await admin().get(`/v1/spaces/${space.id}/content/files/missing/backlinks`)).status).toBe(404);
    await admin().patch(`/v1/spaces/${space.id}/change-requests/${cr.id}`, { status: 'archived' });
  });
});

describe('reference', () => {
  it('documents the link, backlink and search operations in a valid OpenAPI document', async () => {
    const doc = (await t.app.inject({ url: '/openapi.json' })).json();
    for (const base of ['/v1/spaces/{spaceId}', '/v1/spaces/{spaceId}/change-requests/{changeRequestId}']) {
      for (const path of ['/links', '/content/page/{pageId}/links', '/content/files/{fileId}/backlinks'])
        expect(Object.keys(doc.paths[`${base}${path}`])).toEqual(['get']);
    }
    expect(Object.keys(doc.paths['/v1/spaces/{spaceId}/search'])).toEqual(['get']);
    const { validate } = await import('@readme/openapi-parser');
    const result = await validate(structuredClone(doc));
    expect(result.valid ? [] : result.errors).toEqual([]);
  });
});

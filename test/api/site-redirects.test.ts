import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { client, createTestOrg, eventually, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { startGitServer, type GitServer } from '../support/git-server.ts';
import { edit, expect400, merge, newChangeRequest, newSpace } from '../support/fixtures.ts';
import { expectMatchesGitBook } from '../support/gitbook-openapi.ts';

let t: TestApp;
let org: TestOrg;
let other: TestOrg;
let git: GitServer;

beforeAll(async () => {
  t = await startTestApp({ FETCH_ALLOW_HOSTS: '127.0.0.1' });
  org = await createTestOrg(t, 'Redirects org');
  other = await createTestOrg(t, 'Other redirects org');
  git = await startGitServer();
});
afterAll(async () => {
  await git?.close();
  await t?.close();
});

const admin = () => org.members.admin.api;
const sites = (orgId = org.id) => `/v1/orgs/${orgId}/sites`;

/** A published site with one space holding a page `Install` (under `guides`), and a section of a second space. */
async function siteWithPages() {
  const space = await newSpace(admin(), org.id, { title: 'Guides' });
  const cr = await newChangeRequest(admin(), space.id);
  const edited = await edit(admin(), space.id, cr.id, [
    { operation: 'insert_page', ref: 'g', title: 'Guides', document: { markdown: 'All guides.\n' } },
    { operation: 'insert_page', into: 'g', title: 'Install', document: { markdown: 'Run it.\n' } },
  ]);
  await merge(admin(), space.id, cr.id);
  const created = await admin().post(sites(), { title: 'Redirect site', visibility: 'public', spaces: [space.id] });
  expect(created.status).toBe(201);
  const site = created.body;
  expect((await admin().post(`${sites()}/${site.id}/publish`)).status).toBe(200);
  const siteSpace = (await admin().get(`${sites()}/${site.id}/site-spaces`)).body.items[0];
  const pages = (await admin().get(`/v1/spaces/${space.id}/content/pages`)).body.pages;
  return { site, space, siteSpace, pageIds: edited.changes.map((c) => c.page.id), pages };
}

/** A client holding the visitor's token a lookup of the published site's root answers. */
async function visitorOf(site: { id: string }) {
  const url = (await admin().get(`${sites()}/${site.id}`)).body.urls.published;
  const res = await admin().post('/v1/urls/published', { url });
  expect(res.status).toBe(200);
  return client(t.app, res.body.apiToken);
}

describe('site redirects', () => {
  it('creates every kind of destination, lists, updates, looks up and deletes', async () => {
    const { site, space, siteSpace, pageIds } = await siteWithPages();
    const base = `${sites()}/${site.id}/redirects`;

    const external = await admin().post(base, { source: '/old', destination: { kind: 'external', url: 'https://example.com/new' } });
    expect(external.status).toBe(201);
    expectMatchesGitBook('createSiteRedirect', external.body, 201);
    expect(external.body).toEqual({
      object: 'site-redirect',
      id: expect.any(String),
      source: '/old',
      draft: false,
      captureWildcard: false,
      permanent: false,
      destination: { kind: 'external', url: 'https://example.com/new' },
      createdAt: expect.any(String),
    });
    const toPage = await admin().post(base, {
      source: '/docs/setup',
      permanent: true,
      destination: { kind: 'site-page', siteSpaceId: siteSpace.id, pageId: pageIds[1] },
    });
    expect(toPage.status).toBe(201);
    const byPath = await admin().post(base, {
      source: '/legacy/*',
      captureWildcard: true,
      destination: { kind: 'path', spaceId: space.id, path: 'guides' },
    });
    expect(byPath.status).toBe(201);
    expect(byPath.body.destination).toEqual({ kind: 'site-page', siteSpaceId: siteSpace.id, pageId: pageIds[0] });
    const toSpace = await admin().post(base, {
      source: '/home',
      draft: true,
      destination: { kind: 'site-space', siteSpaceId: siteSpace.id },
    });
    expect(toSpace.status).toBe(201);

    // The same source twice (live) is a conflict; a draft of it is not.
    expect((await admin().post(base, { source: '/old', destination: { kind: 'external', url: 'https://example.com/x' } })).status).toBe(
      409,
    );
    expect(
      (await admin().post(base, { source: '/old', draft: true, destination: { kind: 'external', url: 'https://example.com/x' } })).status,
    ).toBe(201);

    // Lists: live by default, newest first; pages of 2; by source; search; drafts.
    const first = await admin().get(`${base}?limit=2`);
    expect(first.status).toBe(200);
    expectMatchesGitBook('listSiteRedirects', first.body);
    expect(first.body.count).toBe(3);
    expect(first.body.items.map((r: any) => r.source)).toEqual(['/legacy/*', '/docs/setup']);
    const second = await admin().get(`${base}?limit=2&page=${encodeURIComponent(first.body.next.page)}`);
    expect(second.body.items.map((r: any) => r.source)).toEqual(['/old']);
    expect(second.body.next).toBeUndefined();
    expect((await admin().get(`${base}?orderBy=source`)).body.items.map((r: any) => r.source)).toEqual([
      '/docs/setup',
      '/legacy/*',
      '/old',
    ]);
    expect((await admin().get(`${base}?search=setup`)).body.items.map((r: any) => r.source)).toEqual(['/docs/setup']);
    expect((await admin().get(`${base}?draft=true&orderBy=source`)).body.items.map((r: any) => r.source)).toEqual(['/home', '/old']);
    expect((await admin().get(`${base}?page=garbage`)).status).toBe(400);

    // Lookups follow live redirects only: exact, then the longest wildcard, with the captured rest.
    const site0 = site.urls.published ?? (await admin().get(`${sites()}/${site.id}`)).body.urls.published;
    const exact = await admin().get(`${sites()}/${site.id}/redirect?source=${encodeURIComponent('/docs/setup')}`);
    expect(exact.status).toBe(200);
    expectMatchesGitBook('getSiteRedirectBySource', exact.body);
    expect(exact.body.target).toBe(`${site0}guides/install`);
    const wild = await admin().get(`${sites()}/${site.id}/redirect?source=${encodeURIComponent('/legacy/a/b')}`);
    expect(wild.body).toMatchObject({ redirect: { id: byPath.body.id }, target: `${site0}guides/a/b` });
    expect((await admin().get(`${sites()}/${site.id}/redirect?source=/home`)).status).toBe(404);
    expect((await admin().get(`${sites()}/${site.id}/redirect?source=/nowhere`)).status).toBe(404);
    expect((await org.members.read.api.get(`${sites()}/${site.id}/redirect?source=/old`)).body.target).toBe('https://example.com/new');

    // Update: fields, an existing source is a conflict, updatedAt appears.
    const updated = await admin().patch(`${base}/${external.body.id}`, {
      permanent: true,
      destination: { kind: 'site-space', siteSpaceId: siteSpace.id },
    });
    expect(updated.status).toBe(200);
    expectMatchesGitBook('updateSiteRedirectById', updated.body);
    expect(updated.body).toMatchObject({
      permanent: true,
      destination: { kind: 'site-space', siteSpaceId: siteSpace.id },
      updatedAt: expect.any(String),
    });
    expect((await admin().patch(`${base}/${external.body.id}`, { source: '/docs/setup' })).status).toBe(409);
    expect((await admin().get(`${base}?orderBy=updatedAt&limit=1`)).body.items[0].id).toBe(external.body.id);

    // Delete: 205, then 204 for one that is not there.
    expect((await admin().delete(`${base}/${external.body.id}`)).status).toBe(205);
    expect((await admin().delete(`${base}/${external.body.id}`)).status).toBe(204);
    expect((await admin().patch(`${base}/${external.body.id}`, { permanent: false })).status).toBe(404);
  });

  it('bulk upserts: creates, updates, deletes, publishes drafts and reports what it could not apply', async () => {
    const { site, siteSpace, pageIds } = await siteWithPages();
    const base = `${sites()}/${site.id}/redirects`;
    const page = { kind: 'site-page', siteSpaceId: siteSpace.id, pageId: pageIds[1] };
    const res = await admin().put(base, {
      redirects: [
        { source: '/a', destination: { kind: 'external', url: 'https://example.com/a' } },
        { source: '/b', intent: 'draft', destination: page },
        { source: '/c', destination: { kind: 'site-page', siteSpaceId: siteSpace.id, pageId: 'missing' } },
      ],
    });
    expect(res.status).toBe(200);
    expectMatchesGitBook('bulkUpsertSiteRedirects', res.body);
    expect(res.body.results).toEqual([
      { status: 'created', source: '/a', draft: false, id: expect.any(String) },
      { status: 'created', source: '/b', draft: true, id: expect.any(String) },
      { status: 'error', source: '/c', draft: false, error: expect.stringMatching(/pageId/) },
    ]);
    const again = await admin().put(base, {
      redirects: [
        { source: '/a', destination: page, permanent: true },
        { source: '/b', intent: 'publish' },
        { source: '/a', destination: null },
        { source: '/zzz', intent: 'publish' },
      ],
    });
    expectMatchesGitBook('bulkUpsertSiteRedirects', again.body);
    expect(again.body.results.map((r: any) => r.status)).toEqual(['updated', 'published', 'deleted', 'error']);
    const live = (await admin().get(`${base}?orderBy=source`)).body.items;
    expect(live.map((r: any) => [r.source, r.draft])).toEqual([['/b', false]]);
    expect((await admin().get(`${base}?draft=true`)).body.items).toEqual([]);
    expect((await admin().put(base, { redirects: [] })).status).toBe(400);
    const tooMany = Array.from({ length: 501 }, (_, i) => ({ source: `/p${i}`, destination: null }));
    expect((await admin().put(base, { redirects: tooMany })).status).toBe(400);
  });

  it('answers concurrent creations of one source with one 201 and 409s, never a 500', async () => {
    const { site } = await siteWithPages();
    const body = { source: '/race', destination: { kind: 'external', url: 'https://example.com/' } };
    const statuses = await Promise.all(Array.from({ length: 6 }, () => admin().post(`${sites()}/${site.id}/redirects`, body)));
    expect(statuses.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409]);
    const bulk = await Promise.all(
      Array.from({ length: 4 }, () => admin().put(`${sites()}/${site.id}/redirects`, { redirects: [{ ...body, source: '/bulk-race' }] })),
    );
    expect(bulk.every((r) => r.status === 200)).toBe(true);
    expect((await admin().get(`${sites()}/${site.id}/redirects?search=race`)).body.count).toBe(2);
  });

  it('validates sources and destinations with a 400 naming the field', async () => {
    const { site, space, siteSpace } = await siteWithPages();
    const base = `${sites()}/${site.id}/redirects`;
    const ok = { kind: 'external', url: 'https://example.com' };
    for (const source of ['old', '/a*b', '/*', '/a b', '/a//b', `/${'x'.repeat(512)}`, '/é']) {
      expect400(await admin().post(base, { source, destination: ok }), /source/);
    }
    expect400(await admin().post(base, { source: '/x', destination: { kind: 'external', url: 'javascript:alert(1)' } }), /url/);
    expect400(await admin().post(base, { source: '/x', destination: { kind: 'teleport' } }), /destination/);
    expect400(await admin().post(base, { source: '/x', destination: { kind: 'site-section', siteSectionId: 'nope' } }), /siteSectionId/);
    expect400(await admin().post(base, { source: '/x', destination: { kind: 'site-space', siteSpaceId: 'nope' } }), /siteSpaceId/);
    expect400(
      await admin().post(base, { source: '/x', destination: { kind: 'site-page', siteSpaceId: siteSpace.id, pageId: 'nope' } }),
      /pageId/,
    );
    expect400(await admin().post(base, { source: '/x', destination: { kind: 'path', spaceId: space.id, path: 'no/such/page' } }), /path/);
    const elsewhere = await newSpace(admin(), org.id, { title: 'Unpublished' });
    expect400(await admin().post(base, { source: '/x', destination: { kind: 'path', spaceId: elsewhere.id, path: '' } }), /spaceId/);
    expect400(await admin().post(base, { source: '/x' }), /destination/);
    expect400(await admin().patch(`${base}/whatever`, {}), /body/);
    expect400(await admin().get(`${sites()}/${site.id}/redirect`), /source/);
    expect400(await admin().get(`${base}?orderBy=title`), /orderBy/);
  });

  it('answers 401 without a token, 403 below the create role, 404 for another organization', async () => {
    const { site } = await siteWithPages();
    const base = `${sites()}/${site.id}/redirects`;
    const body = { source: '/x', destination: { kind: 'external', url: 'https://example.com' } };
    const anonymous = (await import('../support/harness.ts')).client(t.app);
    expect((await anonymous.get(base)).status).toBe(401);
    expect((await anonymous.get(`${sites()}/${site.id}/redirect?source=/x`)).status).toBe(401);
    for (const role of ['review', 'edit', 'comment', 'read'] as const) {
      const res = await org.members[role].api.post(base, body);
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe(403);
      expect((await org.members[role].api.put(base, { redirects: [body] })).status).toBe(403);
      expect((await org.members[role].api.get(base)).status).toBe(200);
    }
    expect((await org.members.create.api.post(base, body)).status).toBe(201);
    const id = (await admin().get(base)).body.items[0].id;
    for (const api of [other.members.admin.api]) {
      expect((await api.get(base)).status).toBe(404);
      expect((await api.post(base, { ...body, source: '/y' })).status).toBe(404);
      expect((await api.patch(`${base}/${id}`, { permanent: true })).status).toBe(404);
      expect((await api.delete(`${base}/${id}`)).status).toBe(404);
      expect((await api.get(`${sites()}/${site.id}/redirect?source=/x`)).status).toBe(404);
      // The other organization's own path to this site does not exist either.
      expect((await api.get(`${sites(other.id)}/${site.id}/redirects`)).status).toBe(404);
    }
    expect((await admin().get(base)).body.items).toHaveLength(1);
  });

  it("a site visitor's token looks up redirects of its own site only", async () => {
    const mine = await siteWithPages();
    const theirs = await siteWithPages();
    await admin().post(`${sites()}/${mine.site.id}/redirects`, {
      source: '/x',
      destination: { kind: 'external', url: 'https://example.com/m' },
    });
    await admin().post(`${sites()}/${theirs.site.id}/redirects`, {
      source: '/x',
      destination: { kind: 'external', url: 'https://example.com/t' },
    });
    const visitor = await visitorOf(mine.site);
    const lookup = (orgId: string, siteId: string) => visitor.get(`${sites(orgId)}/${siteId}/redirect?source=%2Fx`);
    const found = await lookup(org.id, mine.site.id);
    expect(found.status).toBe(200);
    expect(found.body.target).toBe('https://example.com/m');
    // The attacker's requests: another site of the same organization, the same site id under another organization.
    expect((await lookup(org.id, theirs.site.id)).status).toBe(404);
    expect((await lookup(other.id, mine.site.id)).status).toBe(404);
    // Nor may it list or write the site's redirects.
    expect((await visitor.get(`${sites()}/${mine.site.id}/redirects`)).status).toBe(403);
    expect(
      (
        await visitor.post(`${sites()}/${mine.site.id}/redirects`, {
          source: '/y',
          destination: { kind: 'external', url: 'https://evil.example' },
        })
      ).status,
    ).toBe(403);
    // An unpublished site answers its visitors nothing: at once 404 (the site is no longer
    // published), and once the token's remembered state expires (AUTH_CACHE_TTL) the token itself 401.
    await admin().post(`${sites()}/${mine.site.id}/unpublish`);
    const after = await lookup(org.id, mine.site.id);
    expect([401, 404]).toContain(after.status);
    expect(after.body.target).toBeUndefined();
  });

  it('turns the redirects of an imported .gitbook.yaml into live redirects of the sites publishing the space', async () => {
    const home = await newSpace(admin(), org.id, { title: 'Home' });
    const synced = await newSpace(admin(), org.id, { title: 'Synced docs' });
    const site = (await admin().post(sites(), { title: 'Synced site', visibility: 'public', spaces: [home.id, synced.id] })).body;
    await admin().post(`${sites()}/${site.id}/publish`);
    const siteSpaces = (await admin().get(`${sites()}/${site.id}/site-spaces`)).body.items;
    const syncedSiteSpace = siteSpaces.find((s: any) => s.space.id === synced.id);
    const base = `${sites()}/${site.id}/redirects`;
    // An existing redirect from the same source is pointed at the imported page.
    await admin().post(base, {
      source: `/${syncedSiteSpace.path}/old/guides`,
      destination: { kind: 'external', url: 'https://example.com' },
    });

    const commit = git.commit('with-redirects', {
      '.gitbook.yaml': 'root: ./docs/\nredirects:\n  old/install: guides/install.md\n  old/guides: guides/README.md\n  gone: nowhere.md\n',
      'docs/README.md': '# Welcome\n',
      'docs/SUMMARY.md': '# Table of contents\n\n* [Welcome](README.md)\n* [Guides](guides/README.md)\n  * [Install](guides/install.md)\n',
      'docs/guides/README.md': '# Guides\n',
      'docs/guides/install.md': '# Install\n\nRun it.\n',
    });
    const res = await admin().post(`/v1/spaces/${synced.id}/git/import`, { url: git.url('with-redirects'), ref: 'refs/heads/main' });
    expect(res.status).toBe(204);
    await eventually(async () => {
      const info = await admin().get(`/v1/spaces/${synced.id}/git/info`);
      if (info.body?.status === 'failed') throw new Error(JSON.stringify(info.body));
      return info.status === 200 && info.body.lastSyncedCommit === commit;
    }, 60_000);

    const tree = (await admin().get(`/v1/spaces/${synced.id}/content/pages`)).body.pages;
    const guides = tree.find((p: any) => p.title === 'Guides');
    const install = guides.pages[0];
    const live = (await admin().get(`${base}?orderBy=source`)).body.items;
    expect(live.map((r: any) => [r.source, r.destination])).toEqual([
      [`/${syncedSiteSpace.path}/old/guides`, { kind: 'site-page', siteSpaceId: syncedSiteSpace.id, pageId: guides.id }],
      [`/${syncedSiteSpace.path}/old/install`, { kind: 'site-page', siteSpaceId: syncedSiteSpace.id, pageId: install.id }],
    ]);
    const lookup = await admin().get(`${sites()}/${site.id}/redirect?source=${encodeURIComponent(`/${syncedSiteSpace.path}/old/install`)}`);
    expect(lookup.status).toBe(200);
    expect(lookup.body.target).toBe(
      `${site.urls.published ?? (await admin().get(`${sites()}/${site.id}`)).body.urls.published}${syncedSiteSpace.path}/guides/install`,
    );
  });
});

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { client, createTestOrg, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { edit, expect400, merge, newChangeRequest, newSpace, searchCaughtUp } from '../support/fixtures.ts';
import { expectMatchesGitBook } from '../support/gitbook-openapi.ts';

let t: TestApp;
let org: TestOrg;
let other: TestOrg;

beforeAll(async () => {
  t = await startTestApp();
  org = await createTestOrg(t, 'Site search org');
  other = await createTestOrg(t, 'Other site search org');
});
afterAll(() => t.close());

const admin = () => org.members.admin.api;
const sites = (orgId = org.id) => `/v1/orgs/${orgId}/sites`;

async function spaceWith(title: string, pages: { title: string; markdown: string }[]) {
  const space = await newSpace(admin(), org.id, { title });
  const cr = await newChangeRequest(admin(), space.id);
  const edited = await edit(
    admin(),
    space.id,
    cr.id,
    pages.map((p) => ({ operation: 'insert_page', title: p.title, document: { markdown: p.markdown } })),
  );
  await merge(admin(), space.id, cr.id);
  await searchCaughtUp(t, space.id);
  return { space, ids: edited.changes.map((c) => c.page.id) };
}

/** A published site of three spaces: two root site-spaces, and a section holding the third. */
async function searchableSite() {
  const guide = await spaceWith('Guide', [
    { title: 'Install', markdown: '# Install\n\nInstall the telescope on a tripod.\n\n## Calibrate\n\nCalibrate the telescope lens.\n' },
    { title: 'Weather', markdown: 'Clouds and rain.\n' },
  ]);
  const api = await spaceWith('API', [{ title: 'Telescope API', markdown: 'Point the telescope with a request.\n' }]);
  const extra = await spaceWith('Extra', [{ title: 'Mounts', markdown: 'A telescope mount holds it.\n' }]);
  const site = (await admin().post(sites(), { title: 'Searchable', visibility: 'public', spaces: [guide.space.id, api.space.id] })).body;
  await admin().post(`${sites()}/${site.id}/publish`);
  const siteSpaces = (await admin().get(`${sites()}/${site.id}/site-spaces`)).body.items;
  return { site, guide, api, extra, siteSpaces };
}

const searchUrl = (siteId: string, query = '') => `${sites()}/${siteId}/search${query}`;

/** A client holding the visitor's token a lookup of the published site's root answers. */
async function visitorOf(site: { id: string }) {
  const url = (await admin().get(`${sites()}/${site.id}`)).body.urls.published;
  const res = await admin().post('/v1/urls/published', { url });
  expect(res.status).toBe(200);
  return client(t.app, res.body.apiToken);
}

describe('site search', () => {
  it('searches every site-space, ranks pages together and groups them by space', async () => {
    const { site, guide, api } = await searchableSite();
    const res = await admin().post(searchUrl(site.id), { query: 'telescope' });
    expect(res.status).toBe(200);
    expectMatchesGitBook('searchSiteContent', res.body);
    expect(res.body.count).toBe(2);
    const bySpace = Object.fromEntries(res.body.items.map((s: any) => [s.id, s]));
    expect(Object.keys(bySpace).sort()).toEqual([guide.space.id, api.space.id].sort());
    expect(bySpace[guide.space.id]).toMatchObject({
      type: 'space',
      title: 'Guide',
      pages: [{ id: guide.ids[0], title: 'Install', path: 'install' }],
    });
    expect(bySpace[guide.space.id].pages[0].sections.map((s: any) => s.path)).toEqual(expect.arrayContaining(['install#calibrate']));
    expect(bySpace[api.space.id].pages[0]).toMatchObject({ id: api.ids[0], title: 'Telescope API' });
    const ranks = res.body.items.flatMap((s: any) => s.pages.map((p: any) => p.rank)).sort();
    expect(ranks).toEqual([1, 2]);
    expect((await admin().post(searchUrl(site.id), { query: 'nothing-matches-this' })).body).toEqual({ items: [], count: 0 });
  });

  it('pages through the ranking', async () => {
    const { site } = await searchableSite();
    const first = await admin().post(searchUrl(site.id, '?limit=1'), { query: 'telescope' });
    expect(first.body.items).toHaveLength(1);
    expect(first.body.items[0].pages[0].rank).toBe(1);
    expect(first.body.next).toBeDefined();
    const second = await admin().post(searchUrl(site.id, `?limit=1&page=${encodeURIComponent(first.body.next.page)}`), {
      query: 'telescope',
    });
    expectMatchesGitBook('searchSiteContent', second.body);
    expect(second.body.items[0].pages[0].rank).toBe(2);
    expect(second.body.items[0].id).not.toBe(first.body.items[0].id);
    expect(second.body.next).toBeUndefined();
  });

  it('narrows the search to a scope: specific, default from the current site-space, restricted, and the deprecated modes', async () => {
    const { site, guide, api, extra, siteSpaces } = await searchableSite();
    const guideSS = siteSpaces.find((s: any) => s.space.id === guide.space.id);
    const apiSS = siteSpaces.find((s: any) => s.space.id === api.space.id);
    const section = await admin().post(`${sites()}/${site.id}/sections`, { spaceId: extra.space.id, title: 'Extra' });
    expect(section.status).toBe(201);
    const spacesOf = async (body: object) => {
      const res = await admin().post(searchUrl(site.id), { query: 'telescope', ...body });
      expect(res.status).toBe(200);
      expectMatchesGitBook('searchSiteContent', res.body);
      return res.body.items.map((s: any) => s.id).sort();
    };
    const all = [guide.space.id, api.space.id, extra.space.id].sort();
    expect(await spacesOf({})).toEqual(all);
    expect(await spacesOf({ scope: { mode: 'all' } })).toEqual(all);
    expect(await spacesOf({ scope: { mode: 'specific', siteSpaceIds: [apiSS.id] } })).toEqual([api.space.id]);
    expect(await spacesOf({ siteSpaceIds: [apiSS.id] })).toEqual([api.space.id]);
    // The default scope: the default site-space of each section; the current one stands in for its own level's default.
    const sections = (await admin().get(`${sites()}/${site.id}/sections`)).body.items;
    const withApi = sections.find((s: any) => s.siteSpaces.some((p: any) => p.space.id === api.space.id));
    const apiInSection = withApi.siteSpaces.find((p: any) => p.space.id === api.space.id);
    const defaults = await spacesOf({ scope: { mode: 'default' } });
    expect(defaults).toContain(extra.space.id);
    expect(defaults).toHaveLength(2);
    expect(await spacesOf({ scope: { mode: 'default', currentSiteSpace: apiInSection.id } })).toEqual(
      [api.space.id, extra.space.id].sort(),
    );
    expect(await spacesOf({ scope: { mode: 'default', currentSiteSpace: apiInSection.id, restrictTo: 'currentSiteSpace' } })).toEqual([
      api.space.id,
    ]);
    expect(await spacesOf({ scope: { mode: 'default', currentSiteSpace: apiInSection.id, restrictTo: 'otherSiteSpaces' } })).toEqual([
      extra.space.id,
    ]);
    expect(await spacesOf({ mode: 'current', siteSpaceId: apiInSection.id })).toEqual([api.space.id, extra.space.id].sort());
    expect(guideSS).toBeDefined();
  });

  it('answers 400 for bad input, 401 without a token, 404 outside the organization', async () => {
    const { site } = await searchableSite();
    expect400(await admin().post(searchUrl(site.id), { query: '' }), /query/);
    expect400(await admin().post(searchUrl(site.id), { query: 'x'.repeat(513) }), /query/);
    expect400(await admin().post(searchUrl(site.id), {}), /query/);
    expect400(await admin().post(searchUrl(site.id), { query: 'a', scope: { mode: 'specific', siteSpaceIds: ['nope'] } }), /siteSpaceIds/);
    expect400(
      await admin().post(searchUrl(site.id), { query: 'a', scope: { mode: 'default', restrictTo: 'currentSiteSpace' } }),
      /currentSiteSpace/,
    );
    expect400(await admin().post(searchUrl(site.id), { query: 'a', scope: { mode: 'sideways' } }), /scope/);
    expect400(await admin().post(searchUrl(site.id, '?page=garbage'), { query: 'a' }), /page/);
    expect((await client(t.app).post(searchUrl(site.id), { query: 'a' })).status).toBe(401);
    for (const role of ['create', 'review', 'edit', 'comment', 'read'] as const) {
      expect((await org.members[role].api.post(searchUrl(site.id), { query: 'telescope' })).status).toBe(200);
    }
    // Guests of the organization, other organizations and other organizations' paths: 404.
    expect((await org.members.guest.api.post(searchUrl(site.id), { query: 'telescope' })).status).toBe(404);
    expect((await other.members.admin.api.post(searchUrl(site.id), { query: 'telescope' })).status).toBe(404);
    expect((await other.members.admin.api.post(`${sites(other.id)}/${site.id}/search`, { query: 'telescope' })).status).toBe(404);
  });

  it("a site visitor's token searches the spaces its site grants, and no other site", async () => {
    const mine = await searchableSite();
    const theirs = await searchableSite();
    const visitor = await visitorOf(mine.site);
    const found = await visitor.post(searchUrl(mine.site.id), { query: 'telescope' });
    expect(found.status).toBe(200);
    expect(found.body.items.map((s: { id: string }) => s.id).sort()).toEqual([mine.guide.space.id, mine.api.space.id].sort());
    expect((await visitor.post(searchUrl(theirs.site.id), { query: 'telescope' })).status).toBe(404);
    expect((await visitor.post(`${sites(other.id)}/${mine.site.id}/search`, { query: 'telescope' })).status).toBe(404);
    // A site-space the site no longer publishes is not there for the visitor, even asked for by id.
    const apiSS = mine.siteSpaces.find((s: any) => s.space.id === mine.api.space.id);
    expect((await admin().delete(`${sites()}/${mine.site.id}/site-spaces/${apiSS.id}`)).status).toBeLessThan(300);
    const scoped = await visitor.post(searchUrl(mine.site.id), {
      query: 'telescope',
      scope: { mode: 'specific', siteSpaceIds: [apiSS.id] },
    });
    expect(scoped.status).toBe(400);
    const left = await visitor.post(searchUrl(mine.site.id), { query: 'telescope' });
    expect(left.body.items.map((s: { id: string }) => s.id)).toEqual([mine.guide.space.id]);
  });
});

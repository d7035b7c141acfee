import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { decodeJwt } from 'jose';
import { client, createTestOrg, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { edit, expect400, merge, newChangeRequest, newSpace } from '../support/fixtures.ts';
import { expectMatchesGitBook } from '../support/gitbook-openapi.ts';

/**
 * Previews (getSitePublishingPreviewById): a link under SITE_PREVIEW_BASE_URL whose token opens
 * the site as it would be published, before it is, with the change requests and revisions of its
 * spaces under `~/changes/<id>/` and `~/revisions/<id>/`, the way GitBook's renderer asks for them:
 * it looks the preview URL up with the link's token, then reads with the token the lookup answers.
 */
let t: TestApp;
let org: TestOrg;
let other: TestOrg;

beforeAll(async () => {
  t = await startTestApp({ SITE_PREVIEW_BASE_URL: 'https://preview.example.com/preview/' });
  org = await createTestOrg(t, 'Preview org');
  other = await createTestOrg(t, 'Other preview org');
});
afterAll(() => t.close());

const admin = () => org.members.admin.api;
/** The site's own address (the service's scheme: PUBLIC_URL is http://docs.test in tests), published or not. */
const ownUrl = (site: { id: string; basename?: string }) => `http://docs.test/sites/${org.id}/${site.basename ?? site.id}/`;
const sites = (orgId = org.id) => `/v1/orgs/${orgId}/sites`;

/** An unpublished site showing one space (a merged page "Intro"), with an open change request adding "Draft page". */
async function previewedSite() {
  const space = await newSpace(admin(), org.id, { title: 'Manual' });
  const first = await newChangeRequest(admin(), space.id);
  await edit(admin(), space.id, first.id, [{ operation: 'insert_page', title: 'Intro', document: { markdown: 'Hello.\n' } }]);
  await merge(admin(), space.id, first.id);
  const merged = (await admin().get(`/v1/spaces/${space.id}`)).body.revision as string;
  const cr = await newChangeRequest(admin(), space.id, 'Draft');
  await edit(admin(), space.id, cr.id, [{ operation: 'insert_page', title: 'Draft page', document: { markdown: 'Not yet merged.\n' } }]);
  const site = (await admin().post(sites(), { title: 'Previewed', visibility: 'public', spaces: [space.id] })).body;
  const elsewhere = await newSpace(admin(), org.id, { title: 'Not on the site' });
  return { site, space, cr: (await admin().get(`/v1/spaces/${space.id}/change-requests/${cr.id}`)).body, merged, elsewhere };
}

/** The preview link's token and URL. */
async function previewOf(siteId: string, query = '', api = admin()) {
  const res = await api.get(`${sites()}/${siteId}/publishing/preview${query}`);
  expect(res.body.error).toBeUndefined();
  expect(res.status).toBe(200);
  expectMatchesGitBook('getSitePublishingPreviewById', res.body);
  const url = new URL(res.body.url);
  const token = url.searchParams.get('token')!;
  url.searchParams.delete('token');
  return { url: url.toString(), token };
}

describe('GET /v1/orgs/{organizationId}/sites/{siteId}/publishing/preview', () => {
  it('answers a link under the preview base whose token opens the unpublished site, and nothing else opens it', async () => {
    const { site, space } = await previewedSite();
    const { url, token } = await previewOf(site.id);
    expect(url).toBe(`https://preview.example.com/preview/${site.id}/`);
    const claims = decodeJwt(token);
    expect(claims).toMatchObject({ kind: 'site', site: site.id, preview: true, spaces: [space.id] });
    expect(claims.exp! - claims.iat!).toBe(3600);

    const previewer = client(t.app, token);
    const lookup = await previewer.post('/v1/urls/published', { url: `${url}intro` });
    expect(lookup.status).toBe(200);
    expectMatchesGitBook('resolvePublishedContentByUrl', lookup.body);
    expect(lookup.body).toMatchObject({
      site: site.id,
      space: space.id,
      pathname: 'intro',
      page: expect.any(String),
      preview: true,
      basePath: `/preview/${site.id}/`,
      siteBasePath: `/preview/${site.id}/`,
      canonicalUrl: `https://preview.example.com/preview/${site.id}/intro`,
    });
    // What GitBook's renderer reads next, with the token the lookup answered: the site, though unpublished.
    const reader = client(t.app, lookup.body.apiToken);
    const published = await reader.get(`${sites()}/${site.id}/published`);
    expect(published.status).toBe(200);
    expect((await reader.get(`/v1/spaces/${space.id}/content/page/${lookup.body.page}`)).status).toBe(200);

    // The attacker's requests: the preview URL without the preview's token (a member's API token,
    // the renderer's lookup token, no token), and the site's own URL while it is unpublished.
    expect((await admin().post('/v1/urls/published', { url: `${url}intro` })).status).toBe(404);
    const lookupToken = (await admin().post(`/v1/orgs/${org.id}/site-lookup-tokens`, { label: 'renderer' })).body.token;
    expect((await client(t.app, lookupToken).post('/v1/urls/published', { url: `${url}intro` })).status).toBe(404);
    expect((await client(t.app).post('/v1/urls/published', { url: `${url}intro` })).status).toBe(401);
    // The site's own address: the preview's token opens it too; no one else while it is unpublished.
    expect((await previewer.post('/v1/urls/published', { url: ownUrl(site) })).body).toMatchObject({ site: site.id, space: space.id });
    expect((await admin().post('/v1/urls/published', { url: ownUrl(site) })).status).toBe(404);
  });

  it("a change request and a revision preview with their own pages, read with the lookup's token", async () => {
    const { site, space, cr, merged } = await previewedSite();
    const { url, token } = await previewOf(site.id);
    const previewer = client(t.app, token);

    // As a client gives the whole URL: the change request's page resolves in its revision.
    const changes = await previewer.post('/v1/urls/published', { url: `${url}~/changes/${cr.id}/draft-page` });
    expect(changes.status).toBe(200);
    expectMatchesGitBook('resolvePublishedContentByUrl', changes.body);
    expect(changes.body).toMatchObject({
      changeRequest: cr.id,
      pathname: 'draft-page',
      basePath: `/preview/${site.id}/~/changes/${cr.id}/`,
    });
    expect(changes.body.revision).toBeUndefined();
    const draftPage = changes.body.page as string;
    expect(draftPage).toEqual(expect.any(String));
    // The page is not in the space's content, which the site itself shows.
    expect((await previewer.post('/v1/urls/published', { url: `${url}draft-page` })).body.page).toBeUndefined();

    // As GitBook's renderer asks: the URL before `~`, then the change request and its revision by id.
    const root = await previewer.post('/v1/urls/published', { url });
    expect(root.body.revision).toBeUndefined();
    const reader = client(t.app, root.body.apiToken);
    const read = await reader.get(`/v1/spaces/${space.id}/change-requests/${cr.id}`);
    expect(read.status).toBe(200);
    expectMatchesGitBook('getChangeRequestById', read.body);
    expect((await reader.get(`/v1/spaces/${space.id}/change-requests/${cr.id}/changes`)).status).toBe(200);
    const document = await reader.get(`/v1/spaces/${space.id}/revisions/${cr.revision}/page/${draftPage}/document`);
    expect(document.status).toBe(200);
    expect(JSON.stringify(document.body)).toContain('Not yet merged.');
    expect((await reader.get(`/v1/spaces/${space.id}/change-requests/${cr.id}/content/page/${draftPage}`)).status).toBe(200);

    // A revision of the space, by id.
    const revision = await previewer.post('/v1/urls/published', { url: `${url}~/revisions/${merged}/intro` });
    expect(revision.status).toBe(200);
    expect(revision.body).toMatchObject({ revision: merged, pathname: 'intro', page: expect.any(String) });
    expect((await reader.get(`/v1/spaces/${space.id}/revisions/${merged}`)).status).toBe(200);

    // Unknown ids, and ids of another space.
    const foreign = await newSpace(other.members.admin.api, other.id, { title: 'Theirs' });
    const theirs = await newChangeRequest(other.members.admin.api, foreign.id);
    expect((await previewer.post('/v1/urls/published', { url: `${url}~/changes/nope/` })).status).toBe(404);
    expect((await previewer.post('/v1/urls/published', { url: `${url}~/changes/${theirs.id}/` })).status).toBe(404);
    expect((await previewer.post('/v1/urls/published', { url: `${url}~/revisions/${theirs.revision}/` })).status).toBe(404);
    expect((await reader.get(`/v1/spaces/${foreign.id}/change-requests/${theirs.id}`)).status).toBe(404);
    expect((await reader.get(`/v1/spaces/${space.id}/revisions/${theirs.revision}`)).status).toBe(404);
  });

  it("a preview's token reads the site's content and nothing else, and a visitor's token no change request", async () => {
    const { site, space, cr, elsewhere } = await previewedSite();
    const { url, token } = await previewOf(site.id);
    const reader = client(t.app, (await client(t.app, token).post('/v1/urls/published', { url })).body.apiToken);
    for (const api of [client(t.app, token), reader]) {
      expect((await api.get(`/v1/spaces/${elsewhere.id}`)).status).toBe(404);
      expect((await api.get(`/v1/orgs/${org.id}/spaces`)).status).toBe(403);
      expect((await api.post(`/v1/spaces/${space.id}/change-requests`, { subject: 'x' })).status).toBe(403);
      expect((await api.post(`/v1/spaces/${space.id}/change-requests/${cr.id}/merge`)).status).toBe(403);
      expect((await api.get(`/v1/orgs/${org.id}/sites/${site.id}/publishing/preview`)).status).toBe(403);
    }

    // Once published, a reader's own token (no preview) reads neither the change request nor its URL.
    const published = (await admin().post(`${sites()}/${site.id}/publish`)).body;
    const lookup = await admin().post('/v1/urls/published', { url: published.urls.published });
    const visitor = client(t.app, lookup.body.apiToken);
    expect(lookup.body.preview).toBeUndefined();
    expect((await visitor.get(`/v1/spaces/${space.id}/change-requests/${cr.id}`)).status).toBe(403);
    expect((await visitor.get(`/v1/spaces/${space.id}/revisions/${cr.revision}`)).status).toBe(404);
    expect((await visitor.post('/v1/urls/published', { url: `${published.urls.published}~/changes/${cr.id}/` })).status).toBe(404);
    expect((await admin().post('/v1/urls/published', { url: `${published.urls.published}~/changes/${cr.id}/` })).status).toBe(404);

    // Regenerating the site's signing key ends every preview.
    await admin().post(`${sites()}/${site.id}/publishing/auth/regenerate`);
    expect((await client(t.app, token).post('/v1/urls/published', { url })).status).toBe(401);
    expect((await reader.get(`/v1/spaces/${space.id}`)).status).toBe(401);
  });

  it('previews a site-space, as the visitor the claims describe, on a target, and refuses what does not fit', async () => {
    const { site } = await previewedSite();
    const second = await newSpace(admin(), org.id, { title: 'Second' });
    const added = await admin().post(`${sites()}/${site.id}/site-spaces`, { spaceId: second.id });
    expect(added.status).toBe(201);
    const siteSpace = added.body;
    const { url, token } = await previewOf(
      site.id,
      `?siteSpace=${siteSpace.id}&claims=${encodeURIComponent("(plan:pro,seats:3,beta:!t,name:'A b')")}`,
    );
    expect(url).toBe(`https://preview.example.com/preview/${site.id}/${siteSpace.path}`);
    expect(decodeJwt(token)).toMatchObject({
      siteSpace: siteSpace.id,
      space: second.id,
      claims: { plan: 'pro', seats: 3, beta: true, name: 'A b' },
    });
    const lookup = await client(t.app, token).post('/v1/urls/published', { url });
    expect(lookup.body).toMatchObject({ siteSpace: siteSpace.id, space: second.id });
    expect(decodeJwt(lookup.body.apiToken)).toMatchObject({ preview: true, claims: { plan: 'pro', unsigned: {} } });

    expect((await previewOf(site.id, `?target=${encodeURIComponent('/intro')}`)).url).toBe(
      `https://preview.example.com/preview/${site.id}/intro`,
    );
    expect((await previewOf(site.id, `?target=${encodeURIComponent(`${ownUrl(site)}intro`)}`)).url).toBe(
      `https://preview.example.com/preview/${site.id}/intro`,
    );
    expect((await previewOf(site.id, '?draft=false')).url).toBe(`https://preview.example.com/preview/${site.id}/`);

    const preview = (query: string, api = admin()) => api.get(`${sites()}/${site.id}/publishing/preview${query}`);
    expect400(await preview(`?claims=${encodeURIComponent('(plan:pro')}`), /claims is not valid rison/);
    expect400(await preview(`?claims=${encodeURIComponent('!(1,2)')}`), /claims must be a rison object/);
    expect400(await preview(`?claims=${'('.repeat(40)}`), /claims/);
    expect400(await preview('?siteSpace=nope'), /siteSpace/);
    expect400(await preview(`?target=${encodeURIComponent('https://evil.example.com/x')}`), /target/);
    expect400(await preview(`?target=${encodeURIComponent('//evil.example.com/x')}`), /target/);
    expect((await preview('', org.members.read.api)).status).toBe(200);
    expect((await preview('', other.members.admin.api)).status).toBe(404);
    expect((await preview('', org.members.guest.api)).status).toBe(403);
    expect((await admin().get(`${sites()}/nope/publishing/preview`)).status).toBe(404);
  });
});

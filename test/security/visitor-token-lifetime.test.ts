import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { decodeJwt, SignJWT } from 'jose';
import { client, createTestOrg, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { edit, merge, newChangeRequest, newSpace } from '../support/fixtures.ts';
import { sql } from '../support/sql.ts';

/**
 * How long a site visitor's token reads, attacked: a visitor whose visitor-auth JWT expires in a
 * few seconds must not come away with an `apiToken` good for an hour, and a token minted before
 * a merge deleted a page must stop reading that page once the site publishes the new revision
 * (VISITOR_REVISION_GRACE, here 2 s; the revision's age is moved back instead of waiting).
 */

let t: TestApp;
let org: TestOrg;
const SITES = 'http://docs.test/sites';
const admin = () => org.members.admin.api;
const siteBase = (siteId: string) => `/v1/orgs/${org.id}/sites/${siteId}`;

beforeAll(async () => {
  t = await startTestApp({ AUTH_CACHE_TTL: '0s', VISITOR_REVISION_GRACE: '2s' });
  org = await createTestOrg(t, 'Token lifetime');
});
afterAll(() => t.close());

async function publishedSite(visibility: string) {
  const space = await newSpace(admin(), org.id, { title: 'Docs' });
  const site = (await admin().post(`/v1/orgs/${org.id}/sites`, { title: 'Site', visibility, spaces: [space.id] })).body;
  expect((await admin().post(`${siteBase(site.id)}/publish`)).status).toBe(200);
  return { site, space, url: `${SITES}/${org.id}/${site.id}/` };
}

describe("a visitor's token never outlives the visitor's JWT", () => {
  it('expires when the JWT does, by POST and by the deprecated GET', async () => {
    const { site, url } = await publishedSite('visitor-auth');
    const key = (await admin().get(`${siteBase(site.id)}/publishing/auth`)).body.privateKey;
    const jwtExp = Math.floor(Date.now() / 1000) + 4;
    const jwt = await new SignJWT({ plan: 'pro' })
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime(jwtExp)
      .sign(new TextEncoder().encode(key));
    const viaPost = await admin().post('/v1/urls/published', { url, visitor: { jwtToken: jwt } });
    expect(viaPost.status).toBe(200);
    const viaGet = await admin().get(`/v1/urls/published?url=${encodeURIComponent(url)}&visitorAuthToken=${jwt}`);
    expect(viaGet.status).toBe(200);
    for (const answer of [viaPost.body, viaGet.body]) {
      const claims = decodeJwt(answer.apiToken);
      expect(claims.exp).toBeLessThanOrEqual(jwtExp);
      expect(claims.iat).toBeLessThanOrEqual(claims.exp!);
      // It reads while the JWT holds.
      expect((await client(t.app, answer.apiToken).get(`/v1/spaces/${answer.space}`)).status).toBe(200);
    }
    // A JWT good for a day still gives the usual token (an hour and some).
    const longJwt = await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('1d').sign(new TextEncoder().encode(key));
    const long = decodeJwt((await admin().post('/v1/urls/published', { url, visitor: { jwtToken: longJwt } })).body.apiToken);
    expect(long.exp! - Math.floor(Date.now() / 1000)).toBeGreaterThan(3000);
  });
});

describe('content removed from a published site', () => {
  it('stops being readable with a token minted before, once the grace after the new revision has passed', async () => {
    const { space, url } = await publishedSite('public');
    const cr = await newChangeRequest(admin(), space.id, 'Add');
    const added = await edit(admin(), space.id, cr.id, [
      { operation: 'insert_page', title: 'Leaked plans', document: { markdown: 'Secret.' } },
    ]);
    await merge(admin(), space.id, cr.id);
    const pageId = added.changes[0].page.id;
    const before = (await admin().post('/v1/urls/published', { url })).body;
    const reader = client(t.app, before.apiToken);
    const pinned = `/v1/spaces/${space.id}/revisions/${before.revision}`;
    expect((await reader.get(`${pinned}/page/${pageId}`)).status).toBe(200);

    // A merge deletes the page: the site now publishes a revision without it.
    const removal = await newChangeRequest(admin(), space.id, 'Remove');
    await edit(admin(), space.id, removal.id, [{ operation: 'delete_page', page: pageId }]);
    await merge(admin(), space.id, removal.id);
    const current = (await admin().get(`/v1/spaces/${space.id}`)).body.revision;
    expect(current).not.toBe(before.revision);
    // Within the grace a page being read still loads.
    expect((await reader.get(`${pinned}/page/${pageId}`)).status).toBe(200);
    // Once the new revision is older than the grace (moved back rather than waited for), the old one is refused.
    await sql(t.orm.em.fork(), "update revision set created_at = created_at - interval '1 minute' where id = ?", [current]);
    for (const path of ['', '/pages', `/page/${pageId}`, `/page/${pageId}/document`, '/files']) {
      const res = await reader.get(`${pinned}${path}`);
      expect([path, res.status]).toEqual([path, 404]);
      expect(res.body.error.code).toBe(404);
    }
    // The token still reads what the site publishes now.
    expect((await reader.get(`/v1/spaces/${space.id}/revisions/${current}`)).status).toBe(200);
    expect((await reader.get(`/v1/spaces/${space.id}/content/page/${pageId}`)).status).toBe(404);
  });

  it('stops being readable at once when the site-space is removed or the site unpublished', async () => {
    const { site, space, url } = await publishedSite('public');
    const token = (await admin().post('/v1/urls/published', { url })).body.apiToken;
    const reader = client(t.app, token);
    expect((await reader.get(`/v1/spaces/${space.id}/content`)).status).toBe(200);
    await admin().post(`${siteBase(site.id)}/unpublish`);
    expect((await reader.get(`/v1/spaces/${space.id}/content`)).status).toBe(401);
    await admin().post(`${siteBase(site.id)}/publish`);
    const siteSpaces = (await admin().get(`${siteBase(site.id)}/site-spaces`)).body.items;
    expect((await admin().delete(`${siteBase(site.id)}/site-spaces/${siteSpaces[0].id}`)).status).toBeLessThan(300);
    expect((await reader.get(`/v1/spaces/${space.id}/content`)).status).toBe(404);
  });
});

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { SignJWT } from 'jose';
import { client, createTestOrg, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { edit, newChangeRequest, newSpace } from '../support/fixtures.ts';

/**
 * Adaptive content attacked: a site visitor whose claims exclude a `{% if %}` branch asks for the
 * page every way the API answers one (markdown, documents without `evaluated`, with
 * `evaluated=false`, the revision and its page tree, by id and by path) and must never receive
 * the branch. A visitor whose claims include it, and a member, still do.
 */

let t: TestApp;
let org: TestOrg;
const SITES = 'http://docs.test/sites';
const SECRET = 'PRO-ONLY-ROADMAP';
const MARKDOWN = [
  '# Pricing',
  '',
  '{% if visitor.claims.plan == "pro" %}',
  `The ${SECRET} is here.`,
  '{% else %}',
  'Upgrade to see more.',
  '{% endif %}',
  '',
].join('\n');

let spaceId: string;
let pageId: string;
let revision: string;
let url: string;
let key: string;

beforeAll(async () => {
  t = await startTestApp();
  org = await createTestOrg(t, 'Adaptive reads');
  const admin = org.members.admin.api;
  const space = await newSpace(admin, org.id, { title: 'Adaptive' });
  spaceId = space.id;
  const cr = await newChangeRequest(admin, spaceId, 'Pricing');
  const edited = await edit(admin, spaceId, cr.id, [{ operation: 'insert_page', title: 'Pricing', document: { markdown: MARKDOWN } }]);
  pageId = edited.changes[0].page.id;
  const merged = await admin.post(`/v1/spaces/${spaceId}/change-requests/${cr.id}/merge`);
  expect([merged.status, merged.body]).toEqual([200, expect.objectContaining({ result: 'merge' })]);
  revision = (await admin.get(`/v1/spaces/${spaceId}`)).body.revision;
  const site = (await admin.post(`/v1/orgs/${org.id}/sites`, { title: 'Adaptive', visibility: 'visitor-auth', spaces: [spaceId] })).body;
  await admin.post(`/v1/orgs/${org.id}/sites/${site.id}/publish`);
  key = (await admin.get(`/v1/orgs/${org.id}/sites/${site.id}/publishing/auth`)).body.privateKey;
  url = `${SITES}/${org.id}/${site.id}/`;
});
afterAll(() => t.close());

async function visitorWith(claims: object) {
  const jwtToken = await new SignJWT({ ...claims })
    .setProtectedHeader({ alg: 'HS256' })
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode(key));
  const res = await org.members.admin.api.post('/v1/urls/published', { url, visitor: { jwtToken } });
  expect(res.status).toBe(200);
  return client(t.app, res.body.apiToken);
}

/** Every read that answers the page's content. */
const reads = () => [
  `/v1/spaces/${spaceId}/content`,
  `/v1/spaces/${spaceId}/content/pages`,
  `/v1/spaces/${spaceId}/content/page/${pageId}`,
  `/v1/spaces/${spaceId}/content/page/${pageId}?format=markdown`,
  `/v1/spaces/${spaceId}/content/page/${pageId}?format=document`,
  `/v1/spaces/${spaceId}/revisions/${revision}`,
  `/v1/spaces/${spaceId}/revisions/${revision}?metadata=true`,
  `/v1/spaces/${spaceId}/revisions/${revision}/pages`,
  `/v1/spaces/${spaceId}/revisions/${revision}/page/${pageId}`,
  `/v1/spaces/${spaceId}/revisions/${revision}/page/${pageId}?format=markdown`,
  `/v1/spaces/${spaceId}/revisions/${revision}/page/${pageId}?format=document`,
  `/v1/spaces/${spaceId}/revisions/${revision}/page/${pageId}?format=document&evaluated=false`,
  `/v1/spaces/${spaceId}/revisions/${revision}/path/pricing`,
  `/v1/spaces/${spaceId}/revisions/${revision}/path/pricing?format=document`,
  `/v1/spaces/${spaceId}/revisions/${revision}/page/${pageId}/document`,
  `/v1/spaces/${spaceId}/revisions/${revision}/page/${pageId}/document?evaluated=false`,
  `/v1/spaces/${spaceId}/revisions/${revision}/page/${pageId}/document?evaluated=false&dereferenced=false`,
];

describe('adaptive content on every read', () => {
  it('never gives a visitor the branch their claims exclude', async () => {
    const visitor = await visitorWith({ plan: 'free' });
    for (const path of reads()) {
      const res = await visitor.get(path);
      expect([path, res.status]).toEqual([path, 200]);
      expect([path, JSON.stringify(res.body).includes(SECRET)]).toEqual([path, false]);
    }
    // The page itself still reads, with the branch their claims include.
    const page = (await visitor.get(`/v1/spaces/${spaceId}/content/page/${pageId}`)).body;
    expect(page.markdown.trim()).toBe('# Pricing\n\nUpgrade to see more.');
  });

  it('gives a visitor whose claims include the branch, and a member, the branch', async () => {
    const visitor = await visitorWith({ plan: 'pro' });
    const page = (await visitor.get(`/v1/spaces/${spaceId}/revisions/${revision}/page/${pageId}`)).body;
    expect(page.markdown).toContain(SECRET);
    expect(page.markdown).not.toContain('Upgrade');
    const document = (await visitor.get(`/v1/spaces/${spaceId}/revisions/${revision}/page/${pageId}/document?evaluated=false`)).body;
    expect(JSON.stringify(document)).toContain(SECRET);
    expect(JSON.stringify(document)).not.toContain('Upgrade');
    // A free visitor reading after the pro one is not answered what was kept for the pro one.
    const free = await visitorWith({ plan: 'free' });
    expect(JSON.stringify((await free.get(`/v1/spaces/${spaceId}/revisions/${revision}`)).body)).not.toContain(SECRET);
    // A member reads the source as written.
    const member = (await org.members.admin.api.get(`/v1/spaces/${spaceId}/content/page/${pageId}`)).body;
    expect(member.markdown.trim()).toBe(MARKDOWN.trim());
  });
});

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { SignJWT } from 'jose';
import { client, createTestOrg, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { edit, merge, newChangeRequest, newSpace, searchCaughtUp } from '../support/fixtures.ts';
import { expectMatchesGitBook } from '../support/gitbook-openapi.ts';

/**
 * Site search and adaptive content: a visitor whose claims exclude a `{% if %}` branch searches
 * for what the branch holds, and for words beside it, and must find neither the branch's text nor
 * the pages only it matches. A visitor whose claims include it, and a member, find it.
 */

let t: TestApp;
let org: TestOrg;
const SECRET = 'secret-word';
const PRICING = [
  '# Pricing',
  '',
  'Plans for every team.',
  '',
  '{% if visitor.claims.plan == "pro" %}',
  `The ${SECRET} roadmap is here.`,
  '{% endif %}',
  '',
  '## Support',
  '',
  'Support answers by email.',
  '',
].join('\n');
const ROADMAP = [
  'Public roadmap notes.',
  '',
  '{% if visitor.claims.plan == "pro" %}',
  `Enterprise ${SECRET} timeline.`,
  '{% endif %}',
  '',
].join('\n');

let siteId: string;
let key: string;
let url: string;
let ids: { pricing: string; roadmap: string };

beforeAll(async () => {
  t = await startTestApp();
  org = await createTestOrg(t, 'Site search claims');
  const admin = org.members.admin.api;
  const space = await newSpace(admin, org.id, { title: 'Plans' });
  const cr = await newChangeRequest(admin, space.id, 'Pages');
  const edited = await edit(admin, space.id, cr.id, [
    { operation: 'insert_page', title: 'Pricing', document: { markdown: PRICING } },
    { operation: 'insert_page', title: 'Roadmap', document: { markdown: ROADMAP } },
  ]);
  ids = { pricing: edited.changes[0].page.id, roadmap: edited.changes[1].page.id };
  await merge(admin, space.id, cr.id);
  await searchCaughtUp(t, space.id);
  const site = (await admin.post(`/v1/orgs/${org.id}/sites`, { title: 'Plans', visibility: 'visitor-auth', spaces: [space.id] })).body;
  siteId = site.id;
  expect((await admin.post(`/v1/orgs/${org.id}/sites/${siteId}/publish`)).status).toBe(200);
  key = (await admin.get(`/v1/orgs/${org.id}/sites/${siteId}/publishing/auth`)).body.privateKey;
  url = `http://docs.test/sites/${org.id}/${siteId}/`;
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

const search = (api: ReturnType<typeof client>, query: string, params = '') =>
  api.post(`/v1/orgs/${org.id}/sites/${siteId}/search${params}`, { query });
const pagesOf = (body: any) => body.items.flatMap((s: any) => s.pages);

describe('site search of adaptive content', () => {
  it('never finds a visitor the text their claims exclude', async () => {
    const visitor = await visitorWith({ plan: 'free' });
    // The exact hidden word: nothing, and nothing counted.
    const exact = await search(visitor, SECRET);
    expect(exact.status).toBe(200);
    expect(exact.body).toEqual({ items: [], count: 0 });
    // A word of the visible part of a section that also holds hidden text: the section, without it.
    const beside = await search(visitor, 'plans');
    expectMatchesGitBook('searchSiteContent', beside.body);
    expect(beside.body.count).toBe(1);
    const [pricing] = pagesOf(beside.body);
    expect(pricing).toMatchObject({ id: ids.pricing, rank: 1, resultType: 'section' });
    expect(pricing.sections).toEqual([
      expect.objectContaining({ id: 'pricing', title: 'Pricing', body: expect.stringContaining('Plans for every team') }),
    ]);
    expect(JSON.stringify(beside.body)).not.toContain('secret');
  });

  it('drops, and does not count, a page only its hidden text matches', async () => {
    const visitor = await visitorWith({ plan: 'free' });
    const res = await search(visitor, 'roadmap');
    expect(res.body.count).toBe(1);
    expect(pagesOf(res.body).map((p: any) => [p.id, p.rank])).toEqual([[ids.roadmap, 1]]);
    expect(JSON.stringify(res.body)).not.toContain('secret');
    // Paged one at a time, the visitor still meets the visible page only.
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let i = 0; i < 5; i++) {
      const page = await search(visitor, 'roadmap', `?limit=1${cursor ? `&page=${encodeURIComponent(cursor)}` : ''}`);
      expect(page.status).toBe(200);
      expect(JSON.stringify(page.body)).not.toContain('secret');
      seen.push(...pagesOf(page.body).map((p: any) => p.id));
      cursor = page.body.next?.page;
      if (!cursor) break;
    }
    expect(seen).toEqual([ids.roadmap]);
  });

  it('finds a visitor whose claims include the branch, and a member, the hidden text', async () => {
    const pro = await visitorWith({ plan: 'pro' });
    const member = org.members.admin.api;
    for (const api of [pro, member]) {
      const res = await search(api, SECRET);
      expect(res.status).toBe(200);
      expectMatchesGitBook('searchSiteContent', res.body);
      expect(res.body.count).toBe(2);
      expect(
        pagesOf(res.body)
          .map((p: any) => p.id)
          .sort(),
      ).toEqual([ids.pricing, ids.roadmap].sort());
      expect(JSON.stringify(res.body)).toContain(SECRET);
      expect((await search(api, 'roadmap')).body.count).toBe(2);
    }
  });
});

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { addMember, client, createTestOrg, eventually, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { edit, expect400, merge, newChangeRequest, newSpace } from '../support/fixtures.ts';
import { expectMatchesGitBook } from '../support/gitbook-openapi.ts';
import { petstore31, yaml } from '../support/openapi-fixtures.ts';

/**
 * What a reader of a published site asks besides pages: the published site, users (authors),
 * embeds in a space and the latest content of an OpenAPI spec; for members and for a site visitor's
 * token, which opens its own site and nothing else.
 */
let t: TestApp;
let org: TestOrg;
let other: TestOrg;

beforeAll(async () => {
  t = await startTestApp();
  org = await createTestOrg(t, 'Readers org');
  other = await createTestOrg(t, 'Other readers org');
});
afterAll(() => t.close());

const admin = () => org.members.admin.api;
const sites = (orgId = org.id) => `/v1/orgs/${orgId}/sites`;

/** A client holding the visitor's token a lookup of the published site's root answers. */
async function visitorOf(site: { urls: { published: string } }) {
  const res = await admin().post('/v1/urls/published', { url: site.urls.published });
  expect(res.status).toBe(200);
  return client(t.app, res.body.apiToken);
}

async function publishedSite() {
  const space = await newSpace(admin(), org.id, { title: 'Manual' });
  const cr = await newChangeRequest(admin(), space.id);
  await edit(admin(), space.id, cr.id, [{ operation: 'insert_page', title: 'Endpoints', document: { markdown: 'All of them.\n' } }]);
  await merge(admin(), space.id, cr.id);
  const second = await newSpace(admin(), org.id, { title: 'Second' });
  const site = (await admin().post(sites(), { title: 'Readable', visibility: 'public', spaces: [space.id, second.id] })).body;
  const published = (await admin().post(`${sites()}/${site.id}/publish`)).body;
  return { site: published, space, second };
}

describe('GET /v1/users/{userId}', () => {
  it('answers a user who shares an organization with the caller, and 404 for anyone else', async () => {
    const res = await org.members.read.api.get(`/v1/users/${org.members.admin.userId}`);
    expect(res.status).toBe(200);
    expectMatchesGitBook('getUserById', res.body);
    expect(res.body).toMatchObject({ object: 'user', id: org.members.admin.userId, displayName: 'admin user', email: expect.any(String) });
    expect((await admin().get(`/v1/users/${org.members.admin.userId}`)).status).toBe(200);
    expect((await org.members.guest.api.get(`/v1/users/${org.members.read.userId}`)).status).toBe(200);
    // The attacker's requests: a user of another organization, by id, from both sides.
    expect((await admin().get(`/v1/users/${other.members.admin.userId}`)).status).toBe(404);
    expect((await other.members.admin.api.get(`/v1/users/${org.members.read.userId}`)).status).toBe(404);
    expect((await admin().get('/v1/users/nobody')).body).toEqual({ error: { code: 404, message: 'User not found' } });
    expect((await client(t.app).get(`/v1/users/${org.members.admin.userId}`)).status).toBe(401);
    expect400(await admin().get(`/v1/users/${'x'.repeat(65)}`), /userId/);
    // Once they share an organization, they see each other.
    const third = await createTestOrg(t, 'Shared org');
    await addMember(t, third.id, other.members.comment.userId, 'read');
    await addMember(t, third.id, org.members.comment.userId, 'read');
    expect((await org.members.comment.api.get(`/v1/users/${other.members.comment.userId}`)).status).toBe(200);
  });

  it("a site visitor's token sees the members of the site's organization, without their emails", async () => {
    const { site } = await publishedSite();
    const visitor = await visitorOf(site);
    const user = await visitor.get(`/v1/users/${org.members.admin.userId}`);
    expect(user.body).toEqual({ object: 'user', id: org.members.admin.userId, displayName: 'admin user', urls: expect.any(Object) });
    expect((await visitor.get(`/v1/users/${other.members.admin.userId}`)).status).toBe(404);
    expect((await visitor.get(`/v1/users/visitor:${site.id}`)).status).toBe(404);
  });
});

describe('GET /v1/spaces/{spaceId}/embed', () => {
  it('describes a published page, a plain link for any other address, for readers of the space', async () => {
    const { site, space } = await publishedSite();
    const pageUrl = `${site.urls.published}endpoints`;
    const embed = async (url: string, api = admin(), spaceId = space.id) =>
      api.get(`/v1/spaces/${spaceId}/embed?url=${encodeURIComponent(url)}`);
    const res = await embed(pageUrl);
    expect(res.status).toBe(200);
    expectMatchesGitBook('getEmbedByUrlInSpace', res.body);
    expect(res.body).toEqual({ title: 'Endpoints', site: 'Readable', type: 'link' });
    expect((await embed('https://www.youtube.com/watch?v=abc')).body).toEqual({
      title: 'https://www.youtube.com/watch?v=abc',
      site: 'www.youtube.com',
      type: 'link',
    });
    expect((await embed('https://www.youtube.com/watch?v=abc', org.members.read.api)).status).toBe(200);
    expect400(await embed('not a url'), /url/);
    expect400(await embed('file:///etc/passwd'), /url/);
    expect400(await admin().get(`/v1/spaces/${space.id}/embed`), /url/);
    expect((await embed(pageUrl, other.members.admin.api)).status).toBe(404);
    expect((await embed(pageUrl, client(t.app))).status).toBe(401);
    expect((await embed(pageUrl, admin(), 'nope')).status).toBe(404);
  });

  it("a site visitor's token asks for embeds in the spaces of its site only", async () => {
    const { site, space, second } = await publishedSite();
    const elsewhere = await newSpace(admin(), org.id, { title: 'Not published' });
    const visitor = await visitorOf(site);
    const embed = (spaceId: string) => visitor.get(`/v1/spaces/${spaceId}/embed?url=${encodeURIComponent('https://example.com/a')}`);
    for (const spaceId of [space.id, second.id]) {
      expect((await embed(spaceId)).body).toEqual({ title: 'https://example.com/a', site: 'example.com', type: 'link' });
    }
    expect((await embed(elsewhere.id)).status).toBe(404);
  });
});

describe('GET /v1/orgs/{organizationId}/sites/{siteId}/published', () => {
  it("answers GitBook's PublishedContentSite to members, and to the site's visitor the spaces granted", async () => {
    const { site, space, second } = await publishedSite();
    const res = await org.members.read.api.get(`${sites()}/${site.id}/published`);
    expect(res.status).toBe(200);
    expectMatchesGitBook('getPublishedContentSite', res.body);
    expect(res.body.structure.structure.map((s: any) => s.space.id)).toEqual([space.id, second.id]);

    const visitor = await visitorOf(site);
    const seen = await visitor.get(`${sites()}/${site.id}/published`);
    expect(seen.status).toBe(200);
    expectMatchesGitBook('getPublishedContentSite', seen.body);
    expect(seen.body.structure.structure.map((s: any) => s.space.id)).toEqual([space.id, second.id]);
    expect(seen.body.site.permissions.edit).toBe(false);
    // The attacker's requests: another site of the organization, this site under another organization.
    // Their own visitor reads theirs first: what it was answered is never answered to another site's visitor.
    const theirs = await publishedSite();
    expect((await (await visitorOf(theirs.site)).get(`${sites()}/${theirs.site.id}/published`)).status).toBe(200);
    expect((await visitor.get(`${sites()}/${theirs.site.id}/published`)).status).toBe(404);
    expect((await visitor.get(`${sites(other.id)}/${site.id}/published`)).status).toBe(404);
    // A site-space removed from the site leaves the visitor's view and the members' view at once (the
    // visitor's answer is kept only until a write is heard).
    const removed = (await admin().get(`${sites()}/${site.id}/site-spaces`)).body.items.find((s: any) => s.space.id === second.id);
    expect((await admin().delete(`${sites()}/${site.id}/site-spaces/${removed.id}`)).status).toBeLessThan(300);
    const members = await org.members.read.api.get(`${sites()}/${site.id}/published`);
    expect(members.body.structure.structure.map((s: any) => s.space.id)).toEqual([space.id]);
    const after = await visitor.get(`${sites()}/${site.id}/published`);
    expect(after.body.structure.structure.map((s: any) => s.space.id)).toEqual([space.id]);

    expect((await other.members.admin.api.get(`${sites()}/${site.id}/published`)).status).toBe(404);
  });
});

describe('GET /v1/orgs/{organizationId}/openapi/{specSlug}/versions/latest/content', () => {
  it("opens the organization's specs to its site's visitor, the latest content only", async () => {
    const { site } = await publishedSite();
    const text = yaml(petstore31).body;
    expect((await admin().post(`/v1/orgs/${org.id}/openapi`, { slug: 'readers', source: { text } })).status).toBe(201);
    const spec = await eventually(async () => {
      const res = await admin().get(`/v1/orgs/${org.id}/openapi/readers`);
      if (res.body.lastProcessErrorCode) throw new Error(JSON.stringify(res.body));
      return res.body.processingState === 'complete' && res.body.lastVersion ? res.body : undefined;
    }, 60_000);
    const member = await admin().get(`/v1/orgs/${org.id}/openapi/readers/versions/latest/content`);
    expectMatchesGitBook('getLatestOpenAPISpecVersionContent', member.body);
    expect(member.body.filesystem).toEqual([
      { dir: '.', isEntrypoint: true, references: [], filename: 'openapi.yaml', specification: petstore31 },
    ]);
    const visitor = await visitorOf(site);
    const latest = await visitor.get(`/v1/orgs/${org.id}/openapi/readers/versions/latest/content`);
    expect(latest.body).toEqual(member.body);
    // Not a version by id, nor the list of specs, nor another organization's specs.
    expect((await visitor.get(`/v1/orgs/${org.id}/openapi/readers/versions/${spec.lastVersion}/content`)).status).toBe(403);
    expect((await visitor.get(`/v1/orgs/${org.id}/openapi`)).status).toBe(403);
    expect((await visitor.get(`/v1/orgs/${other.id}/openapi/readers/versions/latest/content`)).status).toBe(404);
    expect((await other.members.admin.api.get(`/v1/orgs/${org.id}/openapi/readers/versions/latest/content`)).status).toBe(404);
  });
});

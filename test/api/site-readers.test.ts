import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Ctx, VisitorGrant } from '../../src/api/context.ts';
import { getVersionContent } from '../../src/api/openapi/service.ts';
import { getPublishedSite } from '../../src/api/sites/publishing.ts';
import { embedInSpace } from '../../src/api/urls/service.ts';
import { userById } from '../../src/api/users/service.ts';
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

function visitorCtx(grant: VisitorGrant): Ctx {
  return {
    em: t.orm.em.fork(),
    caller: {
      user: { id: 'visitor', displayName: 'Visitor', email: '', photoUrl: null },
      tokenId: 'v',
      organizationId: grant.organizationId,
      visitor: grant,
    },
    deps: t.app.deps,
  };
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
    const { site, space } = await publishedSite();
    const grant = { organizationId: org.id, siteId: site.id, spaceIds: [space.id], claims: {} };
    const user = await userById(visitorCtx(grant), org.members.admin.userId);
    expect(user).toEqual({ object: 'user', id: org.members.admin.userId, displayName: 'admin user', urls: expect.any(Object) });
    await expect(userById(visitorCtx(grant), other.members.admin.userId)).rejects.toMatchObject({ statusCode: 404 });
    await expect(userById(visitorCtx(grant), 'visitor')).rejects.toMatchObject({ statusCode: 404 });
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
    const grant = { organizationId: org.id, siteId: site.id, spaceIds: [space.id, second.id], claims: {} };
    expect(await embedInSpace(visitorCtx(grant), space.id, 'https://example.com/a')).toEqual({
      title: 'https://example.com/a',
      site: 'example.com',
      type: 'link',
    });
    await expect(embedInSpace(visitorCtx(grant), elsewhere.id, 'https://example.com/a')).rejects.toMatchObject({ statusCode: 404 });
  });
});

describe('GET /v1/orgs/{organizationId}/sites/{siteId}/published', () => {
  it("answers GitBook's PublishedContentSite to members, and to the site's visitor the spaces granted", async () => {
    const { site, space, second } = await publishedSite();
    const res = await org.members.read.api.get(`${sites()}/${site.id}/published`);
    expect(res.status).toBe(200);
    expectMatchesGitBook('getPublishedContentSite', res.body);
    expect(res.body.structure.structure.map((s: any) => s.space.id)).toEqual([space.id, second.id]);

    const grant = { organizationId: org.id, siteId: site.id, spaceIds: [space.id], claims: {} };
    const seen = await getPublishedSite(visitorCtx(grant), org.id, site.id);
    expectMatchesGitBook('getPublishedContentSite', JSON.parse(JSON.stringify(seen)));
    expect(seen.structure.structure.map((s: any) => s.space.id)).toEqual([space.id]);
    expect(seen.site.permissions.edit).toBe(false);
    // The attacker's requests: another site of the organization, this site under another organization.
    const theirs = await publishedSite();
    await expect(getPublishedSite(visitorCtx(grant), org.id, theirs.site.id)).rejects.toMatchObject({ statusCode: 404 });
    await expect(getPublishedSite(visitorCtx(grant), other.id, site.id)).rejects.toMatchObject({ statusCode: 404 });
    expect((await other.members.admin.api.get(`${sites()}/${site.id}/published`)).status).toBe(404);
  });
});

describe('GET /v1/orgs/{organizationId}/openapi/{specSlug}/versions/latest/content', () => {
  it("opens the organization's specs to its site's visitor, the latest content only", async () => {
    const { site, space } = await publishedSite();
    const text = yaml(petstore31).body;
    expect((await admin().post(`/v1/orgs/${org.id}/openapi`, { slug: 'readers', source: { text } })).status).toBe(201);
    const spec = await eventually(async () => {
      const res = await admin().get(`/v1/orgs/${org.id}/openapi/readers`);
      if (res.body.lastProcessErrorCode) throw new Error(JSON.stringify(res.body));
      return res.body.processingState === 'complete' && res.body.lastVersion ? res.body : undefined;
    }, 60_000);
    const member = await admin().get(`/v1/orgs/${org.id}/openapi/readers/versions/latest/content`);
    expectMatchesGitBook('getLatestOpenAPISpecVersionContent', member.body);
    const grant = { organizationId: org.id, siteId: site.id, spaceIds: [space.id], claims: {} };
    const ref = { organizationId: org.id, specSlug: 'readers' };
    expect(await getVersionContent(visitorCtx(grant), ref, 'latest')).toEqual(member.body);
    await expect(getVersionContent(visitorCtx(grant), ref, spec.lastVersion)).rejects.toMatchObject({ statusCode: 404 });
    await expect(getVersionContent(visitorCtx({ ...grant, organizationId: other.id }), ref, 'latest')).rejects.toMatchObject({
      statusCode: 404,
    });
    expect((await other.members.admin.api.get(`/v1/orgs/${org.id}/openapi/readers/versions/latest/content`)).status).toBe(404);
  });
});

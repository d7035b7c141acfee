import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { addMember, client, createTestOrg, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';

let t: TestApp;
let org: TestOrg;
let other: TestOrg;

beforeAll(async () => {
  t = await startTestApp({ SECRETS_KEY: Buffer.alloc(32, 9).toString('base64') });
  org = await createTestOrg(t, 'Sites org');
  other = await createTestOrg(t, 'Other sites org');
});
afterAll(() => t.close());

const admin = () => org.members.admin.api;
const sites = (orgId = org.id) => `/v1/orgs/${orgId}/sites`;

async function newSpace(title = 'Guide') {
  const res = await admin().post(`/v1/orgs/${org.id}/spaces`, { title });
  expect(res.status).toBe(201);
  return res.body;
}

async function newSite(body: object = {}) {
  const res = await admin().post(sites(), { title: 'Docs', ...body });
  expect(res.status).toBe(201);
  return res.body;
}

describe('sites', () => {
  it('creates a site with its spaces and every Site field', async () => {
    const a = await newSpace('Getting started');
    const b = await newSpace('API');
    const res = await admin().post(sites(), { title: 'Developer docs', visibility: 'unlisted', spaces: [a.id, b.id] });
    expect(res.status).toBe(201);
    expect(res.headers.location).toBe(`http://docs.test/v1/orgs/${org.id}/sites/${res.body.id}`);
    expect(res.body).toEqual({
      object: 'site',
      id: expect.any(String),
      type: 'basic',
      appliedType: 'basic',
      title: 'Developer docs',
      visibility: 'unlisted',
      defaultLevel: null,
      permissions: {
        view: true,
        access: true,
        edit: true,
        create: true,
        admin: true,
        installIntegration: true,
        viewAdaptiveSchema: true,
        editAdaptiveSchema: true,
      },
      published: false,
      siteSpaces: 2,
      createdAt: expect.any(String),
      adaptiveContent: { enabled: false },
      features: [],
      urls: {
        location: `http://docs.test/v1/orgs/${org.id}/sites/${res.body.id}`,
        app: `http://docs.test/o/${org.id}/sites/${res.body.id}`,
        preview: `http://docs.test/o/${org.id}/sites/${res.body.id}/preview`,
      },
    });
    const spaces = await admin().get(`${sites()}/${res.body.id}/site-spaces`);
    expect(spaces.status).toBe(200);
    expect(spaces.body.items.map((s: any) => [s.path, s.default, s.space.id])).toEqual([
      ['getting-started', true, a.id],
      ['api', false, b.id],
    ]);
  });

  it('validates every bound of create and update with a 400 naming the field', async () => {
    for (const body of [{ title: 'x' }, { title: 'x'.repeat(129) }, { visibility: 'private' }, { type: 'gold' }, { spaces: ['nope'] }]) {
      const res = await admin().post(sites(), body);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe(400);
      expect(res.body.error.message).toMatch(new RegExp(Object.keys(body)[0]));
    }
    const site = await newSite();
    for (const body of [
      { title: 'x' },
      { basename: '' },
      { basename: 'x'.repeat(101) },
      { hostname: 'localhost' },
      { hostname: 'Docs.Example.com' },
      { hostname: `${'a'.repeat(500)}.example.com` },
      { proxy: 'example.com' },
      { proxy: 'https://example.com/docs' },
      { visibility: 'in-collection' },
      { defaultSiteSection: 'nope' },
      { defaultSiteSpace: 'nope' },
    ]) {
      const res = await admin().patch(`${sites()}/${site.id}`, body);
      expect(res.status).toBe(400);
      expect(res.body.error.message).toMatch(new RegExp(Object.keys(body)[0]));
    }
  });

  it('answers 409 when a hostname, proxy or basename is already used', async () => {
    const a = await newSite();
    const b = await newSite();
    const tag = Date.now().toString(36);
    for (const body of [{ hostname: `docs.${tag}.example.com` }, { basename: `api-${tag}` }, { proxy: `${tag}.example.com/docs` }]) {
      expect((await admin().patch(`${sites()}/${a.id}`, body)).status).toBe(200);
      const res = await admin().patch(`${sites()}/${b.id}`, body);
      expect(res.status).toBe(409);
      expect(res.body.error.message).toMatch(new RegExp(Object.keys(body)[0]));
      // Setting the same value again on the same site is fine.
      expect((await admin().patch(`${sites()}/${a.id}`, body)).status).toBe(200);
    }
    const updated = (await admin().get(`${sites()}/${a.id}`)).body;
    expect(updated).toMatchObject({
      hostname: `docs.${tag}.example.com`,
      basename: `api-${tag}`,
      proxy: { origin: `${tag}.example.com/docs` },
    });
    // A basename is per organization.
    const theirs = await other.members.admin.api.post(sites(other.id), { title: 'Theirs' });
    expect((await other.members.admin.api.patch(`${sites(other.id)}/${theirs.body.id}`, { basename: `api-${tag}` })).status).toBe(200);
    // null removes.
    const cleared = await admin().patch(`${sites()}/${a.id}`, { proxy: null, hostname: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body.proxy).toBeUndefined();
    expect(cleared.body.hostname).toBeUndefined();
  });

  it('reads, lists with filters and pages, publishes, unpublishes and deletes', async () => {
    const space = await newSpace('Filtered');
    const site = await newSite({ title: `Findable ${Date.now()}`, spaces: [space.id] });
    const got = await admin().get(`${sites()}/${site.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(site);

    const published = await admin().post(`${sites()}/${site.id}/publish`);
    expect(published.status).toBe(200);
    expect(published.body.published).toBe(true);
    expect(published.body.urls.published).toBe(`http://docs.test/sites/${org.id}/${site.id}/`);

    expect((await admin().get(`${sites()}?space=${space.id}`)).body.items.map((s: any) => s.id)).toEqual([site.id]);
    expect((await admin().get(`${sites()}?title=${encodeURIComponent(site.title)}`)).body.items.map((s: any) => s.id)).toEqual([site.id]);
    expect((await admin().get(`${sites()}?published=true`)).body.items.map((s: any) => s.id)).toContain(site.id);
    expect((await admin().get(`${sites()}?published=false`)).body.items.map((s: any) => s.id)).not.toContain(site.id);

    const first = await admin().get(`${sites()}?limit=1`);
    expect(first.body.items).toHaveLength(1);
    expect(first.body.count).toBeGreaterThan(1);
    const second = await admin().get(`${sites()}?limit=1&page=${first.body.next.page}`);
    expect(second.body.items[0].id).not.toBe(first.body.items[0].id);
    expect((await admin().get(`${sites()}?page=garbage`)).status).toBe(400);

    const unpublished = await admin().post(`${sites()}/${site.id}/unpublish`);
    expect(unpublished.body.published).toBe(false);
    expect(unpublished.body.urls.published).toBeUndefined();

    const deleted = await admin().delete(`${sites()}/${site.id}`);
    expect(deleted.status).toBe(205);
    expect((await admin().get(`${sites()}/${site.id}`)).status).toBe(404);
  });

  it('needs a token, a role high enough, and the organization of the site', async () => {
    const site = await newSite();
    const anonymous = client(t.app);
    expect((await anonymous.get(sites())).status).toBe(401);
    expect((await anonymous.get(`${sites()}/${site.id}`)).status).toBe(401);
    // Readers read; only admins change settings.
    expect((await org.members.read.api.get(`${sites()}/${site.id}`)).status).toBe(200);
    const reader = (await org.members.read.api.get(`${sites()}/${site.id}`)).body;
    expect(reader.permissions).toMatchObject({ view: true, admin: false, create: false });
    for (const [method, path, body] of [
      ['post', sites(), { title: 'No' }],
      ['patch', `${sites()}/${site.id}`, { title: 'No way' }],
      ['delete', `${sites()}/${site.id}`, undefined],
      ['post', `${sites()}/${site.id}/publish`, undefined],
      ['put', `${sites()}/${site.id}/adaptive-schema`, { jsonSchema: {} }],
      ['get', `${sites()}/${site.id}/publishing/auth`, undefined],
      ['post', `${sites()}/${site.id}/publishing/auth/regenerate`, undefined],
      ['patch', `${sites()}/${site.id}/customization`, { title: 'No way' }],
      ['get', `${sites()}/${site.id}/share-links`, undefined],
    ] as const) {
      const res = await (org.members.create.api as any)[method](path, body);
      expect([method, path, res.status]).toEqual([method, path, 403]);
      expect(res.body.error.code).toBe(403);
    }
    expect((await org.members.guest.api.get(`${sites()}/${site.id}`)).status).toBe(403);
    // Another organization's members see nothing, and cannot reach it through their own organization.
    expect((await other.members.admin.api.get(`${sites()}/${site.id}`)).status).toBe(404);
    expect((await other.members.admin.api.get(`${sites(other.id)}/${site.id}`)).status).toBe(404);
    expect((await other.members.admin.api.patch(`${sites(other.id)}/${site.id}`, { title: 'Mine' })).status).toBe(404);
    expect((await other.members.admin.api.delete(`${sites(other.id)}/${site.id}`)).status).toBe(404);
  });

  it('stops publishing a space transferred to another organization', async () => {
    const a = await newSpace('Stays');
    const b = await newSpace('Leaves');
    const site = await newSite({ spaces: [a.id, b.id] });
    expect(site.siteSpaces).toBe(2);
    const third = await createTestOrg(t, 'Transfer target');
    await addMember(t, third.id, org.members.admin.userId, 'admin');
    expect((await admin().post(`/v1/spaces/${b.id}/transfer`, { organization: third.id })).status).toBe(200);
    expect((await admin().get(`${sites()}/${site.id}`)).body.siteSpaces).toBe(1);
    expect((await admin().get(`${sites()}/${site.id}/site-spaces`)).body.items.map((s: any) => s.space.id)).toEqual([a.id]);
  });
});

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { decodeJwt, SignJWT, UnsecuredJWT } from 'jose';
import { client, createTestOrg, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { edit, merge, newChangeRequest, newSpace } from '../support/fixtures.ts';
import { requireVisibleRevision, vouchedSpace } from '../../src/api/access.ts';
import type { Ctx } from '../../src/api/context.ts';
import { keyFingerprint, mintSiteToken, siteTokenKey, type SiteTokenClaims } from '../../src/domain/sites/site-token.ts';
import { lazySigningKey } from '../../src/lib/signed-urls.ts';
import { sql } from '../support/sql.ts';

/**
 * The credentials a published site hands out, attacked: the visitor's token (`apiToken` of a URL
 * lookup) must read only the published spaces of its own site, only while the site, its signing
 * key and the share link it came through still hold; a site lookup token must resolve only its
 * organization's site URLs. Every request here is one an attacker holding such a token would make.
 */

let t: TestApp;
let org: TestOrg;
let other: TestOrg;
const SITES = 'http://docs.test/sites';

beforeAll(async () => {
  // No authentication cache: a revoked lookup token is refused at once.
  t = await startTestApp({ SECRETS_KEY: Buffer.alloc(32, 7).toString('base64'), AUTH_CACHE_TTL: '0s' });
  org = await createTestOrg(t, 'Visitor token org');
  other = await createTestOrg(t, 'Visitor token other org');
});
afterAll(() => t.close());

const admin = () => org.members.admin.api;
const siteBase = (organizationId: string, siteId: string) => `/v1/orgs/${organizationId}/sites/${siteId}`;

/** A published site of `owner` with one space; the visitor's token from a lookup of its root. */
async function publishedSite(owner: TestOrg, visibility = 'public') {
  const api = owner.members.admin.api;
  const space = await newSpace(api, owner.id, { title: 'Published' });
  const site = (await api.post(`/v1/orgs/${owner.id}/sites`, { title: 'Site', visibility, spaces: [space.id] })).body;
  expect((await api.post(`${siteBase(owner.id, site.id)}/publish`)).status).toBe(200);
  return { site, space, url: `${SITES}/${owner.id}/${site.id}/` };
}

async function lookup(url: string, body: object = {}) {
  const res = await admin().post('/v1/urls/published', { url, ...body });
  expect(res.status).toBe(200);
  return res.body.apiToken as string;
}

/** A visitor's grant to read the space `sp` of a site, at the revision `r1` its lookup answered with. */
const grantFor = (organizationId: string) => ({
  organizationId,
  siteId: 's',
  spaceIds: ['sp'],
  claims: {},
  revision: { spaceId: 'sp', revisionId: 'r1' },
});

describe("a site visitor's token", () => {
  let own: Awaited<ReturnType<typeof publishedSite>>;
  let token: string;
  let visitor: ReturnType<typeof client>;

  beforeAll(async () => {
    own = await publishedSite(org);
    token = await lookup(own.url);
    visitor = client(t.app, token);
  });

  it('reads the published space and its content', async () => {
    expect((await visitor.get(`/v1/spaces/${own.space.id}`)).status).toBe(200);
    expect((await visitor.get(`/v1/spaces/${own.space.id}/content`)).status).toBe(200);
    expect((await visitor.get(`/v1/spaces/${own.space.id}/content/pages`)).status).toBe(200);
    expect((await visitor.get(`/v1/spaces/${own.space.id}/content/files`)).status).toBe(200);
    expect((await visitor.post('/v1/urls/published', { url: own.url })).status).toBe(200);
  });

  it('reads revisions by id only at the published revision: never an older one, never a draft', async () => {
    const { space, url } = await publishedSite(org);
    const first = space.revision;
    const published = await newChangeRequest(admin(), space.id, 'Published edit');
    await edit(admin(), space.id, published.id, [{ operation: 'insert_page', title: 'Release notes', document: { markdown: 'Public.' } }]);
    await merge(admin(), space.id, published.id);
    const current = (await admin().get(`/v1/spaces/${space.id}`)).body.revision;
    const draft = await newChangeRequest(admin(), space.id, 'Unreleased');
    await edit(admin(), space.id, draft.id, [{ operation: 'insert_page', title: 'Secret launch', document: { markdown: 'Embargoed.' } }]);
    const draftRevision = (await admin().get(`/v1/spaces/${space.id}/change-requests/${draft.id}`)).body.revision;
    const reader = client(t.app, await lookup(url));
    const ok = await reader.get(`/v1/spaces/${space.id}/revisions/${current}?metadata=true`);
    expect(ok.status).toBe(200);
    const page = ok.body.pages.find((p: { title: string }) => p.title === 'Release notes');
    expect((await reader.get(`/v1/spaces/${space.id}/revisions/${current}/page/${page.id}/document`)).status).toBe(200);
    for (const revision of [first, draftRevision]) {
      for (const path of ['', '/pages', '/files', `/page/${page.id}`, `/page/${page.id}/document`]) {
        const res = await reader.get(`/v1/spaces/${space.id}/revisions/${revision}${path}`);
        expect([revision, path, res.status]).toEqual([revision, path, 404]);
      }
    }
    // A member still reads every revision of the space.
    expect((await admin().get(`/v1/spaces/${space.id}/revisions/${draftRevision}`)).status).toBe(200);
  });

  it('is refused on a space its site does not publish, in the same organization or another one', async () => {
    const unpublished = await newSpace(admin(), org.id, { title: 'Internal' });
    const elsewhere = await publishedSite(other);
    for (const spaceId of [unpublished.id, elsewhere.space.id, 'doesNotExist']) {
      for (const path of ['', '/content', '/content/pages', '/content/files']) {
        const res = await visitor.get(`/v1/spaces/${spaceId}${path}`);
        expect([spaceId, path, res.status]).toEqual([spaceId, path, 404]);
        expect(res.body.error.code).toBe(404);
      }
    }
    // Nor does it resolve another site's URLs (its lookups would mint tokens for that site).
    expect((await visitor.post('/v1/urls/published', { url: elsewhere.url })).status).toBe(404);
    const sibling = await publishedSite(org);
    expect((await visitor.post('/v1/urls/published', { url: sibling.url })).status).toBe(404);
    expect((await visitor.get(`/v1/spaces/${sibling.space.id}`)).status).toBe(404);
  });

  it('is refused on every write, and on the organization, members, change requests and comments', async () => {
    const cr = await newChangeRequest(admin(), own.space.id);
    const refused: [string, string, object?][] = [
      ['PATCH', `/v1/spaces/${own.space.id}`, { title: 'Defaced' }],
      ['DELETE', `/v1/spaces/${own.space.id}`],
      ['POST', `/v1/spaces/${own.space.id}/change-requests`, { subject: 'Mine now' }],
      ['GET', `/v1/spaces/${own.space.id}/change-requests`],
      ['GET', `/v1/spaces/${own.space.id}/change-requests/${cr.id}`],
      ['GET', `/v1/spaces/${own.space.id}/change-requests/${cr.id}/content`],
      ['GET', `/v1/spaces/${own.space.id}/change-requests/${cr.id}/content/pages`],
      ['GET', `/v1/spaces/${own.space.id}/comments`],
      ['POST', `/v1/spaces/${own.space.id}/comments`, { body: { markdown: 'hi' } }],
      ['GET', `/v1/spaces/${own.space.id}/permissions/users`],
      ['GET', `/v1/orgs/${org.id}`],
      ['GET', `/v1/orgs/${org.id}/members`],
      ['GET', `/v1/orgs/${org.id}/spaces`],
      ['GET', `/v1/orgs/${org.id}/sites`],
      ['POST', `/v1/orgs/${org.id}/spaces`, { title: 'New' }],
      ['POST', `/v1/orgs/${org.id}/site-lookup-tokens`, { label: 'escalate' }],
      ['GET', '/v1/user'],
      ['GET', `/v1/orgs/${other.id}/members`],
    ];
    for (const [method, url, body] of refused) {
      const res = await t.app.inject({
        method: method as 'GET',
        url,
        headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        ...(body ? { payload: JSON.stringify(body) } : {}),
      });
      expect([method, url, res.statusCode]).toEqual([method, url, 403]);
      expect(res.json().error.code).toBe(403);
    }
    // Nothing changed.
    expect((await admin().get(`/v1/spaces/${own.space.id}`)).body.title).toBe('Published');
  });

  it('is refused when forged, tampered with or expired', async () => {
    const claims = decodeJwt(token) as unknown as SiteTokenClaims;
    const [header, , signature] = token.split('.');
    const elsewhere = await publishedSite(other);
    const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    // The right service key, but a token that has expired.
    const serviceKey = await lazySigningKey(t.config, 'site-token')();
    const sealed = (
      await sql<{ auth_key_sealed: string }>(t.orm.em.fork(), 'select auth_key_sealed from site where id = ?', [own.site.id])
    )[0].auth_key_sealed;
    const fingerprint = keyFingerprint(sealed);
    const past = Math.floor(Date.now() / 1000) - 60;
    const expired = await mintSiteToken(siteTokenKey(serviceKey, own.site.id, fingerprint), fingerprint, claims, past);
    const forged = [
      // Another space added to the grant, the signature kept.
      `${header}.${encode({ ...claims, spaces: [...claims.spaces, elsewhere.space.id] })}.${signature}`,
      // Another organization's site named, the signature kept.
      `${header}.${encode({ ...claims, site: elsewhere.site.id, organization: other.id })}.${signature}`,
      // Unsigned.
      new UnsecuredJWT({ ...claims }).setExpirationTime('1h').encode(),
      // Signed with a key of the attacker's choosing, and with the site's visitor-auth key.
      await new SignJWT({ ...claims })
        .setProtectedHeader({ alg: 'HS256', kid: fingerprint })
        .setAudience('site-content')
        .setIssuedAt()
        .setExpirationTime('1h')
        .sign(new TextEncoder().encode('guessed')),
      await new SignJWT({ ...claims })
        .setProtectedHeader({ alg: 'HS256', kid: fingerprint })
        .setAudience('site-content')
        .setIssuedAt()
        .setExpirationTime('1h')
        .sign(new TextEncoder().encode((await admin().get(`${siteBase(org.id, own.site.id)}/publishing/auth`)).body.privateKey)),
      expired,
      `${token.slice(0, -2)}${token.endsWith('AA') ? 'BB' : 'AA'}`,
      'eyJhbGciOiJIUzI1NiJ9.e30.x',
    ];
    for (const bad of forged) {
      for (const spaceId of [own.space.id, elsewhere.space.id]) {
        const res = await client(t.app, bad).get(`/v1/spaces/${spaceId}`);
        expect([bad, res.status]).toEqual([bad, 401]);
        expect(res.body.error.code).toBe(401);
      }
    }
  });

  it('stops working once the site is unpublished, its signing key rotated or its visibility changed', async () => {
    const read = (bearer: string) => client(t.app, bearer).get(`/v1/spaces/${s.space.id}`);
    const s = await publishedSite(org);
    const base = siteBase(org.id, s.site.id);

    const beforeUnpublish = await lookup(s.url);
    expect((await read(beforeUnpublish)).status).toBe(200);
    await admin().post(`${base}/unpublish`);
    expect((await read(beforeUnpublish)).status).toBe(401);
    await admin().post(`${base}/publish`);

    const beforeRotation = await lookup(s.url);
    expect((await read(beforeRotation)).status).toBe(200);
    expect((await admin().post(`${base}/publishing/auth/regenerate`)).status).toBe(200);
    expect((await read(beforeRotation)).status).toBe(401);
    const afterRotation = await lookup(s.url);
    expect((await read(afterRotation)).status).toBe(200);

    // A public site turned private by share link: tokens minted while it was public stop working.
    expect((await admin().patch(base, { visibility: 'share-link' })).status).toBe(200);
    expect((await read(afterRotation)).status).toBe(401);
  });

  it('stops working once the share link it came through is deactivated or deleted', async () => {
    const s = await publishedSite(org, 'share-link');
    const base = siteBase(org.id, s.site.id);
    const link = (await admin().post(`${base}/share-links`, { name: 'Partner' })).body;
    const second = (await admin().post(`${base}/share-links`, { name: 'Other partner' })).body;
    const viaLink = await lookup(`${s.url}?shareKey=${link.key}`);
    const viaSecond = await lookup(`${s.url}?shareKey=${second.key}`);
    const read = (bearer: string) => client(t.app, bearer).get(`/v1/spaces/${s.space.id}`);
    expect((await read(viaLink)).status).toBe(200);
    await admin().patch(`${base}/share-links/${link.id}`, { active: false });
    expect((await read(viaLink)).status).toBe(401);
    // The other link's visitors are not affected.
    expect((await read(viaSecond)).status).toBe(200);
    await admin().delete(`${base}/share-links/${second.id}`);
    expect((await read(viaSecond)).status).toBe(401);
  });

  it('stops reading a space once the site no longer publishes it', async () => {
    const s = await publishedSite(org);
    const more = await newSpace(admin(), org.id, { title: 'Second' });
    const added = (await admin().post(`${siteBase(org.id, s.site.id)}/site-spaces`, { spaceId: more.id })).body;
    const bearer = await lookup(s.url);
    expect((await client(t.app, bearer).get(`/v1/spaces/${more.id}`)).status).toBe(200);
    expect((await admin().delete(`${siteBase(org.id, s.site.id)}/site-spaces/${added.id}`)).status).toBe(205);
    expect((await client(t.app, bearer).get(`/v1/spaces/${more.id}`)).status).toBe(404);
    expect((await client(t.app, bearer).get(`/v1/spaces/${s.space.id}`)).status).toBe(200);
  });

  it('stops reading the revision its lookup answered with once its space is deleted or no longer published', async () => {
    for (const how of ['space deleted', 'site-space removed'] as const) {
      const s = await publishedSite(org);
      // A second space keeps the site publishing something.
      const more = await newSpace(admin(), org.id, { title: 'Second' });
      expect((await admin().post(`${siteBase(org.id, s.site.id)}/site-spaces`, { spaceId: more.id })).status).toBe(201);
      const revision = (await admin().get(`/v1/spaces/${s.space.id}`)).body.revision;
      const reader = client(t.app, await lookup(s.url));
      const read = await reader.get(`/v1/spaces/${s.space.id}/revisions/${revision}?metadata=true`);
      expect(read.status).toBe(200);
      const pageId = read.body.pages[0].id;
      const paths = ['', '/pages', `/page/${pageId}`, `/page/${pageId}/document`];
      for (const path of paths) expect((await reader.get(`/v1/spaces/${s.space.id}/revisions/${revision}${path}`)).status).toBe(200);
      if (how === 'space deleted') {
        expect((await admin().delete(`/v1/spaces/${s.space.id}`)).status).toBe(205);
      } else {
        const siteSpaces = (await admin().get(`${siteBase(org.id, s.site.id)}/site-spaces`)).body.items;
        const first = siteSpaces.find((ss: { space: { id: string } }) => ss.space.id === s.space.id);
        expect((await admin().delete(`${siteBase(org.id, s.site.id)}/site-spaces/${first.id}`)).status).toBe(205);
      }
      for (const path of paths) {
        const res = await reader.get(`/v1/spaces/${s.space.id}/revisions/${revision}${path}`);
        expect([how, path, res.status]).toEqual([how, path, 404]);
      }
    }
  });

  it('is vouched for only at the revision its lookup answered with, of a space its site publishes', () => {
    const grant = grantFor(org.id);
    const caller = (visitor?: typeof grant) => ({
      user: { id: 'u', displayName: '', email: '', photoUrl: null },
      tokenId: 't',
      organizationId: org.id,
      visitor,
    });
    expect(vouchedSpace(caller(grant), 'sp', 'r1')).toEqual({ id: 'sp', revisionId: 'r1' });
    expect(vouchedSpace(caller(grant), 'sp', 'r2')).toBeUndefined();
    expect(vouchedSpace(caller(grant), 'other', 'r1')).toBeUndefined();
    expect(vouchedSpace(caller({ ...grant, spaceIds: [] }), 'sp', 'r1')).toBeUndefined();
    expect(vouchedSpace(caller(), 'sp', 'r1')).toBeUndefined();
  });

  it("reads only the space's current revision and the one its lookup answered with", async () => {
    const grant = grantFor(org.id);
    const ctx = (visitor?: typeof grant) => ({ caller: { user: { id: 'u' }, visitor } }) as unknown as Ctx;
    const space = { id: 'sp', revisionId: 'r2' };
    expect(() => requireVisibleRevision(ctx(grant), space, 'r2')).not.toThrow();
    expect(() => requireVisibleRevision(ctx(grant), space, 'r1')).not.toThrow();
    expect(() => requireVisibleRevision(ctx(grant), space, 'r0')).toThrow(/not found/);
    expect(() => requireVisibleRevision(ctx(grant), { id: 'other', revisionId: 'r9' }, 'r1')).toThrow(/not found/);
    expect(() => requireVisibleRevision(ctx(), space, 'r0')).not.toThrow();
  });
});

describe('a site lookup token', () => {
  let own: Awaited<ReturnType<typeof publishedSite>>;
  let foreign: Awaited<ReturnType<typeof publishedSite>>;
  let created: { id: string; token: string };

  beforeAll(async () => {
    own = await publishedSite(org);
    foreign = await publishedSite(other);
    const res = await admin().post(`/v1/orgs/${org.id}/site-lookup-tokens`, { label: 'Renderer' });
    expect(res.status).toBe(201);
    created = res.body;
  });

  it("resolves its organization's sites, and answers a visitor's token that works", async () => {
    const renderer = client(t.app, created.token);
    const res = await renderer.post('/v1/urls/published', { url: own.url });
    expect(res.status).toBe(200);
    expect((await renderer.get(`/v1/urls/published?url=${encodeURIComponent(own.url)}`)).status).toBe(200);
    expect((await client(t.app, res.body.apiToken).get(`/v1/spaces/${own.space.id}`)).status).toBe(200);
  });

  it("is refused for another organization's site", async () => {
    const renderer = client(t.app, created.token);
    expect((await renderer.post('/v1/urls/published', { url: foreign.url })).status).toBe(404);
    expect((await renderer.get(`/v1/urls/published?url=${encodeURIComponent(foreign.url)}`)).status).toBe(404);
  });

  it('is refused for anything but URL lookups', async () => {
    const refused: [string, string, object?][] = [
      ['GET', `/v1/spaces/${own.space.id}`],
      ['GET', `/v1/spaces/${own.space.id}/content`],
      ['GET', `/v1/orgs/${org.id}`],
      ['GET', `/v1/orgs/${org.id}/members`],
      ['GET', `/v1/orgs/${org.id}/sites`],
      ['GET', `/v1/orgs/${org.id}/site-lookup-tokens`],
      ['POST', `/v1/orgs/${org.id}/site-lookup-tokens`, { label: 'more' }],
      ['DELETE', `/v1/orgs/${org.id}/site-lookup-tokens/${created.id}`],
      ['GET', `/v1/urls/embed?url=${encodeURIComponent(own.url)}`],
      ['GET', `/v1/urls/content?url=${encodeURIComponent(`http://docs.test/app/spaces/${own.space.id}`)}`],
      ['GET', '/v1/user'],
    ];
    for (const [method, url, body] of refused) {
      const res = await t.app.inject({
        method: method as 'GET',
        url,
        headers: { authorization: `Bearer ${created.token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        ...(body ? { payload: JSON.stringify(body) } : {}),
      });
      expect([method, url, res.statusCode]).toEqual([method, url, 403]);
    }
  });

  it('is managed by admins of its organization only, its secret never listed', async () => {
    expect((await org.members.create.api.post(`/v1/orgs/${org.id}/site-lookup-tokens`, { label: 'x' })).status).toBe(403);
    expect((await org.members.read.api.get(`/v1/orgs/${org.id}/site-lookup-tokens`)).status).toBe(403);
    expect((await other.members.admin.api.get(`/v1/orgs/${org.id}/site-lookup-tokens`)).status).toBe(404);
    expect((await other.members.admin.api.delete(`/v1/orgs/${org.id}/site-lookup-tokens/${created.id}`)).status).toBe(404);
    const listed = (await admin().get(`/v1/orgs/${org.id}/site-lookup-tokens`)).body;
    expect(listed.items.map((x: any) => x.id)).toContain(created.id);
    expect(JSON.stringify(listed)).not.toContain(created.token);
    const stored = await sql<{ token_hash: string }>(t.orm.em.fork(), 'select token_hash from site_lookup_token where id = ?', [
      created.id,
    ]);
    expect(stored[0].token_hash).not.toContain(created.token);
  });

  it('stops working once revoked', async () => {
    const temporary = (await admin().post(`/v1/orgs/${org.id}/site-lookup-tokens`, { label: 'Temporary' })).body;
    const renderer = client(t.app, temporary.token);
    expect((await renderer.post('/v1/urls/published', { url: own.url })).status).toBe(200);
    expect((await admin().delete(`/v1/orgs/${org.id}/site-lookup-tokens/${temporary.id}`)).status).toBe(205);
    expect((await renderer.post('/v1/urls/published', { url: own.url })).status).toBe(401);
    expect((await admin().delete(`/v1/orgs/${org.id}/site-lookup-tokens/${temporary.id}`)).status).toBe(404);
  });
});

describe("a site visitor's token, with the authentication cache on", () => {
  let cached: TestApp;
  let owner: TestOrg;
  beforeAll(async () => {
    cached = await startTestApp({ SECRETS_KEY: Buffer.alloc(32, 7).toString('base64'), AUTH_CACHE_TTL: '1h' });
    owner = await createTestOrg(cached, 'Visitor token cached org');
  });
  afterAll(() => cached.close());

  it('stops working at once when the site is unpublished, though its site state is kept for an hour', async () => {
    const api = owner.members.admin.api;
    const space = await newSpace(api, owner.id, { title: 'Published' });
    const site = (await api.post(`/v1/orgs/${owner.id}/sites`, { title: 'Site', visibility: 'public', spaces: [space.id] })).body;
    expect((await api.post(`${siteBase(owner.id, site.id)}/publish`)).status).toBe(200);
    const token = (await api.post('/v1/urls/published', { url: `${SITES}/${owner.id}/${site.id}/` })).body.apiToken as string;
    const read = () => client(cached.app, token).get(`/v1/spaces/${space.id}`);
    expect((await read()).status).toBe(200);
    expect((await read()).status).toBe(200);
    expect((await api.post(`${siteBase(owner.id, site.id)}/unpublish`)).status).toBe(200);
    expect((await read()).status).toBe(401);
  });
});

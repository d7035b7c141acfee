import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { decodeJwt, decodeProtectedHeader, SignJWT } from 'jose';
import { edit, newChangeRequest, PNG_2X3 } from '../support/fixtures.ts';
import { client } from '../support/harness.ts';
import { signedFileUrls } from '../../src/api/object-urls.ts';
import { createTestOrg, eventually, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { loadPageMap, writeRevision } from '../../src/db/content.ts';
import { sql } from '../support/sql.ts';
import { newId } from '../../src/domain/ids.ts';
import { positionBetween } from '../../src/domain/positions.ts';
import type { PageMap } from '../../src/domain/content/tree.ts';

/**
 * Visitor URL resolution: `POST /v1/urls/published` (and the deprecated GET), the site's
 * `…/published`, `/v1/urls/content` and `/v1/urls/embed`, with every visibility enforced.
 */
let t: TestApp;
let org: TestOrg;
let other: TestOrg;

const SITES = 'http://docs.test/sites';

beforeAll(async () => {
  t = await startTestApp({ SECRETS_KEY: Buffer.alloc(32, 3).toString('base64') });
  org = await createTestOrg(t, 'Urls org');
  other = await createTestOrg(t, 'Urls other org');
});
afterAll(() => t.close());

const admin = () => org.members.admin.api;
const sites = `/v1/orgs/${'$ORG'}/sites`;
const site = (id: string) => `${sites.replace('$ORG', org.id)}/${id}`;

interface PageSpec {
  title: string;
  slug: string;
  type?: 'document' | 'group';
  children?: PageSpec[];
}

/** A space whose current revision holds exactly these pages; returns page ids by path. */
async function spaceWith(title: string, pages: PageSpec[]) {
  const space = (await admin().post(`/v1/orgs/${org.id}/spaces`, { title })).body;
  const map: PageMap = {};
  const ids: Record<string, string> = {};
  const add = (specs: PageSpec[], parentId: string | null, prefix: string) => {
    let last: string | null = null;
    for (const spec of specs) {
      const id = newId();
      last = positionBetween(last, null);
      map[id] = {
        id,
        parentId,
        position: last,
        type: spec.type ?? 'document',
        title: spec.title,
        slug: spec.slug,
        markdown: spec.type === 'group' ? '' : `# ${spec.title}\n`,
      };
      const path = prefix ? `${prefix}/${spec.slug}` : spec.slug;
      ids[path] = id;
      add(spec.children ?? [], id, path);
    }
  };
  add(pages, null, '');
  await t.orm.em.fork().transactional(async (tx) => {
    const revision = await writeRevision(tx, { spaceId: space.id, parents: [space.revision], type: 'edits', base: null, pages: map });
    await sql(tx, 'update space set revision_id = ? where id = ?', [revision, space.id]);
  });
  return { id: space.id as string, ids };
}

const TREE: PageSpec[] = [
  { title: 'Welcome', slug: 'welcome' },
  {
    title: 'Guides',
    slug: 'guides',
    type: 'group',
    children: [{ title: 'Install', slug: 'install', children: [{ title: 'On Linux', slug: 'linux' }] }],
  },
];

async function publishedSite(visibility: string, title = 'Docs') {
  const v1 = await spaceWith('Version one', TREE);
  const v2 = await spaceWith('Version two', TREE);
  const api = await spaceWith('API reference', [
    { title: 'Overview', slug: 'overview' },
    { title: 'Endpoints', slug: 'endpoints' },
  ]);
  const created = (await admin().post(`/v1/orgs/${org.id}/sites`, { title, visibility, spaces: [v1.id] })).body;
  // The first section takes the root site-space in a default section of its own.
  const apiSection = (await admin().post(`${site(created.id)}/sections`, { spaceId: api.id, title: 'API' })).body;
  const docs = (await admin().get(`${site(created.id)}/sections`)).body.items.find((s: any) => s.id !== apiSection.id);
  const second = (await admin().post(`${site(created.id)}/site-spaces`, { spaceId: v2.id, sectionId: docs.id })).body;
  expect((await admin().post(`${site(created.id)}/publish`)).status).toBe(200);
  return { site: created, v1, v2, api, docs, apiSection, second };
}

const resolve = (body: object, api = admin()) => api.post('/v1/urls/published', body);

describe('POST /v1/urls/published on a public site', () => {
  let s: Awaited<ReturnType<typeof publishedSite>>;
  beforeAll(async () => {
    s = await publishedSite('public');
  });

  it('resolves section, site-space and a page three levels deep', async () => {
    const base = `${SITES}/${org.id}/${s.site.id}`;
    const res = await resolve({ url: `${base}/${s.docs.path}/version-two/guides/install/linux` });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      site: s.site.id,
      siteSection: s.docs.id,
      siteSpace: s.second.id,
      space: s.v2.id,
      revision: expect.any(String),
      page: s.v2.ids['guides/install/linux'],
      pathname: 'guides/install/linux',
      basePath: `/sites/${org.id}/${s.site.id}/${s.docs.path}/version-two/`,
      siteBasePath: `/sites/${org.id}/${s.site.id}/`,
      apiToken: expect.stringMatching(/^eyJ/),
      organization: org.id,
      complete: true,
      canonicalUrl: `${base}/version-two/guides/install/linux`,
    });
  });

  it('falls back to the default section, site-space and first page', async () => {
    const base = `${SITES}/${org.id}/${s.site.id}`;
    const root = await resolve({ url: `${base}/` });
    expect(root.body).toMatchObject({
      siteSection: s.docs.id,
      space: s.v1.id,
      page: s.v1.ids.welcome,
      pathname: '',
      basePath: `/sites/${org.id}/${s.site.id}/`,
    });
    const page = await resolve({ url: `${base}/guides/install` });
    expect(page.body).toMatchObject({ space: s.v1.id, page: s.v1.ids['guides/install'], pathname: 'guides/install' });
    const api = await resolve({ url: `${base}/api/endpoints` });
    expect(api.body).toMatchObject({
      siteSection: s.apiSection.id,
      space: s.api.id,
      page: s.api.ids.endpoints,
      canonicalUrl: `${base}/api/endpoints`,
    });
  });

  it('redirects a group page to its first document, and answers 404 for a site that does not exist', async () => {
    const base = `${SITES}/${org.id}/${s.site.id}`;
    const group = await resolve({ url: `${base}/guides` });
    expect(group.body).toEqual({ target: 'content', redirect: `${base}/guides/install` });
    for (const url of [`${SITES}/${org.id}/nope/welcome`, `${SITES}/${other.id}/${s.site.id}/welcome`, 'https://unknown.example.com/x']) {
      const res = await resolve({ url });
      expect([url, res.status]).toEqual([url, 404]);
      expect(res.body.error.code).toBe(404);
    }
    expect((await resolve({ url: 'not a url' })).status).toBe(400);
    expect((await resolve({ url: `${base}/${'x'.repeat(2048)}` })).status).toBe(400);
    expect((await resolve({})).status).toBe(400);
  });

  it('redirects the old path of a page that moved to its new place', async () => {
    const own = await publishedSite('public', 'Moves');
    const base = `${SITES}/${org.id}/${own.site.id}`;
    // The next revision of version one moves "On Linux" to the top level, as "linux-setup".
    await t.orm.em.fork().transactional(async (tx) => {
      const current = (await sql<{ revision_id: string }>(tx, 'select revision_id from space where id = ?', [own.v1.id]))[0].revision_id;
      const pages = await loadPageMap(tx, current, true);
      const linux = own.v1.ids['guides/install/linux'];
      pages[linux] = { ...pages[linux], parentId: null, slug: 'linux-setup', position: 'z0' };
      const revision = await writeRevision(tx, { spaceId: own.v1.id, parents: [current], type: 'edits', base: null, pages });
      await sql(tx, 'update space set revision_id = ? where id = ?', [revision, own.v1.id]);
    });
    expect((await resolve({ url: `${base}/guides/install/linux` })).body).toEqual({ target: 'content', redirect: `${base}/linux-setup` });
    expect((await resolve({ url: `${base}/linux-setup` })).body.page).toBe(own.v1.ids['guides/install/linux']);
    const unknown = await resolve({ url: `${base}/guides/install/nothing` });
    expect(unknown.status).toBe(200);
    expect(unknown.body.page).toBeUndefined();
    expect(unknown.body.pathname).toBe('guides/install/nothing');
  });

  it('resolves by basename, custom hostname and proxy', async () => {
    const tag = Date.now().toString(36);
    await admin().patch(site(s.site.id), { basename: `docs-${tag}`, hostname: `docs.${tag}.example.com` });
    const byBasename = await resolve({ url: `${SITES}/${org.id}/docs-${tag}/api/overview` });
    expect(byBasename.body).toMatchObject({ site: s.site.id, page: s.api.ids.overview });
    const byHost = await resolve({ url: `https://docs.${tag}.example.com/api/overview` });
    expect(byHost.body).toMatchObject({
      site: s.site.id,
      page: s.api.ids.overview,
      siteBasePath: '/',
      basePath: '/api/',
      canonicalUrl: `https://docs.${tag}.example.com/api/overview`,
    });
    await admin().patch(site(s.site.id), { hostname: null, proxy: `www.${tag}.example.com/help/docs` });
    const byProxy = await resolve({ url: `https://www.${tag}.example.com/help/docs/api/overview` });
    expect(byProxy.body).toMatchObject({
      site: s.site.id,
      page: s.api.ids.overview,
      siteBasePath: '/help/docs/',
      basePath: '/help/docs/api/',
    });
    expect((await resolve({ url: `https://www.${tag}.example.com/help/api/overview` })).status).toBe(404);
    await admin().patch(site(s.site.id), { proxy: null });
  });

  it('answers the deprecated GET with a Deprecation header', async () => {
    const url = `${SITES}/${org.id}/${s.site.id}/api/overview`;
    const res = await admin().get(`/v1/urls/published?url=${encodeURIComponent(url)}`);
    expect(res.status).toBe(200);
    expect(res.headers.deprecation).toBe('true');
    expect(res.body.page).toBe(s.api.ids.overview);
  });

  it('resolves for nobody once unpublished', async () => {
    const own = await publishedSite('public', 'Short lived');
    const url = `${SITES}/${org.id}/${own.site.id}/`;
    expect((await resolve({ url })).status).toBe(200);
    await admin().post(`${site(own.site.id)}/unpublish`);
    expect((await resolve({ url })).status).toBe(404);
    expect((await resolve({ url, redirectOnError: true })).status).toBe(404);
  });

  it('hides the site-spaces of a deleted space and brings them back on restore', async () => {
    const own = await publishedSite('public', 'Deletions');
    const url = `${SITES}/${org.id}/${own.site.id}/api/overview`;
    expect((await resolve({ url })).status).toBe(200);
    const before = (await admin().get(site(own.site.id))).body.siteSpaces;
    expect((await admin().delete(`/v1/spaces/${own.api.id}`)).status).toBe(205);
    expect((await resolve({ url })).status).toBe(404);
    expect((await admin().get(site(own.site.id))).body.siteSpaces).toBe(before - 1);
    const sections = (await admin().get(`${site(own.site.id)}/sections`)).body.items;
    expect(sections.find((x: any) => x.id === own.apiSection.id).siteSpaces).toEqual([]);
    expect((await admin().post(`/v1/spaces/${own.api.id}/restore`)).status).toBe(200);
    expect((await resolve({ url })).status).toBe(200);
    expect((await admin().get(site(own.site.id))).body.siteSpaces).toBe(before);
  });

  it('needs an API token', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/v1/urls/published', payload: { url: `${SITES}/${org.id}/${s.site.id}/` } });
    expect(res.statusCode).toBe(401);
  });
});

describe('share-link sites', () => {
  it('resolve only with an active key', async () => {
    const s = await publishedSite('share-link', 'Shared');
    const url = `${SITES}/${org.id}/${s.site.id}/api/overview`;
    expect((await resolve({ url })).status).toBe(404);
    const link = (await admin().post(`${site(s.site.id)}/share-links`, { name: 'Partners' })).body;
    expect(link.key).toEqual(expect.any(String));
    const withKey = `${url}?shareKey=${link.key}`;
    const ok = await resolve({ url: withKey });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ page: s.api.ids.overview, shareKey: link.key });
    expect((await resolve({ url: `${url}?shareKey=wrong` })).status).toBe(404);

    // The published site, for a non-member holding the key.
    const stranger = other.members.admin.api;
    expect((await stranger.get(`${site(s.site.id)}/published?shareKey=${link.key}`)).status).toBe(200);
    expect((await stranger.get(`${site(s.site.id)}/published?shareKey=wrong`)).status).toBe(404);
    expect((await stranger.get(`${site(s.site.id)}/published`)).status).toBe(404);
    expect((await stranger.get(`${site(s.site.id)}/sections?shareKey=${link.key}`)).status).toBe(200);
    // A section behind a condition is not shown to a share-key holder (no claims); members see it.
    await admin().patch(`${site(s.site.id)}/sections/${s.apiSection.id}`, { condition: 'visitor.claims.unsigned.beta == true' });
    const shown = (await stranger.get(`${site(s.site.id)}/published?shareKey=${link.key}`)).body.structure.structure.map((x: any) => x.id);
    expect(shown).toEqual([s.docs.id]);
    expect((await admin().get(`${site(s.site.id)}/published`)).body.structure.structure.map((x: any) => x.id)).toEqual([
      s.docs.id,
      s.apiSection.id,
    ]);
    const sections = (await stranger.get(`${site(s.site.id)}/sections?shareKey=${link.key}`)).body;
    expect(sections.items.map((x: any) => x.id)).toEqual([s.docs.id]);
    expect(sections.count).toBe(1);
    const siteSpaces = (await stranger.get(`${site(s.site.id)}/site-spaces?shareKey=${link.key}`)).body;
    expect(siteSpaces.items.map((x: any) => x.space.id)).toEqual([s.v1.id, s.v2.id]);
    expect(siteSpaces.count).toBe(2);
    // A page of one still holds one visible item: hidden sections are left out before paging.
    const first = (await stranger.get(`${site(s.site.id)}/sections?shareKey=${link.key}&limit=1`)).body;
    expect(first.items.map((x: any) => x.id)).toEqual([s.docs.id]);
    expect(first.next).toBeUndefined();
    await admin().patch(`${site(s.site.id)}/sections/${s.apiSection.id}`, { condition: null });

    expect((await admin().patch(`${site(s.site.id)}/share-links/${link.id}`, { active: false })).body.active).toBe(false);
    expect((await resolve({ url: withKey })).status).toBe(404);
    expect((await stranger.get(`${site(s.site.id)}/published?shareKey=${link.key}`)).status).toBe(404);
    expect((await admin().patch(`${site(s.site.id)}/share-links/${link.id}`, { active: true })).body.active).toBe(true);
    expect((await resolve({ url: withKey })).status).toBe(200);
    // An unpublished site opens for nobody, key or not.
    await admin().post(`${site(s.site.id)}/unpublish`);
    expect((await resolve({ url: withKey })).status).toBe(404);
    expect((await stranger.get(`${site(s.site.id)}/published?shareKey=${link.key}`)).status).toBe(404);
    await admin().post(`${site(s.site.id)}/publish`);
    expect((await resolve({ url: withKey })).status).toBe(200);
    expect((await admin().delete(`${site(s.site.id)}/share-links/${link.id}`)).status).toBe(205);
    expect((await resolve({ url: withKey })).status).toBe(404);
  });

  it('resolve with the key as the first path segment, the form the renderer reads and links with', async () => {
    const s = await publishedSite('share-link', 'Shared in the path');
    const base = `${SITES}/${org.id}/${s.site.id}`;
    const link = (await admin().post(`${site(s.site.id)}/share-links`, { name: 'Readers' })).body;
    // The share link's published URL is the path form, and it opens the site.
    expect(link.urls.published).toBe(`${base}/${link.key}`);
    const root = await resolve({ url: link.urls.published });
    expect(root.status).toBe(200);
    expect(root.body).toMatchObject({ site: s.site.id, shareKey: link.key, siteBasePath: `/sites/${org.id}/${s.site.id}/${link.key}/` });

    const page = await resolve({ url: `${base}/${link.key}/${s.apiSection.path}/overview` });
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({
      page: s.api.ids.overview,
      shareKey: link.key,
      pathname: 'overview',
      basePath: `/sites/${org.id}/${s.site.id}/${link.key}/${s.apiSection.path}/`,
      siteBasePath: `/sites/${org.id}/${s.site.id}/${link.key}/`,
    });
    // A variant in GitBook's form, after the key: `{key}/{section}/v/{site-space}/…`, kept in the base path.
    const variant = await resolve({ url: `${base}/${link.key}/${s.docs.path}/v/${s.second.path}/guides/install/linux` });
    expect(variant.status).toBe(200);
    expect(variant.body).toMatchObject({
      siteSpace: s.second.id,
      space: s.v2.id,
      shareKey: link.key,
      pathname: 'guides/install/linux',
      basePath: `/sites/${org.id}/${s.site.id}/${link.key}/${s.docs.path}/v/${s.second.path}/`,
      page: expect.any(String),
    });
    // Its token reads the site's content as the query form's does.
    const reader = client(t.app, page.body.apiToken);
    expect((await reader.get(`/v1/spaces/${s.api.id}/revisions/${page.body.revision}`)).status).toBe(200);

    // Without a key, with a key of the same form that opens nothing, or with the key further down the path: 404.
    expect((await resolve({ url: `${base}/${s.apiSection.path}/overview` })).status).toBe(404);
    expect((await resolve({ url: `${base}/${'A'.repeat(32)}/${s.apiSection.path}/overview` })).status).toBe(404);
    expect((await resolve({ url: `${base}/${s.apiSection.path}/${link.key}/overview` })).status).toBe(404);
    // The key of another site's link opens nothing here.
    const elsewhere = await publishedSite('share-link', 'Another shared site');
    const foreign = (await admin().post(`${site(elsewhere.site.id)}/share-links`, { name: 'Theirs' })).body;
    expect((await resolve({ url: `${base}/${foreign.key}/${s.apiSection.path}/overview` })).status).toBe(404);
    expect(
      (await resolve({ url: `${SITES}/${org.id}/${elsewhere.site.id}/${foreign.key}/${elsewhere.apiSection.path}/overview` })).status,
    ).toBe(200);

    // Deactivated, the path form closes as the query form does.
    await admin().patch(`${site(s.site.id)}/share-links/${link.id}`, { active: false });
    expect((await resolve({ url: `${base}/${link.key}/${s.apiSection.path}/overview` })).status).toBe(404);
    await admin().patch(`${site(s.site.id)}/share-links/${link.id}`, { active: true });

    // Under a custom hostname and a proxy prefix, the key follows the site's base.
    const tag = `sk${Date.now().toString(36)}`;
    await admin().patch(site(s.site.id), { hostname: `docs.${tag}.example.com` });
    const onHost = await resolve({ url: `https://docs.${tag}.example.com/${link.key}/${s.apiSection.path}/overview` });
    expect(onHost.status).toBe(200);
    expect(onHost.body).toMatchObject({ page: s.api.ids.overview, shareKey: link.key, siteBasePath: `/${link.key}/` });
    await admin().patch(site(s.site.id), { hostname: null, proxy: `www.${tag}.example.com/help` });
    const onProxy = await resolve({ url: `https://www.${tag}.example.com/help/${link.key}/${s.apiSection.path}/overview` });
    expect(onProxy.status).toBe(200);
    expect(onProxy.body).toMatchObject({ page: s.api.ids.overview, shareKey: link.key, siteBasePath: `/help/${link.key}/` });
    await admin().patch(site(s.site.id), { proxy: null });
  });

  it("leave a public site's page paths alone when a segment only looks like a key", async () => {
    const slug = 'getting-started-with-our-api-now';
    expect(slug).toHaveLength(32);
    const space = await spaceWith('Keylike', [{ title: 'Keylike', slug }]);
    const created = (await admin().post(`/v1/orgs/${org.id}/sites`, { title: 'Keylike', visibility: 'public', spaces: [space.id] })).body;
    expect((await admin().post(`${site(created.id)}/publish`)).status).toBe(200);
    const res = await resolve({ url: `${SITES}/${org.id}/${created.id}/${slug}` });
    expect(res.status).toBe(200);
    expect(res.body.page).toBe(space.ids[slug]);
    expect(res.body.shareKey).toBeUndefined();
  });
});

describe('visitor-auth sites', () => {
  let s: Awaited<ReturnType<typeof publishedSite>>;
  let key: string;
  const sign = (claims: object, secret: string, expiresIn = '1h') =>
    new SignJWT({ ...claims })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuedAt()
      .setExpirationTime(expiresIn)
      .sign(new TextEncoder().encode(secret));

  beforeAll(async () => {
    s = await publishedSite('visitor-auth', 'Private docs');
    key = (await admin().get(`${site(s.site.id)}/publishing/auth`)).body.privateKey;
  });

  it('resolve with a valid token only', async () => {
    const url = `${SITES}/${org.id}/${s.site.id}/api/overview`;
    const valid = await resolve({ url, visitor: { jwtToken: await sign({ plan: 'pro' }, key) } });
    expect(valid.status).toBe(200);
    expect(valid.body.contextId).toEqual(expect.any(String));
    const viaGet = await admin().get(`/v1/urls/published?url=${encodeURIComponent(url)}&visitorAuthToken=${await sign({}, key)}`);
    expect(viaGet.status).toBe(200);
    const expired = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime(Math.floor(Date.now() / 1000) - 60)
      .sign(new TextEncoder().encode(key));
    for (const jwtToken of [undefined, expired, await sign({}, 'some other key'), 'not.a.jwt']) {
      const res = await resolve({ url, visitor: jwtToken ? { jwtToken } : undefined });
      expect(res.status).toBe(404);
    }
  });

  it('redirects to the fallback URL on error when asked to', async () => {
    const url = `${SITES}/${org.id}/${s.site.id}/api/overview`;
    expect((await resolve({ url, redirectOnError: true })).status).toBe(404);
    const auth = await admin().patch(`${site(s.site.id)}/publishing/auth`, { fallbackURL: 'https://login.example.com/docs' });
    expect(auth.body).toMatchObject({ object: 'publishing-auth', fallbackURL: 'https://login.example.com/docs', privateKey: key });
    expect((await resolve({ url, redirectOnError: true })).body).toEqual({
      target: 'external',
      site: s.site.id,
      redirect: 'https://login.example.com/docs',
    });
    expect((await resolve({ url, redirectOnError: false })).status).toBe(404);
  });

  it('stops accepting tokens signed with the old key once regenerated', async () => {
    const url = `${SITES}/${org.id}/${s.site.id}/api/overview`;
    const old = await sign({}, key);
    expect((await resolve({ url, visitor: { jwtToken: old } })).status).toBe(200);
    const regenerated = (await admin().post(`${site(s.site.id)}/publishing/auth/regenerate`)).body;
    expect(regenerated.privateKey).not.toBe(key);
    expect((await resolve({ url, visitor: { jwtToken: old } })).status).toBe(404);
    expect((await resolve({ url, visitor: { jwtToken: await sign({}, regenerated.privateKey) } })).status).toBe(200);
    key = regenerated.privateKey;
  });

  it('evaluates conditions on signed claims', async () => {
    await admin().patch(`${site(s.site.id)}/site-spaces/${s.second.id}`, { condition: 'visitor.claims.plan == "pro"' });
    const url = `${SITES}/${org.id}/${s.site.id}/${s.docs.path}/version-two/welcome`;
    const pro = await resolve({ url, visitor: { jwtToken: await sign({ plan: 'pro' }, key) } });
    expect(pro.body).toMatchObject({ siteSpace: s.second.id });
    // Without the claim the site-space is invisible: its path reads as a page path of the default one.
    const free = await resolve({ url, visitor: { jwtToken: await sign({ plan: 'free' }, key) } });
    expect(free.body).toMatchObject({ space: s.v1.id, pathname: 'version-two/welcome' });
    expect(free.body.siteSpace).not.toBe(s.second.id);
    expect(free.body.page).toBeUndefined();
  });
});

describe('adaptive content', () => {
  it('shows conditional sections for the unsigned claims the schema allows', async () => {
    const s = await publishedSite('public', 'Adaptive');
    const schema = {
      type: 'object',
      properties: {
        unsigned: {
          type: 'object',
          description: 'Unsigned claims of the site visitor.',
          properties: { betaUser: { type: 'boolean', description: 'In the beta' } },
          additionalProperties: false,
        },
      },
      additionalProperties: false,
    };
    expect((await admin().put(`${site(s.site.id)}/adaptive-schema`, { jsonSchema: schema })).status).toBe(200);
    expect(
      (await admin().patch(`${site(s.site.id)}/sections/${s.apiSection.id}`, { condition: 'visitor.claims.unsigned.betaUser == true' }))
        .status,
    ).toBe(200);
    const url = `${SITES}/${org.id}/${s.site.id}/api/overview`;
    // Without the claim the section is invisible: its path reads as an unknown page of the default one.
    for (const visitor of [undefined, { unsignedClaims: { betaUser: false } }]) {
      const hidden = await resolve({ url, ...(visitor ? { visitor } : {}) });
      expect(hidden.body).toMatchObject({ siteSection: s.docs.id, pathname: 'api/overview' });
      expect(hidden.body.page).toBeUndefined();
    }
    const beta = await resolve({ url, visitor: { unsignedClaims: { betaUser: true } } });
    expect(beta.body).toMatchObject({ siteSection: s.apiSection.id, page: s.api.ids.overview });
    const wrong = await resolve({ url, visitor: { unsignedClaims: { betaUser: 'yes' } } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.message).toMatch(/unsignedClaims/);
    expect((await resolve({ url, visitor: { unsignedClaims: { admin: true } } })).status).toBe(400);
    // Removing the condition shows the section to everyone.
    expect((await admin().patch(`${site(s.site.id)}/sections/${s.apiSection.id}`, { condition: null })).body.condition).toBeUndefined();
    expect((await resolve({ url })).status).toBe(200);
  });
});

describe('GET /v1/urls/content and /v1/urls/embed', () => {
  it('resolves app URLs of collections, spaces and pages for callers who may see them', async () => {
    const collection = (await admin().post(`/v1/orgs/${org.id}/collections`, { title: 'Handbook' })).body;
    const space = await spaceWith('Content space', TREE);
    const get = (url: string, api = admin()) => api.get(`/v1/urls/content?url=${encodeURIComponent(url)}`);
    expect((await get(`http://docs.test/app/collections/${collection.id}`)).body.collection.id).toBe(collection.id);
    expect((await get(`http://docs.test/app/spaces/${space.id}`)).body.space.id).toBe(space.id);
    const page = await get(`http://docs.test/app/spaces/${space.id}/pages/${space.ids['guides/install/linux']}`);
    expect(page.body.page).toMatchObject({ id: space.ids['guides/install/linux'], path: 'guides/install/linux', title: 'On Linux' });
    expect((await get(`http://docs.test/app/spaces/${space.id}`, other.members.admin.api)).status).toBe(404);
    expect((await get(`http://docs.test/app/spaces/${space.id}/pages/nope`)).status).toBe(404);
    expect((await get('https://elsewhere.example.com/app/spaces/x')).status).toBe(404);
    expect((await get('nonsense')).status).toBe(400);
  });

  it('describes a published page', async () => {
    const s = await publishedSite('public', 'Embeddable');
    const url = `${SITES}/${org.id}/${s.site.id}/api/endpoints`;
    expect((await admin().get(`/v1/urls/embed?url=${encodeURIComponent(url)}`)).body).toEqual({
      title: 'Endpoints',
      site: 'Embeddable',
      type: 'link',
    });
    expect((await admin().get(`/v1/urls/embed?url=${encodeURIComponent(`${url}/nope`)}`)).status).toBe(404);
  });
});

describe("lookups like GitBook's", () => {
  let s: Awaited<ReturnType<typeof publishedSite>>;
  let base: string;
  beforeAll(async () => {
    s = await publishedSite('public', 'Lookups');
    base = `${SITES}/${org.id}/${s.site.id}`;
  });

  it('resolves the site for an unknown page path, with the rest as pathname and no page', async () => {
    const res = await resolve({ url: `${base}/api/no/such/page` });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      site: s.site.id,
      siteSection: s.apiSection.id,
      space: s.api.id,
      pathname: 'no/such/page',
      basePath: `/sites/${org.id}/${s.site.id}/api/`,
      canonicalUrl: `${base}/api/no/such/page`,
      complete: true,
    });
    expect(res.body.page).toBeUndefined();
    expect(res.body.apiToken).toMatch(/^eyJ/);
  });

  it('is complete only when no further segment could pick another section or site-space', async () => {
    const complete = async (path: string) => (await resolve({ url: `${base}${path}` })).body.complete;
    // Two sections: the root could still be followed by a section's path.
    expect(await complete('/')).toBe(false);
    expect(await complete('/welcome')).toBe(false);
    // The docs section has two site-spaces: one must be named.
    expect(await complete(`/${s.docs.path}`)).toBe(false);
    expect(await complete(`/${s.docs.path}/version-two`)).toBe(true);
    expect(await complete(`/${s.docs.path}/version-two/guides/install`)).toBe(true);
    // The API section has one site-space: naming the section settles it.
    expect(await complete('/api')).toBe(true);
  });

  it("picks what the renderer's parallel lookups pick: the primary URL, or a shorter complete one", async () => {
    // The renderer looks up the URL and its prefixes, keeps the full URL's answer or a complete
    // shorter one, and appends the rest of the path to `pathname`.
    const path = ['api', 'endpoints'];
    const answers = await Promise.all(
      path.map(async (_, i) => ({
        extra: path.slice(i + 1).join('/'),
        body: (await resolve({ url: `${base}/${path.slice(0, i + 1).join('/')}` })).body,
      })),
    );
    const accepted = answers.filter((a, i) => i === path.length - 1 || a.body.complete);
    for (const a of accepted) {
      expect(a.body.space).toBe(s.api.id);
      expect([a.body.pathname, a.extra].filter(Boolean).join('/')).toBe('endpoints');
    }
  });

  it('answers a JWT apiToken with the claims the renderer reads', async () => {
    const before = Math.floor(Date.now() / 1000);
    const res = await resolve({ url: `${base}/${s.docs.path}/version-two/welcome`, visitor: { type: 'agent' } });
    const claims = decodeJwt(res.body.apiToken);
    expect(decodeProtectedHeader(res.body.apiToken).alg).toBe('HS256');
    expect(claims).toMatchObject({
      kind: 'site',
      organization: org.id,
      site: s.site.id,
      siteSection: s.docs.id,
      siteSpace: s.second.id,
      space: s.v2.id,
      revision: res.body.revision,
      claims: { unsigned: {} },
      visitorType: 'agent',
    });
    expect([...(claims.spaces as string[])].sort()).toEqual([s.v1.id, s.v2.id, s.api.id].sort());
    // Short-lived: about an hour.
    expect(claims.exp).toBeGreaterThan(before + 3000);
    expect(claims.exp).toBeLessThanOrEqual(before + 3600 + 300);
  });

  it("carries a visitor-auth visitor's signed claims", async () => {
    const own = await publishedSite('visitor-auth', 'Claims');
    const key = (await admin().get(`${site(own.site.id)}/publishing/auth`)).body.privateKey;
    const jwtToken = await new SignJWT({ plan: 'pro', email: 'a@example.com' })
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode(key));
    const res = await resolve({ url: `${SITES}/${org.id}/${own.site.id}/api/overview`, visitor: { jwtToken } });
    expect(decodeJwt(res.body.apiToken).claims).toEqual({ plan: 'pro', email: 'a@example.com', unsigned: {} });
  });
});

describe('files a browser can load', () => {
  let s: Awaited<ReturnType<typeof publishedSite>>;
  let spaceId: string;
  let fileId: string;
  let visitor: ReturnType<typeof client>;

  beforeAll(async () => {
    s = await publishedSite('public', 'Files');
    spaceId = s.api.id;
    const cr = await newChangeRequest(admin(), spaceId, 'A file');
    const done = await edit(admin(), spaceId, cr.id, [
      { operation: 'insert_files', files: [{ name: 'dot.png', contentType: 'image/png', base64: PNG_2X3 }] },
    ]);
    fileId = done.insertedFiles[0].id;
    expect((await admin().post(`/v1/spaces/${spaceId}/change-requests/${cr.id}/merge`)).body.result).toBe('merge');
    const lookup = await resolve({ url: `${SITES}/${org.id}/${s.site.id}/api/overview` });
    visitor = client(t.app, lookup.body.apiToken);
  });

  const load = (url: string) => t.app.inject({ method: 'GET', url: url.replace('http://docs.test', '') });

  it('answers a visitor signed download URLs that load without a header', async () => {
    const file = await visitor.get(`/v1/spaces/${spaceId}/content/files/${fileId}`);
    expect(file.status).toBe(200);
    const url = new URL(file.body.downloadURL);
    expect(url.pathname).toBe(`/files/${spaceId}/${fileId}/download`);
    expect(url.searchParams.get('signature')).toEqual(expect.any(String));
    const bytes = await load(file.body.downloadURL);
    expect(bytes.statusCode).toBe(200);
    expect(bytes.headers['content-type']).toBe('image/png');
    expect(bytes.rawPayload.equals(Buffer.from(PNG_2X3, 'base64'))).toBe(true);
    // The revision's file list carries them too.
    const revision = await visitor.get(`/v1/spaces/${spaceId}/content`);
    expect(revision.body.files[0].downloadURL).toBe(file.body.downloadURL);
    // Members keep the API's own route.
    const member = await admin().get(`/v1/spaces/${spaceId}/content/files/${fileId}`);
    expect(member.body.downloadURL).toBe(`http://docs.test/v1/spaces/${spaceId}/content/files/${fileId}/download`);
  });

  it('stops working after expiry or with a changed signature, revision or file', async () => {
    const url = (await visitor.get(`/v1/spaces/${spaceId}/content/files/${fileId}`)).body.downloadURL as string;
    const parsed = new URL(url);
    const signature = parsed.searchParams.get('signature')!;
    const changed = (name: string, value: string) => {
      const copy = new URL(url);
      copy.searchParams.set(name, value);
      return copy.toString();
    };
    const flipped = signature.slice(0, -1) + (signature.endsWith('A') ? 'B' : 'A');
    for (const bad of [
      changed('signature', flipped),
      changed('expires', String(Number(parsed.searchParams.get('expires')) + 3600)),
      changed('revision', 'otherRevision'),
      url.replace(`/${fileId}/download`, '/otherFile/download'),
    ]) {
      const res = await load(bad);
      expect([bad, res.statusCode]).toEqual([bad, 403]);
      expect(res.json().error.code).toBe(403);
    }
    // A link signed two hours ago has expired.
    const key = await t.app.deps.fileUrlKey();
    const old = signedFileUrls(
      key,
      'http://docs.test',
      spaceId,
      parsed.searchParams.get('revision')!,
      Math.floor(Date.now() / 1000) - 7200,
    )(fileId);
    const expired = await load(old);
    expect(expired.statusCode).toBe(403);
    expect(expired.json().error.message).toMatch(/expired/);
    expect((await load(url.split('?')[0])).statusCode).toBe(400);
  });
});

void eventually;

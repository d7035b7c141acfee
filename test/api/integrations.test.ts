import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { secretBox } from '../../src/lib/secrets.ts';
import { addMember, client, createTestOrg, startTestApp, type Api, type TestApp, type TestOrg } from '../support/harness.ts';
import { expect400, PNG_1X1, sql } from '../support/fixtures.ts';

const SECRETS_KEY = randomBytes(32).toString('base64');
const GIF = 'R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7';
const SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16"><rect width="16" height="16"/></svg>').toString(
  'base64',
);
const SECRET_VALUE = `s3cr3t-${randomBytes(8).toString('hex')}`;
const SCRIPT = `export default { fetch() { return new Response('hello ${randomBytes(4).toString('hex')}') } }`;

let t: TestApp;
let owner: TestOrg;
let installer: TestOrg;
let stranger: TestOrg;
/** Every response body seen, to check that no secret ever leaves the service. */
const seen: string[] = [];

beforeAll(async () => {
  t = await startTestApp({ SECRETS_KEY });
  owner = await createTestOrg(t, 'Integration owner');
  installer = await createTestOrg(t, 'Installer org');
  stranger = await createTestOrg(t, 'Stranger org');
});
afterAll(async () => {
  const all = seen.join('\n');
  expect(all).not.toContain(SECRET_VALUE);
  expect(all).not.toContain(SCRIPT);
  await t.close();
});

function recording(api: Api): Api {
  const wrap =
    (fn: (...args: any[]) => Promise<any>) =>
    async (...args: any[]) => {
      const res = await fn(...args);
      seen.push(JSON.stringify(res.body ?? null));
      return res;
    };
  return { get: wrap(api.get), post: wrap(api.post), patch: wrap(api.patch), put: wrap(api.put), delete: wrap(api.delete) };
}
const as = (o: TestOrg, role: keyof TestOrg['members'] = 'admin') => recording(o.members[role].api);

let counter = 0;
const uniqueName = (prefix = 'integ') => `${prefix}-${++counter}-${randomBytes(3).toString('hex')}`;

function publishBody(o: TestOrg, extra: Record<string, unknown> = {}) {
  return { title: 'My integration', description: 'Does things', script: SCRIPT, organization: o.id, ...extra };
}

async function publish(name: string, o: TestOrg = owner, extra: Record<string, unknown> = {}) {
  const res = await as(o).post(`/v1/integrations/${name}`, publishBody(o, extra));
  expect([res.status, res.body?.error]).toEqual([200, undefined]);
  return res.body;
}

describe('publishing', () => {
  it('creates an integration, then each publication increments its version', async () => {
    const name = uniqueName();
    const first = await publish(name, owner, {
      icon: PNG_1X1,
      previewImages: [GIF, SVG],
      summary: '# Summary',
      visibility: 'public',
      target: 'space',
      scopes: ['space:content:read'],
      categories: ['content'],
      blocks: [{ id: 'embed', title: 'Embed', urlUnfurl: ['https://www.example.com/**'] }],
      externalLinks: [{ url: 'https://example.com/docs', label: 'Docs' }],
      configurations: { account: { properties: { token: { type: 'string', title: 'Token' } }, required: ['token'] } },
      secrets: { API_KEY: SECRET_VALUE },
      contentSecurityPolicy: { 'script-src': "'self'" },
    });
    expect(first).toMatchObject({
      object: 'integration',
      name,
      version: 1,
      title: 'My integration',
      description: 'Does things',
      summary: '# Summary',
      visibility: 'public',
      target: 'space',
      verified: false,
      scopes: ['space:content:read'],
      categories: ['content'],
      blocks: [{ id: 'embed', title: 'Embed', urlUnfurl: ['https://www.example.com/**'] }],
      contentSources: [],
      externalLinks: [{ url: 'https://example.com/docs', label: 'Docs' }],
      configurations: { account: { properties: { token: { type: 'string', title: 'Token' } }, required: ['token'] } },
      owner: { object: 'organization', id: owner.id },
      permissions: { admin: true, install: true },
      contentSecurityPolicy: { 'script-src': "'self'" },
      urls: {
        location: `http://docs.test/v1/integrations/${name}`,
        icon: `http://docs.test/v1/integrations/${name}/assets/icon?v=1`,
        app: `http://docs.test/app/integrations/${name}`,
        assets: `http://docs.test/v1/integrations/${name}/assets/`,
      },
    });
    expect(first.previewImages).toEqual([0, 1].map((i) => `http://docs.test/v1/integrations/${name}/assets/preview-${i}?v=1`));
    expect(first.secrets).toBeUndefined();
    expect(first.script).toBeUndefined();

    const second = await publish(name, owner, { title: 'Renamed', visibility: 'public' });
    expect(second).toMatchObject({ version: 2, title: 'Renamed', blocks: [], scopes: [], previewImages: [] });
    expect(second.urls.icon).toBeUndefined();
    const third = await publish(name, owner, { visibility: 'public' });
    expect(third.version).toBe(3);
    expect((await as(owner, 'read').get(`/v1/integrations/${name}`)).body.version).toBe(3);
  });

  it('serves the icon and preview images it was given', async () => {
    const name = uniqueName();
    const published = await publish(name, owner, { icon: PNG_1X1, previewImages: [SVG], visibility: 'unlisted' });
    const icon = await t.app.inject({
      method: 'GET',
      url: new URL(published.urls.icon).pathname,
      headers: { authorization: `Bearer ${stranger.members.read.token}` },
    });
    expect(icon.statusCode).toBe(200);
    expect(icon.headers['content-type']).toBe('image/png');
    expect(icon.rawPayload.equals(Buffer.from(PNG_1X1, 'base64'))).toBe(true);
    const svg = await t.app.inject({
      method: 'GET',
      url: new URL(published.previewImages[0]).pathname,
      headers: { authorization: `Bearer ${owner.members.admin.token}` },
    });
    expect(svg.headers['content-type']).toBe('image/svg+xml');
    expect(svg.headers['content-security-policy']).toMatch(/sandbox/);
    expect((await as(owner).get(`/v1/integrations/${name}/assets/preview-1`)).status).toBe(404);
  });

  it('stores secrets encrypted, keeps them across publications without secrets, and never returns them', async () => {
    const name = uniqueName();
    await publish(name, owner, { secrets: { API_KEY: SECRET_VALUE, OTHER: 'two' } });
    const [row] = await sql<{ secrets_sealed: string; script: string }>(
      t,
      'select secrets_sealed, script from integration where name = ?',
      [name],
    );
    expect(row.secrets_sealed).not.toContain(SECRET_VALUE);
    expect(row.secrets_sealed).not.toContain('API_KEY');
    expect(Buffer.from(row.secrets_sealed.split('.')[3], 'base64url').toString('utf8')).not.toContain(SECRET_VALUE);
    const box = secretBox(Buffer.from(SECRETS_KEY, 'base64'));
    expect(JSON.parse(box.open(row.secrets_sealed, `integration:${name}`))).toEqual({ API_KEY: SECRET_VALUE, OTHER: 'two' });
    expect(() => box.open(row.secrets_sealed, 'integration:another')).toThrow();
    expect(row.script).toBe(SCRIPT);

    await publish(name, owner, {});
    const [kept] = await sql<{ secrets_sealed: string }>(t, 'select secrets_sealed from integration where name = ?', [name]);
    expect(JSON.parse(box.open(kept.secrets_sealed, `integration:${name}`))).toEqual({ API_KEY: SECRET_VALUE, OTHER: 'two' });
    await publish(name, owner, { secrets: {} });
    const [cleared] = await sql<{ secrets_sealed: string }>(t, 'select secrets_sealed from integration where name = ?', [name]);
    expect(JSON.parse(box.open(cleared.secrets_sealed, `integration:${name}`))).toEqual({});
  });

  it('publishes under an organization given by its subdomain', async () => {
    const subdomain = `acme-${randomBytes(3).toString('hex')}`;
    await sql(t, 'update organization set subdomain = ? where id = ?', [subdomain, owner.id]);
    const name = uniqueName();
    const res = await as(owner).post(`/v1/integrations/${name}`, publishBody(owner, { organization: subdomain }));
    expect(res.status).toBe(200);
    expect(res.body.owner.id).toBe(owner.id);
    expect(
      (await as(owner).post(`/v1/integrations/${uniqueName()}`, publishBody(owner, { organization: 'no-such-subdomain' }))).status,
    ).toBe(404);
  });

  it('enforces every limit with a 400 naming the field', async () => {
    const post = (name: string, extra: Record<string, unknown>) => as(owner).post(`/v1/integrations/${name}`, publishBody(owner, extra));
    expect400(await post('x'.repeat(101), {}), /integrationName/);
    expect400(await post('bad%20name', {}), /integrationName/);
    expect((await post('y'.repeat(100), {})).status).toBe(200);
    const name = uniqueName();
    expect400(await post(name, { title: 'x' }), /title/);
    expect400(await post(name, { title: 'x'.repeat(31) }), /title/);
    expect((await post(uniqueName(), { title: 'x'.repeat(30) })).status).toBe(200);
    expect400(await post(name, { description: 'x'.repeat(101) }), /description/);
    expect400(await post(name, { summary: 'x'.repeat(2049) }), /summary/);
    expect((await post(uniqueName(), { summary: 'x'.repeat(2048) })).status).toBe(200);
    expect400(await post(name, { previewImages: [PNG_1X1, PNG_1X1, PNG_1X1, PNG_1X1] }), /previewImages/);
    expect((await post(uniqueName(), { previewImages: [PNG_1X1, GIF, SVG] })).status).toBe(200);
    expect400(await as(owner).post(`/v1/integrations/${name}`, { title: 'Title', description: 'd', organization: owner.id }), /script/);
    expect400(await as(owner).post(`/v1/integrations/${name}`, { title: 'Title', description: 'd', script: 'x' }), /organization/);
    expect400(await as(owner).post(`/v1/integrations/${name}`, { description: 'd', script: 'x', organization: owner.id }), /title/);
    expect400(await post(name, { icon: 'not base64!' }), /icon/);
    expect400(await post(name, { icon: Buffer.from('plain text, not an image').toString('base64') }), /icon/);
    const bmp = Buffer.alloc(64);
    bmp.write('BM');
    bmp.writeUInt32LE(1, 18);
    bmp.writeInt32LE(1, 22);
    expect400(await post(name, { previewImages: [PNG_1X1, bmp.toString('base64')] }), /previewImages\[1\]/);
    expect400(await post(name, { secrets: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`K${i}`, 'v'])) }), /secrets/);
    expect400(await post(name, { secrets: { 'bad key': 'v' } }), /secrets/);
    expect400(await post(name, { visibility: 'secret' }), /visibility/);
    expect400(await post(name, { target: 'everything' }), /target/);
    expect400(await post(name, { scopes: ['space:everything'] }), /scopes/);
    expect400(await post(name, { categories: ['games'] }), /categories/);
    expect400(
      await post(name, { externalLinks: Array.from({ length: 6 }, () => ({ url: 'https://e.com', label: 'l' })) }),
      /externalLinks/,
    );
    expect400(await post(name, { blocks: [{ id: 'b', title: 'x' }] }), /blocks/);
    expect400(await post(name, { configurations: { account: {} } }), /configurations\.account/);
    expect400(
      await post(name, { configurations: { account: { properties: { n: { type: 'number', default: 'one' } } } } }),
      /configurations\.account\.properties\.n\.default/,
    );
    expect400(
      await post(name, { configurations: { space: { properties: {}, required: ['missing'] } } }),
      /configurations\.space\.required\[0\]/,
    );
    // nothing of the refused publications was stored
    expect((await as(owner).get(`/v1/integrations/${name}`)).status).toBe(404);
  });

  it('needs the admin role in the publishing organization', async () => {
    const name = uniqueName();
    for (const role of ['create', 'review', 'edit', 'comment', 'read', 'guest'] as const) {
      const res = await as(owner, role).post(`/v1/integrations/${name}`, publishBody(owner));
      expect([role, res.status, res.body.error.code]).toEqual([role, 403, 403]);
    }
    // an organization the caller is not in is not found
    expect((await as(stranger).post(`/v1/integrations/${name}`, publishBody(owner))).status).toBe(404);
    expect((await client(t.app).post(`/v1/integrations/${name}`, publishBody(owner))).status).toBe(401);
  });

  it('refuses a name another organization already publishes', async () => {
    const name = uniqueName();
    await publish(name, owner);
    const res = await as(stranger).post(`/v1/integrations/${name}`, publishBody(stranger));
    expect(res.status).toBe(409);
    expect(res.body.error.message).toMatch(/integrationName/);
  });
});

describe('visibility and listing', () => {
  let lister: TestOrg;
  const names: Record<string, string> = {};

  beforeAll(async () => {
    lister = await createTestOrg(t, 'Listing owner');
    const p = (key: string, extra: Record<string, unknown>) =>
      publish((names[key] = uniqueName(`list-${key}`)), lister, extra).then(() => undefined);
    await p('public', {
      visibility: 'public',
      title: 'Weather widget',
      categories: ['content'],
      blocks: [{ id: 'w', title: 'Weather', urlUnfurl: ['https://maps.Example.org/*'] }],
    });
    await p('unlisted', {
      visibility: 'unlisted',
      categories: ['analytics'],
      contentSources: [{ id: 's', title: 'Source', configuration: { componentId: 'c' } }],
    });
    await p('private', { visibility: 'private', categories: ['analytics'] });
  });

  const list = async (api: Api, query: string) => {
    const res = await api.get(`/v1/integrations?owner=${lister.id}${query}`);
    expect(res.status).toBe(200);
    return res.body.items.map((i: { name: string }) => i.name).sort();
  };
  const sorted = (...keys: string[]) => keys.map((k) => names[k]).sort();

  it('shows public integrations to everyone and the others to members of the owner', async () => {
    expect(await list(as(stranger, 'read'), '')).toEqual(sorted('public'));
    expect(await list(as(lister, 'read'), '')).toEqual(sorted('public', 'unlisted', 'private'));
    expect(await list(as(lister, 'guest'), '')).toEqual(sorted('public', 'unlisted', 'private'));
    expect((await as(stranger, 'read').get(`/v1/integrations/${names.unlisted}`)).status).toBe(200);
    expect((await as(stranger, 'read').get(`/v1/integrations/${names.private}`)).status).toBe(404);
    const seenByStranger = (await as(stranger, 'read').get(`/v1/integrations/${names.public}`)).body;
    expect(seenByStranger.permissions).toEqual({ admin: false, install: false });
    expect(seenByStranger.owner.permissions.view).toBe(false);
    expect((await as(stranger).get(`/v1/integrations/${names.public}`)).body.permissions).toEqual({ admin: false, install: true });
    expect((await as(lister, 'read').get(`/v1/integrations/${names.private}`)).body.permissions).toEqual({ admin: false, install: false });
    expect((await client(t.app).get('/v1/integrations')).status).toBe(401);
  });

  it('filters by search, category, block domain, blocks and content sources', async () => {
    const api = as(lister, 'read');
    expect(await list(api, '&search=weather')).toEqual(sorted('public'));
    expect(await list(api, `&search=${encodeURIComponent(names.private.slice(0, 12))}`)).toEqual(sorted('private'));
    expect(await list(api, '&search=%25')).toEqual([]);
    expect(await list(api, '&category=analytics')).toEqual(sorted('unlisted', 'private'));
    expect(await list(api, '&blockDomain=example.org')).toEqual(sorted('public'));
    expect(await list(api, '&blockDomain=maps.example.org')).toEqual(sorted('public'));
    expect(await list(api, '&blockDomain=example.com')).toEqual([]);
    expect(await list(api, '&blocks=true')).toEqual(sorted('public'));
    expect(await list(api, '&blocks=false')).toEqual(sorted('unlisted', 'private'));
    expect(await list(api, '&contentSources=true')).toEqual(sorted('unlisted'));
    expect(await list(api, '&contentSources=false')).toEqual(sorted('public', 'private'));
    expect400(await api.get('/v1/integrations?category=games'), /category/);
    expect400(await api.get(`/v1/integrations?blockDomain=${'x'.repeat(101)}`), /blockDomain/);
    expect400(await api.get('/v1/integrations?blockDomain=bad%2Fdomain'), /blockDomain/);
    expect400(await api.get('/v1/integrations?limit=1001'), /limit/);
  });

  it('paginates', async () => {
    const api = as(lister, 'read');
    const all: string[] = [];
    let page: string | undefined;
    do {
      const res = await api.get(`/v1/integrations?owner=${lister.id}&limit=2${page ? `&page=${encodeURIComponent(page)}` : ''}`);
      expect(res.body.count).toBe(3);
      all.push(...res.body.items.map((i: { name: string }) => i.name));
      page = res.body.next?.page;
    } while (page);
    expect(all).toEqual(sorted('public', 'unlisted', 'private'));
  });
});

describe('installations', () => {
  let name: string;
  const account = {
    properties: {
      token: { type: 'string', title: 'API token' },
      region: { type: 'string', title: 'Region', enum: ['eu', 'us'] },
      retries: { type: 'number', title: 'Retries' },
      verbose: { type: 'boolean', title: 'Verbose' },
      connect: { type: 'button', title: 'Connect', callback_url: '/connect', button_text: 'Connect' },
    },
    required: ['token', 'region'],
  };

  beforeAll(async () => {
    name = uniqueName('inst');
    await publish(name, owner, { visibility: 'public', configurations: { account } });
  });
  const url = () => `/v1/integrations/${name}/installations`;

  it('installs with a configuration checked against the account schema', async () => {
    const post = (configuration: unknown) => as(installer).post(url(), { organization: installer.id, configuration });
    expect400(await post({ region: 'eu' }), /configuration\.token is required/);
    expect400(await post({ token: 't', region: 'asia' }), /configuration\.region must be one of/);
    expect400(await post({ token: 't', region: 'eu', retries: 'three' }), /configuration\.retries/);
    expect400(await post({ token: 't', region: 'eu', verbose: 'yes' }), /configuration\.verbose/);
    expect400(await post({ token: 't', region: 'eu', colour: 'red' }), /configuration\.colour/);
    const res = await post({ token: 't', region: 'eu', retries: 3 });
    expect(res.status).toBe(201);
    expect(res.headers.location).toBe(`http://docs.test/v1/integrations/${name}/installations/${res.body.id}`);
    expect(res.body).toMatchObject({
      status: 'active',
      configuration: { token: 't', region: 'eu', retries: 3 },
      target: { organization: installer.id },
      externalIds: [],
      spaces: 0,
    });
    expect((await post({ token: 't', region: 'eu' })).status).toBe(409);
  });

  it('waits for a configuration when installed without one', async () => {
    const other = await createTestOrg(t, 'Pending org');
    const res = await as(other).post(url(), { organization: other.id, externalIds: ['ext-1'] });
    expect(res.status).toBe(201);
    expect(res.body.status).toBe('pending');
    const installation = `${url()}/${res.body.id}`;
    expect400(await as(other).patch(installation, { configuration: { token: 't' } }), /configuration\.region/);
    const updated = await as(other).patch(installation, { configuration: { token: 't', region: 'us' }, externalIds: ['ext-1', 'ext-2'] });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ status: 'active', configuration: { token: 't', region: 'us' }, externalIds: ['ext-1', 'ext-2'] });
    expect400(await as(other).patch(installation, { externalIds: ['1', '2', '3', '4', '5', '6'] }), /externalIds/);
    expect400(await as(other).patch(installation, {}), /body/);
  });

  it('needs the admin role in the installing organization', async () => {
    for (const role of ['create', 'review', 'edit', 'comment', 'read', 'guest'] as const) {
      const res = await as(stranger, role).post(url(), { organization: stranger.id });
      expect([role, res.status]).toEqual([role, 403]);
    }
    expect((await as(installer).post(url(), { organization: stranger.id })).status).toBe(404);
    expect((await client(t.app).post(url(), { organization: stranger.id })).status).toBe(401);
  });

  it('keeps private integrations to their owner', async () => {
    const privateName = uniqueName('private');
    await publish(privateName, owner, { visibility: 'private' });
    expect((await as(installer).post(`/v1/integrations/${privateName}/installations`, { organization: installer.id })).status).toBe(404);
    await addMember(t, installer.id, owner.members.admin.userId, 'admin');
    const res = await as(owner).post(`/v1/integrations/${privateName}/installations`, { organization: installer.id });
    expect(res.status).toBe(403);
    expect((await as(owner).post(`/v1/integrations/${privateName}/installations`, { organization: owner.id })).status).toBe(201);
    await addMember(t, installer.id, owner.members.admin.userId, null);
  });

  it('lists installations: all for the owner admins, their own for other admins', async () => {
    const third = await createTestOrg(t, 'Third org');
    const mine = await as(third).post(url(), {
      organization: third.id,
      configuration: { token: 'x', region: 'us' },
      externalIds: ['third-ext'],
    });
    expect(mine.status).toBe(201);
    const ownerView = await as(owner).get(url());
    expect(ownerView.status).toBe(200);
    expect(ownerView.body.items.map((i: any) => i.target.organization)).toEqual(expect.arrayContaining([installer.id, third.id]));
    const thirdView = await as(third).get(url());
    expect(thirdView.body.items.map((i: any) => i.id)).toEqual([mine.body.id]);
    expect((await as(third, 'read').get(url())).body.items).toEqual([]);
    const filtered = await as(owner).get(`${url()}?externalId=third-ext`);
    expect(filtered.body.items.map((i: any) => i.id)).toEqual([mine.body.id]);
    const firstPage = await as(owner).get(`${url()}?limit=1`);
    expect(firstPage.body.items).toHaveLength(1);
    expect(firstPage.body.next.page).toEqual(expect.any(String));
    const secondPage = await as(owner).get(`${url()}?limit=1&page=${encodeURIComponent(firstPage.body.next.page)}`);
    expect(secondPage.body.items[0].id).not.toBe(firstPage.body.items[0].id);
    expect400(await as(owner).get(`${url()}?limit=1001`), /limit/);

    // one installation: its organization's admins and the owner's admins; 404 for others outside it
    const one = `${url()}/${mine.body.id}`;
    expect((await as(owner).get(one)).status).toBe(200);
    expect((await as(third).get(one)).status).toBe(200);
    expect((await as(third, 'read').get(one)).status).toBe(403);
    expect((await as(stranger).get(one)).status).toBe(404);
    // the owner's admins read it but cannot change another organization's installation
    expect((await as(owner).patch(one, { externalIds: [] })).status).toBe(404);
    expect((await as(third, 'edit').delete(one)).status).toBe(403);
    expect((await as(third).delete(one)).status).toBe(205);
    expect((await as(third).get(one)).status).toBe(404);
  });
});

describe('unpublishing', () => {
  it('needs the admin role of the owner and removes the installations', async () => {
    const name = uniqueName('gone');
    await publish(name, owner, { visibility: 'public' });
    const installed = await as(installer).post(`/v1/integrations/${name}/installations`, { organization: installer.id });
    expect(installed.status).toBe(201);
    for (const role of ['create', 'read'] as const) expect((await as(owner, role).delete(`/v1/integrations/${name}`)).status).toBe(403);
    expect((await as(installer).delete(`/v1/integrations/${name}`)).status).toBe(403);
    const res = await as(owner).delete(`/v1/integrations/${name}`);
    expect(res.status).toBe(204);
    expect((await as(owner).get(`/v1/integrations/${name}`)).status).toBe(404);
    expect((await as(owner).get(`/v1/integrations/${name}/installations`)).status).toBe(404);
    const left = await sql<{ n: string }>(t, 'select count(*) as n from integration_installation where integration_name = ?', [name]);
    expect(Number(left[0].n)).toBe(0);
    expect((await as(owner).delete(`/v1/integrations/${name}`)).status).toBe(404);
  });

  it('does not reveal private integrations of other organizations', async () => {
    const name = uniqueName('hidden');
    await publish(name, owner, { visibility: 'private' });
    for (const [method, path] of [
      ['get', ''],
      ['delete', ''],
      ['get', '/installations'],
      ['get', '/assets/icon'],
    ] as const) {
      expect([method, path, (await (as(stranger) as any)[method](`/v1/integrations/${name}${path}`)).status]).toEqual([method, path, 404]);
    }
    expect((await as(stranger).post(`/v1/integrations/${name}/installations`, { organization: stranger.id })).status).toBe(404);
  });
});

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHash, randomBytes } from 'node:crypto';
import { client, createTestOrg, startTestApp, type Api, type TestApp, type TestOrg } from '../support/harness.ts';
import { expect400, sql } from '../support/fixtures.ts';

/**
 * Installations on spaces and sites, the organization's views of its integrations, and tokens
 * acting as an installation. Every successful answer is checked against GitBook's schema of its
 * operation (test/support/answer-check.ts).
 */

let t: TestApp;
let owner: TestOrg;
let installer: TestOrg;
let other: TestOrg;
let stranger: TestOrg;

beforeAll(async () => {
  t = await startTestApp();
  [owner, installer, other, stranger] = await Promise.all([
    createTestOrg(t, 'Integration owner'),
    createTestOrg(t, 'Installer'),
    createTestOrg(t, 'Other installer'),
    createTestOrg(t, 'Stranger'),
  ]);
});
afterAll(async () => {
  await t.close();
});

const as = (o: TestOrg, role: keyof TestOrg['members'] = 'admin'): Api => o.members[role].api;
let counter = 0;
const uniqueName = (prefix: string) => `${prefix}-${++counter}-${randomBytes(3).toString('hex')}`;
const SCRIPT = 'export default { fetch() { return new Response("ok") } }';

const configurations = {
  account: { properties: { token: { type: 'string', title: 'API token' } }, required: ['token'] },
  space: {
    properties: { channel: { type: 'string', title: 'Channel' }, mode: { type: 'string', title: 'Mode', enum: ['all', 'some'] } },
    required: ['channel'],
  },
  site: {
    properties: { trackingId: { type: 'string', title: 'Tracking ID' }, sample: { type: 'number', title: 'Sample' } },
    required: ['trackingId'],
  },
};

async function publish(name: string, extra: Record<string, unknown> = {}) {
  const res = await as(owner).post(`/v1/integrations/${name}`, {
    title: 'Installed integration',
    description: 'Does things',
    script: SCRIPT,
    organization: owner.id,
    visibility: 'public',
    configurations,
    ...extra,
  });
  expect([res.status, res.body?.error]).toEqual([200, undefined]);
  return res.body;
}

async function install(name: string, o: TestOrg, configuration: Record<string, unknown> | undefined = { token: 't' }) {
  const res = await as(o).post(`/v1/integrations/${name}/installations`, {
    organization: o.id,
    ...(configuration ? { configuration } : {}),
  });
  expect([res.status, res.body?.error]).toEqual([201, undefined]);
  return res.body.id as string;
}

async function space(o: TestOrg, title = 'Space') {
  const res = await as(o).post(`/v1/orgs/${o.id}/spaces`, { title });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

async function site(o: TestOrg, title = 'Site') {
  const res = await as(o).post(`/v1/orgs/${o.id}/sites`, { title });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

describe('space installations', () => {
  const name = uniqueName('spaces');
  let installation: string;
  let first: string;
  let second: string;
  const url = (spaceId: string, inst = installation) => `/v1/integrations/${name}/installations/${inst}/spaces/${spaceId}`;

  beforeAll(async () => {
    await publish(name);
    installation = await install(name, installer);
    [first, second] = await Promise.all([space(installer, 'First'), space(installer, 'Second')]);
  });

  it('are enabled by configuring the space, the configuration checked against the declared space properties', async () => {
    expect400(await as(installer).patch(url(first), { configuration: { mode: 'all' } }), /configuration\.channel is required/);
    expect400(await as(installer).patch(url(first), { configuration: { channel: 3 } }), /configuration\.channel/);
    expect400(
      await as(installer).patch(url(first), { configuration: { channel: 'c', mode: 'none' } }),
      /configuration\.mode must be one of/,
    );
    expect400(
      await as(installer).patch(url(first), { configuration: { channel: 'c', colour: 'red' } }),
      /configuration\.colour is not a property of this integration's space configuration/,
    );
    expect400(await as(installer).patch(url(first), { configuration: { channel: 'x'.repeat(70_000) } }), /at most 65536 bytes/);
    expect400(await as(installer).patch(url(first), { externalIds: ['1', '2', '3', '4', '5', '6'] }), /externalIds/);
    expect((await as(installer).get(url(first))).status).toBe(404);

    const res = await as(installer).patch(url(first), { configuration: { channel: 'general', mode: 'all' }, externalIds: ['ext-a'] });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      integration: name,
      installation,
      space: first,
      status: 'active',
      configuration: { channel: 'general', mode: 'all' },
      externalIds: ['ext-a'],
      urls: { location: `http://docs.test${url(first)}` },
    });
    // Without the required channel, the second space waits for its configuration.
    const pending = await as(installer).patch(url(second), { externalIds: ['ext-b'] });
    expect([pending.status, pending.body.status]).toEqual([200, 'pending']);
    const configured = await as(installer).patch(url(second), { configuration: { channel: 'random' } });
    expect([configured.body.status, configured.body.externalIds]).toEqual(['active', ['ext-b']]);
  });

  it('are read, listed (with the spaces when extended) and counted on the installation', async () => {
    const one = await as(installer).get(`${url(first)}?extended=true`);
    expect(one.status).toBe(200);
    expect(one.body.space).toMatchObject({ object: 'space', id: first, title: 'First' });
    const list = await as(installer).get(`/v1/integrations/${name}/installations/${installation}/spaces?limit=1`);
    expect([list.body.count, list.body.items.length, typeof list.body.next?.page]).toEqual([2, 1, 'string']);
    const rest = await as(installer).get(
      `/v1/integrations/${name}/installations/${installation}/spaces?limit=1&page=${list.body.next.page}`,
    );
    expect([...list.body.items, ...rest.body.items].map((i: { space: string }) => i.space).sort()).toEqual([first, second].sort());
    expect((await as(installer).get(`/v1/integrations/${name}/installations/${installation}`)).body.spaces).toBe(2);

    // By integration: everything for admins of its owner, by external ID too; nothing of the installer's for a stranger.
    const all = await as(owner).get(`/v1/integrations/${name}/spaces?externalId=ext-a`);
    expect(all.body.items.map((i: { space: string }) => i.space)).toEqual([first]);
    expect((await as(stranger).get(`/v1/integrations/${name}/spaces`)).body.items).toEqual([]);
    expect(
      (await as(owner).get(`/v1/integrations/${name}/spaces?extended=true`)).body.items.map((i: { space: unknown }) => i.space),
    ).toEqual(expect.arrayContaining([first, second]));
  });

  it('need the admin role on the space; other organizations get 404', async () => {
    const res = await as(installer, 'edit').patch(url(first), { configuration: { channel: 'mine' } });
    expect([res.status, res.body.error.code]).toEqual([403, 403]);
    expect((await as(installer, 'edit').delete(url(first))).status).toBe(403);
    expect((await as(installer, 'read').get(url(first))).status).toBe(403);
    expect((await as(stranger).patch(url(first), { configuration: { channel: 'x' } })).status).toBe(404);
    expect((await as(stranger).get(url(first))).status).toBe(404);
    // A space of another organization cannot take this organization's installation.
    const foreign = await space(stranger, 'Foreign');
    expect((await as(stranger).patch(url(foreign), { configuration: { channel: 'x' } })).status).toBe(404);
    expect((await as(installer).patch(url(foreign), { configuration: { channel: 'x' } })).status).toBe(404);
    expect((await client(t.app).get(url(first))).status).toBe(401);
  });

  it('are uninstalled from a space: 205, then 204', async () => {
    const third = await space(installer, 'Third');
    expect((await as(installer).patch(url(third), { configuration: { channel: 'x' } })).status).toBe(200);
    expect((await as(installer).delete(url(third))).status).toBe(205);
    expect((await as(installer).delete(url(third))).status).toBe(204);
    expect((await as(installer).get(url(third))).status).toBe(404);
  });
});

describe('site installations', () => {
  const name = uniqueName('sites');
  let installation: string;
  let siteId: string;
  const base = () => `/v1/integrations/${name}/installations/${installation}/sites`;

  beforeAll(async () => {
    await publish(name);
    installation = await install(name, installer);
    siteId = await site(installer);
  });

  it('are installed on a site of the organization (pending until configured), once', async () => {
    expect((await as(installer, 'edit').post(base(), { siteId })).status).toBe(403);
    expect((await as(stranger).post(base(), { siteId })).status).toBe(404);
    expect((await as(installer).post(base(), { siteId: await site(stranger, 'Foreign') })).status).toBe(404);
    expect400(await as(installer).post(base(), {}), /siteId/);
    const res = await as(installer).post(base(), { siteId });
    expect(res.status).toBe(201);
    expect(res.headers.location).toBe(`http://docs.test${base()}/${siteId}`);
    expect(res.body).toMatchObject({ integration: name, installation, site: siteId, status: 'pending', configuration: {} });
    expect((await as(installer).post(base(), { siteId })).status).toBe(409);
  });

  it('are configured against the declared site properties, read and listed', async () => {
    const url = `${base()}/${siteId}`;
    expect400(await as(installer).patch(url, { configuration: { sample: 1 } }), /configuration\.trackingId is required/);
    expect400(await as(installer).patch(url, { configuration: { trackingId: 'G-1', sample: 'all' } }), /configuration\.sample/);
    expect((await as(installer, 'edit').patch(url, { configuration: { trackingId: 'G-1' } })).status).toBe(403);
    const res = await as(installer).patch(url, { configuration: { trackingId: 'G-1', sample: 0.5 }, externalIds: ['e'] });
    expect(res.body).toMatchObject({ status: 'active', configuration: { trackingId: 'G-1', sample: 0.5 }, externalIds: ['e'] });
    expect((await as(installer).get(`${url}?extended=true`)).body.site).toMatchObject({ object: 'site', id: siteId });
    expect((await as(installer).get(base())).body.items.map((i: { site: string }) => i.site)).toEqual([siteId]);
    expect((await as(owner).get(`/v1/integrations/${name}/sites?externalId=e`)).body.items.map((i: { site: string }) => i.site)).toEqual([
      siteId,
    ]);
    expect((await as(stranger).get(`/v1/integrations/${name}/sites`)).body.items).toEqual([]);
    expect((await as(installer).patch(`${base()}/${await site(installer, 'Not installed')}`, { configuration: {} })).status).toBe(404);

    // The site lists the integrations enabled on it, for its readers.
    const listed = await as(installer, 'read').get(`/v1/orgs/${installer.id}/sites/${siteId}/integrations`);
    expect(listed.body.items.map((i: { name: string }) => i.name)).toEqual([name]);
    expect(
      (await as(installer, 'read').get(`/v1/orgs/${installer.id}/sites/${siteId}/integrations?search=nothing-like-it`)).body.items,
    ).toEqual([]);
    expect((await as(stranger).get(`/v1/orgs/${installer.id}/sites/${siteId}/integrations`)).status).toBe(404);
  });

  it('are uninstalled from a site: 205, then 204', async () => {
    expect((await as(installer, 'edit').delete(`${base()}/${siteId}`)).status).toBe(403);
    expect((await as(installer).delete(`${base()}/${siteId}`)).status).toBe(205);
    expect((await as(installer).delete(`${base()}/${siteId}`)).status).toBe(204);
  });
});

describe('organization views', () => {
  const name = uniqueName('views');
  const privateName = uniqueName('private');
  let spaceId: string;

  beforeAll(async () => {
    await publish(name);
    await publish(privateName, { visibility: 'private' });
    const installation = await install(name, installer);
    spaceId = await space(installer, 'Viewed');
    expect(
      (
        await as(installer).patch(`/v1/integrations/${name}/installations/${installation}/spaces/${spaceId}`, {
          configuration: { channel: 'c' },
        })
      ).status,
    ).toBe(200);
  });

  it('lists the integrations available to the organization', async () => {
    const names = async (o: TestOrg, viewer: TestOrg) =>
      (await as(viewer, 'read').get(`/v1/orgs/${o.id}/integrations?limit=1000&owner=${owner.id}`)).body.items.map(
        (i: { name: string }) => i.name,
      );
    expect(await names(installer, installer)).toEqual(expect.arrayContaining([name]));
    expect(await names(installer, installer)).not.toContain(privateName);
    expect(await names(owner, owner)).toEqual(expect.arrayContaining([name, privateName]));
    expect((await as(stranger).get(`/v1/orgs/${installer.id}/integrations`)).status).toBe(404);
  });

  it('gives the status of an installation, 404 when not installed', async () => {
    expect((await as(installer, 'read').get(`/v1/orgs/${installer.id}/integrations/${name}/installation_status`)).body).toEqual({
      status: 'active',
    });
    expect((await as(other).get(`/v1/orgs/${other.id}/integrations/${name}/installation_status`)).status).toBe(404);
    expect((await as(stranger).get(`/v1/orgs/${installer.id}/integrations/${name}/installation_status`)).status).toBe(404);
  });

  it('lists installations with their integrations for admins', async () => {
    const res = await as(installer).get(`/v1/orgs/${installer.id}/installations?search=${name}`);
    expect(res.body.items).toHaveLength(1);
    expect(res.body.items[0]).toMatchObject({ integration: { name }, installation: { target: { organization: installer.id }, spaces: 1 } });
    expect((await as(installer, 'edit').get(`/v1/orgs/${installer.id}/installations`)).status).toBe(403);
    expect((await as(stranger).get(`/v1/orgs/${installer.id}/installations`)).status).toBe(404);
  });

  it('lists installed integrations with their status, on the organization or on its spaces', async () => {
    const statuses = `/v1/orgs/${installer.id}/integrations/installations-status`;
    const onOrg = await as(installer, 'read').get(statuses);
    expect(onOrg.body.items.find((i: { integration: { name: string } }) => i.integration.name === name)).toMatchObject({
      status: 'active',
      target: { type: 'organization', organizationId: installer.id },
    });
    const onSpace = await as(installer, 'read').get(`${statuses}?target=space&space=${spaceId}`);
    expect(onSpace.body.items).toEqual([expect.objectContaining({ status: 'active', target: { type: 'space', spaceId } })]);
    expect((await as(installer, 'read').get(`${statuses}?target=site`)).body.items).toEqual([]);
    expect400(await as(installer, 'read').get(`${statuses}?space=${spaceId}`), /space: only with target "space"/);
    expect400(await as(installer, 'read').get(`${statuses}?target=space&site=x`), /site: only with target "site"/);
    expect400(await as(installer, 'read').get(`${statuses}?target=team`), /target/);
    expect((await as(stranger).get(statuses)).status).toBe(404);
  });
});

describe('removal', () => {
  const count = async (table: string, installation: string) =>
    Number((await sql(t, `select count(*)::int as n from ${table} where installation_id = ?`, [installation]))[0].n);

  it('uninstalling from the organization removes its space and site installations', async () => {
    const name = uniqueName('remove');
    await publish(name);
    const installation = await install(name, installer);
    const s = await space(installer);
    expect(
      (await as(installer).patch(`/v1/integrations/${name}/installations/${installation}/spaces/${s}`, { configuration: { channel: 'c' } }))
        .status,
    ).toBe(200);
    expect(
      (await as(installer).post(`/v1/integrations/${name}/installations/${installation}/sites`, { siteId: await site(installer) })).status,
    ).toBe(201);
    expect([
      await count('integration_space_installation', installation),
      await count('integration_site_installation', installation),
    ]).toEqual([1, 1]);
    expect((await as(installer).delete(`/v1/integrations/${name}/installations/${installation}`)).status).toBe(205);
    expect([
      await count('integration_space_installation', installation),
      await count('integration_site_installation', installation),
    ]).toEqual([0, 0]);
  });

  it('unpublishing an integration removes its installations everywhere', async () => {
    const name = uniqueName('unpublish');
    await publish(name);
    const installation = await install(name, installer);
    expect(
      (
        await as(installer).patch(`/v1/integrations/${name}/installations/${installation}/spaces/${await space(installer)}`, {
          configuration: { channel: 'c' },
        })
      ).status,
    ).toBe(200);
    expect((await as(owner).delete(`/v1/integrations/${name}`)).status).toBe(204);
    expect(await count('integration_space_installation', installation)).toBe(0);
    expect(await sql(t, 'select id from integration_installation where id = ?', [installation])).toEqual([]);
  });
});

describe('tokens acting as an installation', () => {
  /** An integration reading content, installed in `installer` (A) and in `other` (B). */
  const reader = uniqueName('reader');
  const writer = uniqueName('writer');
  let a: string;
  let b: string;
  let enabled: string;
  let notEnabled: string;
  let otherSpace: string;

  const mint = async (name: string, installation: string, by: Api = as(owner)) => {
    const res = await by.post(`/v1/integrations/${name}/installations/${installation}/tokens`);
    expect([res.status, res.body?.error]).toEqual([200, undefined]);
    return client(t.app, res.body.token as string);
  };

  beforeAll(async () => {
    await publish(reader, { scopes: ['space:content:read'] });
    await publish(writer, { scopes: ['space:content:read', 'space:content:write'] });
    a = await install(reader, installer);
    b = await install(reader, other);
    [enabled, notEnabled, otherSpace] = await Promise.all([
      space(installer, 'Enabled'),
      space(installer, 'Not enabled'),
      space(other, 'B space'),
    ]);
    expect(
      (await as(installer).patch(`/v1/integrations/${reader}/installations/${a}/spaces/${enabled}`, { configuration: { channel: 'c' } }))
        .status,
    ).toBe(200);
  });

  it('are minted by admins of the integration owner only, and stored as a hash', async () => {
    expect((await as(owner, 'edit').post(`/v1/integrations/${reader}/installations/${a}/tokens`)).status).toBe(403);
    expect((await as(installer).post(`/v1/integrations/${reader}/installations/${a}/tokens`)).status).toBe(403);
    expect((await as(stranger).post(`/v1/integrations/${reader}/installations/${a}/tokens`)).status).toBe(403);
    expect((await as(owner).post(`/v1/integrations/${reader}/installations/nope/tokens`)).status).toBe(404);
    const res = await as(owner).post(`/v1/integrations/${reader}/installations/${a}/tokens`);
    expect(res.status).toBe(200);
    const token = res.body.token as string;
    const rows = await sql(t, 'select token_hash from integration_installation_token where installation_id = ?', [a]);
    expect(rows.map((r) => r.token_hash)).toContain(createHash('sha256').update(token).digest('hex'));
    expect(JSON.stringify(rows)).not.toContain(token);
    // A token acting as an installation mints nothing.
    expect((await client(t.app, token).post(`/v1/integrations/${reader}/installations/${a}/tokens`)).status).toBe(403);
  });

  it('read their own installation and organization, never another installation or organization', async () => {
    const token = await mint(reader, a);
    expect((await token.get(`/v1/integrations/${reader}/installations/${a}`)).body).toMatchObject({
      id: a,
      target: { organization: installer.id },
    });
    expect((await token.get(`/v1/integrations/${reader}/installations/${b}`)).status).toBe(404);
    expect((await token.get(`/v1/integrations/${reader}/installations`)).body.items.map((i: { id: string }) => i.id)).toEqual([a]);
    expect((await token.get(`/v1/integrations/${reader}/spaces`)).body.items.map((i: { space: string }) => i.space)).toEqual([enabled]);
    expect((await token.get(`/v1/orgs/${installer.id}`)).body).toMatchObject({ id: installer.id });
    expect((await token.get(`/v1/orgs/${other.id}`)).status).toBe(404);
    expect((await token.get(`/v1/integrations/${reader}/installations/${b}/spaces`)).status).toBe(404);
    expect((await token.patch(`/v1/integrations/${reader}/installations/${b}`, { externalIds: ['x'] })).status).toBe(404);
  });

  it('read only the spaces their installation is enabled on, and reach more when the organization selects all', async () => {
    const token = await mint(reader, a);
    expect((await token.get(`/v1/spaces/${enabled}`)).body).toMatchObject({ id: enabled });
    expect((await token.get(`/v1/spaces/${notEnabled}`)).status).toBe(404);
    expect((await token.get(`/v1/spaces/${otherSpace}`)).status).toBe(404);
    // The installation cannot widen its own reach.
    expect((await token.patch(`/v1/integrations/${reader}/installations/${a}`, { space_selection: 'all' })).status).toBe(403);
    expect(
      (await token.patch(`/v1/integrations/${reader}/installations/${a}/spaces/${notEnabled}`, { configuration: { channel: 'c' } })).status,
    ).toBe(404);
    expect((await as(installer).patch(`/v1/integrations/${reader}/installations/${a}`, { space_selection: 'all' })).status).toBe(200);
    expect((await token.get(`/v1/spaces/${notEnabled}`)).body).toMatchObject({ id: notEnabled });
    expect((await token.get(`/v1/spaces/${otherSpace}`)).status).toBe(404);
    // It configures its own space installations within its reach.
    const configured = await token.patch(`/v1/integrations/${reader}/installations/${a}/spaces/${enabled}`, {
      configuration: { channel: 'own' },
    });
    expect(configured.body.configuration).toEqual({ channel: 'own' });
    expect((await as(installer).patch(`/v1/integrations/${reader}/installations/${a}`, { space_selection: 'selected' })).status).toBe(200);
    expect((await token.get(`/v1/spaces/${notEnabled}`)).status).toBe(404);
  });

  it("read the content of the spaces they reach with the integration's content scope, never with a metadata scope alone", async () => {
    const token = await mint(reader, a);
    const content = await token.get(`/v1/spaces/${enabled}/content`);
    expect([content.status, content.body.object]).toEqual([200, 'revision']);
    const revision = content.body.id as string;
    const reads = [
      `/v1/spaces/${enabled}/content`,
      `/v1/spaces/${enabled}/content/pages`,
      `/v1/spaces/${enabled}/revisions/${revision}`,
      `/v1/spaces/${enabled}/revisions/${revision}/pages`,
      `/v1/spaces/${enabled}/search?query=anything`,
      `/v1/spaces/${enabled}/change-requests`,
    ];
    for (const path of reads) expect([path, (await token.get(path)).status]).toEqual([path, 200]);
    // Spaces it does not reach are not there for it, whatever the revision asked for.
    expect((await token.get(`/v1/spaces/${notEnabled}/content`)).status).toBe(404);
    expect((await token.get(`/v1/spaces/${otherSpace}/revisions/${revision}`)).status).toBe(404);
    expect((await token.get(`/v1/spaces/${notEnabled}/search?query=anything`)).status).toBe(404);
    // It reads; without a write scope it opens no change request.
    const refused = await token.post(`/v1/spaces/${enabled}/change-requests`, { subject: 'x' });
    expect([refused.status, refused.body.error?.code]).toEqual([403, 403]);
    // An integration with the metadata scope only sees the space, not its content.
    const meta = uniqueName('meta');
    await publish(meta, { scopes: ['space:metadata:read'] });
    const m = await install(meta, installer);
    expect(
      (await as(installer).patch(`/v1/integrations/${meta}/installations/${m}/spaces/${enabled}`, { configuration: { channel: 'c' } }))
        .status,
    ).toBe(200);
    const metadataOnly = await mint(meta, m);
    expect((await metadataOnly.get(`/v1/spaces/${enabled}`)).status).toBe(200);
    for (const path of reads) {
      const refused = await metadataOnly.get(path);
      expect([path, refused.status, refused.body.error?.message]).toEqual([
        path,
        403,
        "The integration's scopes do not include space:content:read: it reads this space's metadata only",
      ]);
    }
  });

  it('read the sites their installation is enabled on with site:metadata:read, and nothing else of sites', async () => {
    const siteReader = uniqueName('site-reader');
    await publish(siteReader, { scopes: ['site:metadata:read', 'site:visitor:auth'], target: 'site' });
    const installed = await install(siteReader, installer);
    const [onSite, offSite] = await Promise.all([site(installer, 'Enabled site'), site(installer, 'Other site')]);
    const enabledOn = await as(installer).post(`/v1/integrations/${siteReader}/installations/${installed}/sites`, { siteId: onSite });
    expect(enabledOn.status).toBe(201);
    const token = await mint(siteReader, installed);
    const read = await token.get(`/v1/orgs/${installer.id}/sites/${onSite}`);
    expect([read.status, read.body.id, read.body.title]).toEqual([200, onSite, 'Enabled site']);
    // Another site of the organization, a site of another organization, and anything but reading the site.
    expect((await token.get(`/v1/orgs/${installer.id}/sites/${offSite}`)).status).toBe(404);
    expect((await token.get(`/v1/orgs/${other.id}/sites/${onSite}`)).status).toBe(404);
    expect((await token.patch(`/v1/orgs/${installer.id}/sites/${onSite}`, { title: 'Taken over' })).status).toBe(403);
    expect((await token.get(`/v1/orgs/${installer.id}/sites/${onSite}/publishing/auth`)).status).toBe(403);
    expect((await token.get(`/v1/orgs/${installer.id}/sites`)).status).toBe(403);
    // Without the scope, the site is not there for it.
    const blind = uniqueName('site-blind');
    await publish(blind, { scopes: ['site:script:inject'], target: 'site' });
    const blindInstallation = await install(blind, installer);
    expect(
      (await as(installer).post(`/v1/integrations/${blind}/installations/${blindInstallation}/sites`, { siteId: onSite })).status,
    ).toBe(201);
    expect((await (await mint(blind, blindInstallation)).get(`/v1/orgs/${installer.id}/sites/${onSite}`)).status).toBe(404);
  });

  it("write only with the integration's write scope, and never settings or other operations", async () => {
    const readOnly = await mint(reader, a);
    const denied = await readOnly.patch(`/v1/spaces/${enabled}`, { title: 'Renamed by a reader' });
    expect([denied.status, denied.body.error.code]).toEqual([403, 403]);

    const w = await install(writer, installer);
    expect(
      (await as(installer).patch(`/v1/integrations/${writer}/installations/${w}/spaces/${enabled}`, { configuration: { channel: 'c' } }))
        .status,
    ).toBe(200);
    const writing = await mint(writer, w);
    const renamed = await writing.patch(`/v1/spaces/${enabled}`, { title: 'Renamed by the integration' });
    expect([renamed.status, renamed.body.title]).toEqual([200, 'Renamed by the integration']);
    expect((await writing.patch(`/v1/spaces/${enabled}`, { visibility: 'public' })).status).toBe(403);
    expect((await writing.patch(`/v1/spaces/${notEnabled}`, { title: 'Not reached' })).status).toBe(404);
    // Routes that do not take an installation's token refuse it, whatever its scopes.
    expect((await writing.get(`/v1/orgs/${installer.id}/spaces`)).status).toBe(403);
    expect((await writing.delete(`/v1/spaces/${enabled}`)).status).toBe(403);
    expect((await writing.delete(`/v1/integrations/${writer}/installations/${w}`)).status).toBe(403);
    expect((await writing.get(`/v1/user`)).status).toBe(403);
  });

  it('write content through change requests opened as their integration, which members merge', async () => {
    const name = uniqueName('editor');
    await publish(name, { title: 'Docs bot', scopes: ['space:content:read', 'space:content:write'] });
    const inst = await install(name, installer);
    const target = await space(installer, 'Edited by an integration');
    expect(
      (await as(installer).patch(`/v1/integrations/${name}/installations/${inst}/spaces/${target}`, { configuration: { channel: 'c' } }))
        .status,
    ).toBe(200);
    const bot = await mint(name, inst);
    const opened = await bot.post(`/v1/spaces/${target}/change-requests`, { subject: 'Release notes' });
    expect([opened.status, opened.body.error]).toEqual([201, undefined]);
    expect(opened.body.createdBy).toEqual({
      object: 'user',
      id: name,
      displayName: 'Docs bot',
      urls: { location: `http://docs.test/v1/integrations/${name}` },
    });
    const cr = opened.body.id as string;
    const edited = await bot.post(`/v1/spaces/${target}/change-requests/${cr}/content`, {
      changes: [{ operation: 'insert_page', title: 'Release notes', document: { markdown: 'Written by the integration.\n' } }],
    });
    expect([edited.status, edited.body.error]).toEqual([200, undefined]);
    // Its own change request: it updates the subject.
    const renamed = await bot.patch(`/v1/spaces/${target}/change-requests/${cr}`, { subject: 'Release notes 1.2' });
    expect([renamed.status, renamed.body.subject]).toEqual([200, 'Release notes 1.2']);
    // A member's change request is not its own: editing content is (edit), its subject is not (review).
    const members = await as(installer).post(`/v1/spaces/${target}/change-requests`, { subject: 'By a member' });
    expect((await bot.patch(`/v1/spaces/${target}/change-requests/${members.body.id}`, { subject: 'Taken over' })).status).toBe(403);
    // Merging stays with members, the space's settings too.
    expect((await bot.post(`/v1/spaces/${target}/change-requests/${cr}/merge`)).status).toBe(403);
    expect((await bot.post(`/v1/spaces/${target}/change-requests/${cr}/update`)).status).toBe(403);
    // Not in a space the installation does not reach.
    expect((await bot.post(`/v1/spaces/${notEnabled}/change-requests`, { subject: 'x' })).status).toBe(404);
    // Members see it as the integration's, read what it wrote, and merge it.
    const listed = await as(installer).get(`/v1/spaces/${target}/change-requests`);
    expect(listed.body.items.find((c: { id: string }) => c.id === cr)?.createdBy.displayName).toBe('Docs bot');
    const pages = await as(installer).get(`/v1/spaces/${target}/change-requests/${cr}/content/pages`);
    const written = pages.body.pages.find((p: { title: string }) => p.title === 'Release notes');
    const page = await as(installer).get(`/v1/spaces/${target}/change-requests/${cr}/content/page/${written.id}`);
    expect([page.status, page.body.markdown]).toEqual([200, 'Written by the integration.\n']);
    const merged = await as(installer).post(`/v1/spaces/${target}/change-requests/${cr}/merge`);
    expect([merged.status, merged.body.result]).toEqual([200, 'merge']);
  }, 60_000);

  it('stop working at once when the installation is uninstalled, paused or the integration unpublished, and when they expire', async () => {
    const name = uniqueName('revoked');
    await publish(name, { scopes: ['space:content:read'] });
    const inst = await install(name, installer);
    expect((await as(installer).patch(`/v1/integrations/${name}/installations/${inst}`, { space_selection: 'all' })).status).toBe(200);
    const token = await mint(name, inst);
    expect((await token.get(`/v1/spaces/${enabled}`)).status).toBe(200);
    expect((await as(installer).delete(`/v1/integrations/${name}/installations/${inst}`)).status).toBe(205);
    expect((await token.get(`/v1/spaces/${enabled}`)).status).toBe(401);

    const again = await install(name, installer);
    expect((await as(installer).patch(`/v1/integrations/${name}/installations/${again}`, { space_selection: 'all' })).status).toBe(200);
    const paused = await mint(name, again);
    expect((await paused.get(`/v1/spaces/${enabled}`)).status).toBe(200);
    await sql(t, `update integration_installation set status = 'paused' where id = ?`, [again]);
    expect((await paused.get(`/v1/spaces/${enabled}`)).status).toBe(401);
    await sql(t, `update integration_installation set status = 'active' where id = ?`, [again]);

    const unpublished = await mint(name, again);
    expect((await unpublished.get(`/v1/spaces/${enabled}`)).status).toBe(200);
    const expiring = await mint(name, again);
    expect((await expiring.get(`/v1/spaces/${enabled}`)).status).toBe(200);
    await sql(t, `update integration_installation_token set expires_at = now() - interval '1 second' where installation_id = ?`, [again]);
    expect((await expiring.get(`/v1/spaces/${enabled}`)).status).toBe(401);

    const fresh = await mint(name, again);
    expect((await fresh.get(`/v1/spaces/${enabled}`)).status).toBe(200);
    expect((await as(owner).delete(`/v1/integrations/${name}`)).status).toBe(204);
    expect((await fresh.get(`/v1/spaces/${enabled}`)).status).toBe(401);
    expect((await fresh.get(`/v1/orgs/${installer.id}`)).status).toBe(401);
  });

  it('do not reach spaces without a space scope', async () => {
    const name = uniqueName('noscope');
    await publish(name, { scopes: ['site:metadata:read'] });
    const inst = await install(name, installer);
    expect((await as(installer).patch(`/v1/integrations/${name}/installations/${inst}`, { space_selection: 'all' })).status).toBe(200);
    const token = await mint(name, inst);
    expect((await token.get(`/v1/spaces/${enabled}`)).status).toBe(404);
    expect((await token.get(`/v1/orgs/${installer.id}`)).status).toBe(200);
  });
});

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestOrg, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { newSpace, sql } from '../support/fixtures.ts';

/**
 * Custom hostnames and proxies, tried as an attacker would: a host belongs to one organization, so
 * another organization can neither claim a path under it (a proxy) nor the host over its proxies,
 * and a lookup never hands a URL under one organization's hostname to another organization.
 */

let t: TestApp;
let owner: TestOrg;
let intruder: TestOrg;
const tag = Date.now().toString(36);

async function publishedSite(org: TestOrg, title: string): Promise<string> {
  const api = org.members.admin.api;
  const space = await newSpace(api, org.id, { title });
  const site = await api.post(`/v1/orgs/${org.id}/sites`, { title, visibility: 'public', spaces: [space.id] });
  expect(site.status).toBe(201);
  expect((await api.post(`/v1/orgs/${org.id}/sites/${site.body.id}/publish`)).status).toBe(200);
  return site.body.id;
}

const patch = (org: TestOrg, siteId: string, body: object) => org.members.admin.api.patch(`/v1/orgs/${org.id}/sites/${siteId}`, body);

let ownerSite: string;
let intruderSite: string;

beforeAll(async () => {
  t = await startTestApp();
  [owner, intruder] = await Promise.all([createTestOrg(t, 'Acme'), createTestOrg(t, 'Intruder')]);
  [ownerSite, intruderSite] = await Promise.all([publishedSite(owner, 'Acme docs'), publishedSite(intruder, 'Intruder docs')]);
  expect((await patch(owner, ownerSite, { hostname: `docs.${tag}.acme.test` })).status).toBe(200);
});
afterAll(() => t.close());

describe('claiming addresses', () => {
  it("refuses a proxy under another organization's custom hostname, however the host is spelled", async () => {
    for (const proxy of [`docs.${tag}.acme.test/guide`, `DOCS.${tag}.Acme.test/guide`, `docs.${tag}.acme.test/a/b`]) {
      const res = await patch(intruder, intruderSite, { proxy });
      expect([proxy, res.status]).toEqual([proxy, 409]);
      expect(res.body.error.message).toMatch(/another organization/);
    }
    const [row] = await sql(t, 'select proxy from site where id = ?', [intruderSite]);
    expect(row.proxy).toBeNull();
  });

  it("refuses a custom hostname over another organization's proxies, and the same hostname twice", async () => {
    expect((await patch(owner, ownerSite, { proxy: `help.${tag}.acme.test/docs` })).status).toBe(200);
    expect((await patch(intruder, intruderSite, { hostname: `help.${tag}.acme.test` })).status).toBe(409);
    expect((await patch(intruder, intruderSite, { hostname: `docs.${tag}.acme.test` })).status).toBe(409);
    expect((await patch(owner, ownerSite, { proxy: null })).status).toBe(200);
  });

  it('lets an organization put proxies under its own hostname, and others use hosts nobody holds', async () => {
    const second = await publishedSite(owner, 'Acme guide');
    expect((await patch(owner, second, { proxy: `docs.${tag}.acme.test/guide` })).status).toBe(200);
    expect((await patch(intruder, intruderSite, { proxy: `www.${tag}.intruder.test/docs` })).status).toBe(200);
    expect((await patch(intruder, intruderSite, { proxy: null })).status).toBe(200);
    expect((await patch(owner, second, { proxy: null })).status).toBe(200);
  });

  it('gives a host claimed by two organizations at once to one of them', async () => {
    const a = await publishedSite(owner, 'Race A');
    const host = `race.${tag}.test`;
    const results = await Promise.all([patch(owner, a, { proxy: `${host}/one` }), patch(intruder, intruderSite, { proxy: `${host}/two` })]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    await Promise.all([patch(owner, a, { proxy: null }), patch(intruder, intruderSite, { proxy: null })]);
  });
});

describe('looking up URLs', () => {
  it("resolves a URL under an organization's hostname to that organization, even past a proxy another one holds from before", async () => {
    // A proxy written before hosts had one owner: the lookup still answers with the hostname's owner.
    await sql(t, 'update site set proxy = ? where id = ?', [`docs.${tag}.acme.test/guide`, intruderSite]);
    try {
      const api = intruder.members.admin.api;
      const root = await api.post('/v1/urls/published', { url: `https://docs.${tag}.acme.test/` });
      expect([root.status, root.body.site]).toEqual([200, ownerSite]);
      // Under the proxy's path: the owner's site (which has no such page), never the intruder's.
      const under = await api.post('/v1/urls/published', { url: `https://docs.${tag}.acme.test/guide` });
      expect(under.status === 404 || under.body.site === ownerSite).toBe(true);
      expect(JSON.stringify(under.body)).not.toContain(intruderSite);
      expect(JSON.stringify(under.body)).not.toContain(intruder.id);
    } finally {
      await sql(t, 'update site set proxy = null where id = ?', [intruderSite]);
    }
  });
});

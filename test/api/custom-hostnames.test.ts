import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { GitBookAPI } from '@gitbook/api';
import { randomBytes } from 'node:crypto';
import { createTestOrg, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { startDnsServer, type DnsServer } from '../support/dns-server.ts';
import { expectMatchesGitBook } from '../support/gitbook-openapi.ts';

/**
 * Custom hostnames (a site's `hostname` setting): their status comes from a real DNS check, asked
 * of a DNS server this test runs (DNS_SERVERS), stored with the time it was made and made again on
 * revalidation. Only those who can manage the site see the hostname; everyone else gets 404.
 */
const TARGET = 'sites.docs-service.test';
const TARGET_ADDRESS = '192.0.2.10';

let t: TestApp;
let dns: DnsServer;
let org: TestOrg;
let other: TestOrg;

beforeAll(async () => {
  dns = await startDnsServer();
  dns.records.set(TARGET, { a: [TARGET_ADDRESS] });
  t = await startTestApp({ DNS_SERVERS: dns.address, DNS_TIMEOUT: '1s', CUSTOM_HOSTNAME_TARGET: TARGET });
  org = await createTestOrg(t, 'Custom hostnames org');
  other = await createTestOrg(t, 'Other org');
});
afterAll(async () => {
  await t?.close();
  await dns?.close();
});

const admin = () => org.members.admin.api;
const newHostname = () => `docs-${randomBytes(4).toString('hex')}.example.com`;
const path = (hostname: string) => `/v1/custom-hostnames/${hostname}`;

/** A site of the organization using `hostname`. */
async function siteWith(hostname: string) {
  const site = await admin().post(`/v1/orgs/${org.id}/sites`, { title: `Site of ${hostname}` });
  expect(site.status).toBe(201);
  const set = await admin().patch(`/v1/orgs/${org.id}/sites/${site.body.id}`, { hostname });
  expect(set.status).toBe(200);
  return site.body.id as string;
}

describe('status', () => {
  it('is pending while the hostname has no record, and active once it is a CNAME of the sites’ host', async () => {
    const hostname = newHostname();
    const siteId = await siteWith(hostname);

    const pending = await admin().get(path(hostname));
    expect(pending.status).toBe(200);
    expect(pending.body).toMatchObject({
      object: 'custom-hostname',
      hostname,
      target: { type: 'site', site: siteId },
      isActive: false,
      status: 'dns_no_cname',
    });
    // The stored result is answered until the hostname is checked again.
    dns.records.set(hostname, { cname: TARGET });
    const stored = await admin().get(path(hostname));
    expect(stored.body.status).toBe('dns_no_cname');
    expect(stored.body.checkedAt).toBe(pending.body.checkedAt);

    expect((await admin().patch(path(hostname))).status).toBe(204);
    const active = await admin().get(path(hostname));
    expect(active.body).toMatchObject({ isActive: true, status: 'ssl_unknown' });
    expect(Date.parse(active.body.checkedAt)).toBeGreaterThanOrEqual(Date.parse(pending.body.checkedAt));
  });

  it('is active for an A record with the address of the sites’ host, and a wrong CNAME for a record pointing elsewhere', async () => {
    const apex = newHostname();
    dns.records.set(apex, { a: [TARGET_ADDRESS] });
    await siteWith(apex);
    expect((await admin().get(path(apex))).body).toMatchObject({ isActive: true, status: 'ssl_unknown' });

    const wrong = newHostname();
    dns.records.set(wrong, { cname: 'elsewhere.example.net' });
    await siteWith(wrong);
    expect((await admin().get(path(wrong))).body).toMatchObject({ isActive: false, status: 'dns_wrong_cname' });
    dns.records.set(wrong, { a: ['198.51.100.7'] });
    expect((await admin().patch(path(wrong))).status).toBe(204);
    expect((await admin().get(path(wrong))).body).toMatchObject({ isActive: false, status: 'dns_wrong_cname' });

    // A record that pointed at the sites' host and no longer does is found on revalidation.
    dns.records.set(apex, { cname: 'elsewhere.example.net' });
    expect((await admin().patch(path(apex))).status).toBe(204);
    expect((await admin().get(path(apex))).body).toMatchObject({ isActive: false, status: 'dns_wrong_cname' });
  });

  it('is an internal error when the DNS server does not answer within DNS_TIMEOUT', async () => {
    const hostname = newHostname();
    dns.silent.add(hostname);
    await siteWith(hostname);
    expect((await admin().get(path(hostname))).body).toMatchObject({ isActive: false, status: 'internal_error' });
    dns.silent.delete(hostname);
    dns.records.set(hostname, { cname: TARGET });
    expect((await admin().patch(path(hostname))).status).toBe(204);
    expect((await admin().get(path(hostname))).body).toMatchObject({ isActive: true, status: 'ssl_unknown' });
  });

  it('is checked afresh for a new hostname of the same site', async () => {
    const first = newHostname();
    const siteId = await siteWith(first);
    expect((await admin().get(path(first))).body.status).toBe('dns_no_cname');
    const second = newHostname();
    dns.records.set(second, { cname: TARGET });
    expect((await admin().patch(`/v1/orgs/${org.id}/sites/${siteId}`, { hostname: second })).status).toBe(200);
    expect((await admin().get(path(first))).status).toBe(404);
    expect((await admin().get(path(second))).body).toMatchObject({ hostname: second, isActive: true });
  });
});

describe('who may see it', () => {
  it('answers 404 for an unknown hostname, to members who cannot manage the site and to other organizations', async () => {
    const hostname = newHostname();
    const siteId = await siteWith(hostname);
    const unknown = await admin().get(path(newHostname()));
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe(404);
    for (const role of ['read', 'comment', 'edit', 'review', 'create', 'guest'] as const) {
      expect({ role, status: (await org.members[role].api.get(path(hostname))).status }).toEqual({ role, status: 404 });
      expect({ role, status: (await org.members[role].api.patch(path(hostname))).status }).toEqual({ role, status: 404 });
      expect({ role, status: (await org.members[role].api.delete(path(hostname))).status }).toEqual({ role, status: 404 });
    }
    expect((await other.members.admin.api.get(path(hostname))).status).toBe(404);
    expect((await other.members.admin.api.delete(path(hostname))).status).toBe(404);

    // A member granted admin on the site manages its hostname.
    const granted = await admin().post(`/v1/orgs/${org.id}/sites/${siteId}/permissions`, {
      role: 'admin',
      users: [org.members.read.userId],
    });
    expect(granted.status).toBe(204);
    expect((await org.members.read.api.get(path(hostname))).status).toBe(200);
    expect((await admin().delete(`/v1/orgs/${org.id}/sites/${siteId}/permissions/users/${org.members.read.userId}`)).status).toBe(205);
    expect((await org.members.read.api.get(path(hostname))).status).toBe(404);
  });
});

describe('removal', () => {
  it('takes the hostname away from its site', async () => {
    const hostname = newHostname();
    const siteId = await siteWith(hostname);
    expect((await admin().get(path(hostname))).status).toBe(200);
    expect((await admin().delete(path(hostname))).status).toBe(205);
    expect((await admin().get(path(hostname))).status).toBe(404);
    expect((await admin().delete(path(hostname))).status).toBe(404);
    const site = (await admin().get(`/v1/orgs/${org.id}/sites/${siteId}`)).body;
    expect(site.hostname ?? null).toBeNull();
    // The hostname is free for another site.
    await siteWith(hostname);
  });
});

describe("GitBook's client", () => {
  it('reads, revalidates and removes a custom hostname, the answer matching GitBook’s schema', async () => {
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = t.app.server.address() as { port: number };
    const api: any = new GitBookAPI({ endpoint: `http://127.0.0.1:${port}`, authToken: org.members.admin.token });
    const hostname = newHostname();
    dns.records.set(hostname, { cname: TARGET });
    await siteWith(hostname);
    const read = (await api.customHostnames.getCustomHostname(hostname)).data;
    expectMatchesGitBook('getCustomHostname', read);
    expect(read.isActive).toBe(true);
    expect((await api.customHostnames.dnsRevalidateCustomHostname(hostname)).status).toBe(204);
    expect((await api.customHostnames.removeCustomHostname(hostname)).status).toBe(205);
  });
});

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { createTestOrg, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { expectMatchesGitBook } from '../support/gitbook-openapi.ts';

/**
 * Fields once answered as constants, now read from the data: an organization's invite links, the
 * sites a member reaches, the spaces an installation manages; and what this service has no notion
 * of is left out (SSO enforcement, AI, a site space's advanced customization).
 */

let t: TestApp;
let org: TestOrg;

beforeAll(async () => {
  t = await startTestApp({ SECRETS_KEY: randomBytes(32).toString('base64') });
  org = await createTestOrg(t, 'Presented facts org');
});
afterAll(async () => {
  await t?.close();
});

const admin = () => org.members.admin.api;

async function organization() {
  const res = await admin().get(`/v1/orgs/${org.id}`);
  expect(res.status).toBe(200);
  expectMatchesGitBook('getOrganizationById', res.body);
  return res.body;
}

describe('an organization', () => {
  it('has invite links while one of them can be used, and answers no SSO or AI setting it does not have', async () => {
    const before = await organization();
    expect(before.inviteLinks).toBe(false);
    expect(before).not.toHaveProperty('sso');
    expect(before).not.toHaveProperty('ai');

    const link = await admin().post(`/v1/orgs/${org.id}/link-invites`, { role: 'read' });
    expect(link.status).toBe(201);
    expect((await organization()).inviteLinks).toBe(true);
    const listed = await admin().get('/v1/orgs');
    expect(listed.body.items.find((o: { id: string }) => o.id === org.id).inviteLinks).toBe(true);

    expect((await admin().patch(`/v1/orgs/${org.id}/link-invites/${link.body.id}`, { disabled: true })).status).toBe(200);
    expect((await organization()).inviteLinks).toBe(false);
  });
});

describe('a member', () => {
  async function member(userId: string) {
    const res = await admin().get(`/v1/orgs/${org.id}/members/${userId}`);
    expect(res.status).toBe(200);
    expectMatchesGitBook('getMemberInOrganizationById', res.body);
    return res.body;
  }

  it('reaches every site of the organization with a role, none as a guest', async () => {
    const before = (await member(org.members.read.userId)).sites;
    for (const title of ['One', 'Two']) expect((await admin().post(`/v1/orgs/${org.id}/sites`, { title })).status).toBe(201);
    expect((await member(org.members.read.userId)).sites).toBe(before + 2);
    expect((await member(org.members.admin.userId)).sites).toBe(before + 2);
    expect((await member(org.members.guest.userId)).sites).toBe(0);
  });
});

describe('an integration installation', () => {
  it('manages no space with a selection of spaces, every live space of its organization with all of them', async () => {
    const name = `facts-${randomBytes(3).toString('hex')}`;
    const published = await admin().post(`/v1/integrations/${name}`, {
      title: 'Facts',
      description: 'Counts',
      script: 'export default { fetch() { return new Response("ok") } }',
      organization: org.id,
    });
    expect(published.status).toBe(200);
    const installed = await admin().post(`/v1/integrations/${name}/installations`, { organization: org.id });
    expect(installed.status).toBe(201);
    expect(installed.body.spaces).toBe(0);

    const spaces = await admin().get(`/v1/orgs/${org.id}/spaces?limit=100`);
    const live = spaces.body.items.length;
    const made = await admin().post(`/v1/orgs/${org.id}/spaces`, { title: 'Managed' });
    expect(made.status).toBe(201);
    const all = await admin().patch(`/v1/integrations/${name}/installations/${installed.body.id}`, { space_selection: 'all' });
    expect(all.status).toBe(200);
    expectMatchesGitBook('updateIntegrationInstallation', all.body);
    expect(all.body.spaces).toBe(live + 1);

    expect((await admin().delete(`/v1/spaces/${made.body.id}`)).status).toBe(205);
    const read = await admin().get(`/v1/integrations/${name}/installations/${installed.body.id}`);
    expectMatchesGitBook('getIntegrationInstallationById', read.body);
    expect(read.body.spaces).toBe(live);
    const list = await admin().get(`/v1/integrations/${name}/installations`);
    expect(list.body.items.map((i: { spaces: number }) => i.spaces)).toEqual([live]);
  });
});

describe('a site space', () => {
  it('answers no advanced customization feature, which this service does not have', async () => {
    const site = await admin().post(`/v1/orgs/${org.id}/sites`, { title: 'With a space' });
    const space = await admin().post(`/v1/orgs/${org.id}/spaces`, { title: 'On the site' });
    const added = await admin().post(`/v1/orgs/${org.id}/sites/${site.body.id}/site-spaces`, { spaceId: space.body.id });
    expect(added.status).toBe(201);
    expectMatchesGitBook('addSpaceToSite', added.body);
    expect(added.body).not.toHaveProperty('hasAdvancedCustomizationFeature');
    expect(added.body.draft).toBe(false);
  });
});

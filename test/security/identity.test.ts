import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { addMember, client, createTestOrg, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { newSpace, sql } from '../support/fixtures.ts';
import { newId } from '../../src/domain/ids.ts';
import { buildResponse, encode, impostor, sign } from '../support/saml-idp.ts';

/**
 * Identity across organizations, tried as an attacker would: an organization's SAML provider is
 * configured by that organization's admin, with a certificate of their choosing, so everything it
 * asserts is the attacker's word. It may sign in its own members and new people, never an account
 * another organization holds, and what it mints works in its own organization only.
 */

let t: TestApp;
let victim: TestOrg;
let attacker: TestOrg;

beforeAll(async () => {
  t = await startTestApp();
  [victim, attacker] = await Promise.all([createTestOrg(t, 'Victim'), createTestOrg(t, 'Attacker')]);
});
afterAll(() => t.close());

/** A provider of the attacker's organization, trusting the attacker's own certificate. */
async function attackerProvider(org: TestOrg = attacker) {
  const res = await org.members.admin.api.post(`/v1/orgs/${org.id}/saml`, {
    label: 'Our IdP',
    entityID: 'https://idp.attacker.test/metadata',
    ssoURL: 'https://idp.attacker.test/sso',
    certificate: impostor.cert,
    defaultRole: 'read',
  });
  expect(res.status).toBe(201);
  return res.body as { id: string; service: { entityID: string; acsURL: string } };
}

/** The attacker's IdP asserting `email`, posted to the provider's ACS. */
async function assertAs(provider: { id: string; service: { entityID: string; acsURL: string } }, email: string) {
  const xml = sign(
    buildResponse({
      audience: provider.service.entityID,
      acsUrl: provider.service.acsURL,
      email,
      issuer: 'https://idp.attacker.test/metadata',
    }),
    'assertion',
    impostor,
  );
  const res = await t.app.inject({
    method: 'POST',
    url: `/sso/saml/${provider.id}/acs`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ SAMLResponse: encode(xml) }).toString(),
  });
  return { status: res.statusCode, body: JSON.parse(res.body) };
}

const emailOf = async (userId: string) => (await sql<{ email: string }>(t, 'select email from app_user where id = ?', [userId]))[0].email;
const tokensOf = async (userId: string) =>
  Number((await sql(t, 'select count(*)::int as n from api_token where user_id = ?', [userId]))[0].n);

describe('SAML sign-in across organizations', () => {
  it("refuses an assertion naming another organization's admin: no token, no membership", async () => {
    const provider = await attackerProvider();
    const target = victim.members.admin.userId;
    const email = await emailOf(target);
    const before = await tokensOf(target);
    for (const spelled of [email, email.toUpperCase()]) {
      const res = await assertAs(provider, spelled);
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ error: { code: 403, message: expect.stringMatching(/not a member of this organization/) } });
    }
    expect(await tokensOf(target)).toBe(before);
    expect(await sql(t, 'select 1 from member where organization_id = ? and user_id = ?', [attacker.id, target])).toEqual([]);
  });

  it('signs in a person nobody holds yet, with a token that works in that organization only', async () => {
    const provider = await attackerProvider();
    const res = await assertAs(provider, `new-${newId(6).toLowerCase()}@example.com`);
    expect(res.status).toBe(200);
    const api = client(t.app, res.body.token);
    expect((await api.get(`/v1/orgs/${attacker.id}`)).status).toBe(200);
    expect((await api.get('/v1/orgs')).body.items.map((o: { id: string }) => o.id)).toEqual([attacker.id]);
    const [row] = await sql(t, 'select organization_id from api_token where user_id = ?', [res.body.userId]);
    expect(row.organization_id).toBe(attacker.id);
  });

  it("binds the token of a person both organizations hold to the signing organization: the other one's content stays out of reach", async () => {
    // The victim's admin is also an admin of the attacker's organization (invited there, say).
    const person = victim.members.admin;
    await addMember(t, attacker.id, person.userId, 'admin');
    const victimSpace = await newSpace(person.api, victim.id, { title: 'Secret plans' });
    const collection = await person.api.post(`/v1/orgs/${victim.id}/collections`, { title: 'Private' });
    expect(collection.status).toBe(201);

    const provider = await attackerProvider();
    const res = await assertAs(provider, await emailOf(person.userId));
    expect(res.status).toBe(200);
    expect(res.body.userId).toBe(person.userId);
    const minted = client(t.app, res.body.token);

    // Everything of the victim's organization is as if the token's holder were a stranger.
    for (const url of [
      `/v1/orgs/${victim.id}`,
      `/v1/orgs/${victim.id}/members`,
      `/v1/orgs/${victim.id}/spaces`,
      `/v1/orgs/${victim.id}/sites`,
      `/v1/orgs/${victim.id}/saml`,
      `/v1/spaces/${victimSpace.id}`,
      `/v1/spaces/${victimSpace.id}/content`,
      `/v1/collections/${collection.body.id}`,
      `/v1/urls/content?url=${encodeURIComponent(`http://docs.test/app/spaces/${victimSpace.id}`)}`,
    ]) {
      const got = await minted.get(url);
      expect([url, got.status]).toEqual([url, 404]);
    }
    expect((await minted.get('/v1/orgs')).body.items.map((o: { id: string }) => o.id)).toEqual([attacker.id]);
    expect((await minted.post(`/v1/orgs/${victim.id}/spaces`, { title: 'Planted' })).status).toBe(404);
    // A space of the signing organization cannot be carried into the other one either.
    const own = await newSpace(attacker.members.admin.api, attacker.id, { title: 'Bait' });
    await attacker.members.admin.api.post(`/v1/spaces/${own.id}/permissions`, { role: 'admin', users: [person.userId] });
    expect((await minted.post(`/v1/spaces/${own.id}/transfer`, { organization: victim.id })).status).toBe(404);
    // The person's own token still reaches both.
    expect((await person.api.get(`/v1/spaces/${victimSpace.id}`)).status).toBe(200);
  });

  it('still signs in a member the organization already holds', async () => {
    const provider = await attackerProvider();
    const member = attacker.members.edit;
    const res = await assertAs(provider, await emailOf(member.userId));
    expect(res.status).toBe(200);
    expect(res.body.userId).toBe(member.userId);
  });
});

describe('moving content out of an organization', () => {
  it("refuses a guest with an admin grant on one space carrying it into the guest's own organization", async () => {
    const guest = victim.members.guest;
    const own = await createTestOrg(t, "Guest's own");
    await addMember(t, own.id, guest.userId, 'admin');
    const space = await newSpace(victim.members.admin.api, victim.id, { title: 'Shared with a contractor' });
    expect(
      (await victim.members.admin.api.post(`/v1/spaces/${space.id}/permissions`, { role: 'admin', users: [guest.userId] })).status,
    ).toBe(204);
    const res = await guest.api.post(`/v1/spaces/${space.id}/transfer`, { organization: own.id });
    expect(res.status).toBe(403);
    expect(res.body.error.message).toMatch(/admin role or higher to transfer spaces out of this organization/);
    expect((await sql(t, 'select organization_id from space where id = ?', [space.id]))[0].organization_id).toBe(victim.id);
    // The organization's own admin may.
    await addMember(t, own.id, victim.members.admin.userId, 'admin');
    expect((await victim.members.admin.api.post(`/v1/spaces/${space.id}/transfer`, { organization: own.id })).status).toBe(200);
  });
});

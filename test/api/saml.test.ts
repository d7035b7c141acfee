import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { client, createTestOrg, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { sql } from '../support/fixtures.ts';
import { newId } from '../../src/domain/ids.ts';
import {
  buildResponse,
  encode,
  IDP_ENTITY_ID,
  IDP_SSO_URL,
  idp,
  impostor,
  inflateRequest,
  sign,
  type ResponseOptions,
} from '../support/saml-idp.ts';

let t: TestApp;
let org: TestOrg;
let other: TestOrg;

beforeAll(async () => {
  t = await startTestApp();
  org = await createTestOrg(t, 'SAML org');
  other = await createTestOrg(t, 'Other SAML org');
});
afterAll(() => t.close());

const admin = () => org.members.admin.api;

async function createTeam(organizationId: string, title = 'Team') {
  const id = newId();
  await sql(t, 'insert into team (id, organization_id, title, created_at, updated_at) values (?, ?, ?, now(), now())', [
    id,
    organizationId,
    title,
  ]);
  return id;
}

const complete = (extra: object = {}) => ({ label: 'Okta', entityID: IDP_ENTITY_ID, ssoURL: IDP_SSO_URL, certificate: idp.cert, ...extra });

async function newProvider(body: object = complete(), o: TestOrg = org) {
  const res = await o.members.admin.api.post(`/v1/orgs/${o.id}/saml`, body);
  expect(res.status).toBe(201);
  return res.body;
}

describe('SAML provider management', () => {
  it('creates a provider with every field and answers the full object', async () => {
    const team = await createTeam(org.id, 'SSO people');
    const res = await admin().post(`/v1/orgs/${org.id}/saml`, complete({ defaultTeam: team, defaultRole: 'edit' }));
    expect(res.status).toBe(201);
    const p = res.body;
    expect(res.headers.location).toBe(`http://docs.test/v1/orgs/${org.id}/saml/${p.id}`);
    expect(p).toMatchObject({
      object: 'saml-provider',
      label: 'Okta',
      ssoURL: IDP_SSO_URL,
      entityID: IDP_ENTITY_ID,
      defaultRole: 'edit',
      status: 'active',
      service: {
        acsURL: `http://docs.test/sso/saml/${p.id}/acs`,
        startURL: `http://docs.test/sso/saml/${p.id}/start`,
        entityID: `http://docs.test/sso/saml/${p.id}`,
      },
      urls: { location: `http://docs.test/v1/orgs/${org.id}/saml/${p.id}` },
    });
    expect(p.certificate).toMatch(/^-----BEGIN CERTIFICATE-----\n/);
    expect(new Date(p.createdAt).toISOString()).toBe(p.createdAt);
    expect(p.defaultTeam).toEqual({
      object: 'team',
      id: team,
      title: 'SSO people',
      members: 0,
      spaces: 0,
      createdAt: expect.any(String),
      permissions: { admin: true, view: true },
    });
    expect((await admin().get(`/v1/orgs/${org.id}/saml/${p.id}`)).body).toEqual(p);
  });

  it('creates a pending provider from a label alone, with the read role by default', async () => {
    const p = await newProvider({ label: 'Later' });
    expect(p).toMatchObject({ status: 'pending', defaultRole: 'read', ssoURL: '', entityID: '', certificate: '' });
    expect(p.defaultTeam).toBeUndefined();
  });

  it('accepts a certificate given as its bare base64 body and stores it as PEM', async () => {
    const body = idp.cert.replace(/-----(BEGIN|END) CERTIFICATE-----/g, '').replace(/\s+/g, '');
    const p = await newProvider(complete({ certificate: body }));
    expect(p.certificate.replace(/\s+/g, '')).toBe(idp.cert.replace(/\s+/g, ''));
  });

  it('updates any field and clears the default team or role', async () => {
    const team = await createTeam(org.id);
    const p = await newProvider(complete({ defaultTeam: team }));
    const res = await admin().patch(`/v1/orgs/${org.id}/saml/${p.id}`, {
      label: 'Azure',
      defaultRole: null,
      defaultTeam: null,
      ssoURL: 'https://login.example.org/saml',
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: p.id,
      label: 'Azure',
      defaultRole: null,
      ssoURL: 'https://login.example.org/saml',
      entityID: IDP_ENTITY_ID,
    });
    expect(res.body.defaultTeam).toBeUndefined();
    const again = await admin().patch(`/v1/orgs/${org.id}/saml/${p.id}`, { defaultTeam: team, certificate: impostor.cert });
    expect(again.body.defaultTeam.id).toBe(team);
    expect(again.body.certificate.replace(/\s+/g, '')).toBe(impostor.cert.replace(/\s+/g, ''));
    expect((await admin().patch(`/v1/orgs/${org.id}/saml/${p.id}`)).status).toBe(200);
  });

  it('deletes a provider (204), after which it is gone', async () => {
    const p = await newProvider();
    const res = await admin().delete(`/v1/orgs/${org.id}/saml/${p.id}`);
    expect(res.status).toBe(204);
    expect(res.body).toBeFalsy();
    expect((await admin().get(`/v1/orgs/${org.id}/saml/${p.id}`)).status).toBe(404);
    expect((await admin().delete(`/v1/orgs/${org.id}/saml/${p.id}`)).status).toBe(404);
    expect((await client(t.app).get(`/sso/saml/${p.id}/start`)).status).toBe(404);
  });

  it('keeps the provider when its default team is deleted', async () => {
    const team = await createTeam(org.id);
    const p = await newProvider(complete({ defaultTeam: team }));
    await sql(t, 'delete from team where id = ?', [team]);
    const res = await admin().get(`/v1/orgs/${org.id}/saml/${p.id}`);
    expect(res.status).toBe(200);
    expect(res.body.defaultTeam).toBeUndefined();
  });

  it('validates every field and names it', async () => {
    const cases: [object, RegExp][] = [
      [{}, /label/],
      [{ label: '' }, /label/],
      [{ label: 'x'.repeat(31) }, /label/],
      [{ label: 'ok', entityID: 'x'.repeat(1025) }, /entityID/],
      [{ label: 'ok', certificate: 'x'.repeat(10001) }, /certificate/],
      [{ label: 'ok', certificate: 'not a certificate!' }, /certificate/],
      [{ label: 'ok', certificate: '-----BEGIN CERTIFICATE-----\nMIIBroken\n-----END CERTIFICATE-----' }, /certificate/],
      [{ label: 'ok', certificate: idp.key }, /certificate/],
      [{ label: 'ok', ssoURL: `https://idp.example.com/${'x'.repeat(2040)}` }, /ssoURL/],
      [{ label: 'ok', ssoURL: 'not a url' }, /ssoURL/],
      [{ label: 'ok', ssoURL: 'ftp://idp.example.com/sso' }, /ssoURL/],
      [{ label: 'ok', defaultRole: 'owner' }, /defaultRole/],
    ];
    for (const [body, field] of cases) {
      const res = await admin().post(`/v1/orgs/${org.id}/saml`, body);
      expect([JSON.stringify(body).slice(0, 80), res.status]).toEqual([JSON.stringify(body).slice(0, 80), 400]);
      expect(res.body.error).toEqual({ code: 400, message: expect.stringMatching(field) });
    }
    const p = await newProvider();
    for (const [body, field] of cases.slice(2)) {
      const res = await admin().patch(`/v1/orgs/${org.id}/saml/${p.id}`, body);
      expect(res.status).toBe(400);
      expect(res.body.error.message).toMatch(field);
    }
    // at the limits exactly
    expect(
      (
        await admin().post(`/v1/orgs/${org.id}/saml`, {
          label: 'x'.repeat(30),
          entityID: 'e'.repeat(1024),
          ssoURL: `https://idp.example.com/${'x'.repeat(2048 - 24)}`,
        })
      ).status,
    ).toBe(201);
  });

  it('refuses a default team of another organization or one that does not exist (404)', async () => {
    const theirs = await createTeam(other.id);
    for (const defaultTeam of [theirs, 'doesnotexist']) {
      const res = await admin().post(`/v1/orgs/${org.id}/saml`, complete({ defaultTeam }));
      expect(res.status).toBe(404);
      expect(res.body.error.message).toMatch(/defaultTeam/);
    }
    const p = await newProvider();
    expect((await admin().patch(`/v1/orgs/${org.id}/saml/${p.id}`, { defaultTeam: theirs })).status).toBe(404);
  });

  it('needs a token (401)', async () => {
    const p = await newProvider();
    const anonymous = client(t.app);
    for (const [method, url] of [
      ['get', `/v1/orgs/${org.id}/saml`],
      ['post', `/v1/orgs/${org.id}/saml`],
      ['get', `/v1/orgs/${org.id}/saml/${p.id}`],
      ['patch', `/v1/orgs/${org.id}/saml/${p.id}`],
      ['delete', `/v1/orgs/${org.id}/saml/${p.id}`],
      ['get', `/v1/orgs/${org.id}/sso`],
    ] as const) {
      const res = await (anonymous as any)[method](url, method === 'post' || method === 'patch' ? complete() : undefined);
      expect([url, res.status, res.body.error.code]).toEqual([url, 401, 401]);
    }
  });

  it('is for organization admins only (403 for every other role)', async () => {
    const p = await newProvider();
    for (const role of ['create', 'review', 'edit', 'comment', 'read', 'guest'] as const) {
      const api = org.members[role].api;
      for (const res of [
        await api.get(`/v1/orgs/${org.id}/saml`),
        await api.post(`/v1/orgs/${org.id}/saml`, complete()),
        await api.get(`/v1/orgs/${org.id}/saml/${p.id}`),
        await api.patch(`/v1/orgs/${org.id}/saml/${p.id}`, { label: 'Mine' }),
        await api.delete(`/v1/orgs/${org.id}/saml/${p.id}`),
      ]) {
        expect([role, res.status]).toEqual([role, 403]);
        expect(res.body.error.message).toMatch(/admin/);
      }
    }
    expect((await admin().get(`/v1/orgs/${org.id}/saml/${p.id}`)).body.label).toBe('Okta');
  });

  it('never reveals another organization (404)', async () => {
    const theirs = await newProvider(complete(), other);
    for (const res of [
      await admin().get(`/v1/orgs/${other.id}/saml`),
      await admin().post(`/v1/orgs/${other.id}/saml`, complete()),
      await admin().get(`/v1/orgs/${other.id}/saml/${theirs.id}`),
      await admin().get(`/v1/orgs/${org.id}/saml/${theirs.id}`),
      await admin().patch(`/v1/orgs/${org.id}/saml/${theirs.id}`, { label: 'Stolen' }),
      await admin().delete(`/v1/orgs/${org.id}/saml/${theirs.id}`),
      await admin().get(`/v1/orgs/${other.id}/sso`),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe(404);
    }
    expect((await other.members.admin.api.get(`/v1/orgs/${other.id}/saml/${theirs.id}`)).body.label).toBe('Okta');
  });

  it('lists providers page by page', async () => {
    const fresh = await createTestOrg(t, 'Paged SAML org');
    const made = [];
    for (const label of ['One', 'Two', 'Three']) made.push((await newProvider({ label }, fresh)).id);
    const api = fresh.members.admin.api;
    const first = await api.get(`/v1/orgs/${fresh.id}/saml?limit=2`);
    expect(first.status).toBe(200);
    expect(first.body.count).toBe(3);
    expect(first.body.items).toHaveLength(2);
    expect(first.body.next.page).toEqual(expect.any(String));
    const second = await api.get(`/v1/orgs/${fresh.id}/saml?limit=2&page=${encodeURIComponent(first.body.next.page)}`);
    expect(second.body.items).toHaveLength(1);
    expect(second.body.next).toBeUndefined();
    expect([...first.body.items, ...second.body.items].map((p: { id: string }) => p.id)).toEqual(made);
    expect((await api.get(`/v1/orgs/${fresh.id}/saml?limit=1001`)).status).toBe(400);
    expect((await api.get(`/v1/orgs/${fresh.id}/saml?page=garbage`)).status).toBe(400);
  });
});

describe('SSO login list', () => {
  it('shows every member (guests included) the active providers, without pagination fields', async () => {
    const fresh = await createTestOrg(t, 'SSO list org');
    const active = await newProvider(complete({ label: 'Company SSO' }), fresh);
    await newProvider({ label: 'Not ready' }, fresh);
    for (const role of ['admin', 'read', 'guest'] as const) {
      const res = await fresh.members[role].api.get(`/v1/orgs/${fresh.id}/sso`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        items: [{ id: active.id, label: 'Company SSO', startURL: `http://docs.test/sso/saml/${active.id}/start` }],
      });
    }
  });
});

describe('SAML sign-in', () => {
  let provider: any;
  let team: string;
  const anonymous = () => client(t.app);

  beforeAll(async () => {
    team = await createTeam(org.id, 'Joined by SSO');
    provider = await newProvider(complete({ label: 'Sign-in', defaultTeam: team, defaultRole: 'comment' }));
  });

  const options = (extra: Partial<ResponseOptions> = {}): ResponseOptions => ({
    audience: provider.service.entityID,
    acsUrl: provider.service.acsURL,
    email: `sso-${newId(6).toLowerCase()}@example.com`,
    ...extra,
  });

  const post = (xml: string, relayState?: string, providerId = provider.id) =>
    t.app
      .inject({
        method: 'POST',
        url: `/sso/saml/${providerId}/acs`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ SAMLResponse: encode(xml), ...(relayState ? { RelayState: relayState } : {}) }).toString(),
      })
      .then((res) => ({ status: res.statusCode, body: JSON.parse(res.body), headers: res.headers }));

  const expectRefused = async (xml: string, status: number, message: RegExp) => {
    const res = await post(xml);
    expect([res.status, res.body.error?.message]).toEqual([status, expect.stringMatching(message)]);
    expect(res.body.error.code).toBe(status);
  };

  it('serves service provider metadata at its entity ID', async () => {
    const res = await t.app.inject({ method: 'GET', url: `/sso/saml/${provider.id}` });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/samlmetadata\+xml/);
    expect(res.body).toContain(`entityID="${provider.service.entityID}"`);
    expect(res.body).toContain(`Location="${provider.service.acsURL}"`);
    expect((await anonymous().get('/sso/saml/doesnotexist')).status).toBe(404);
  });

  it('documents the SSO endpoints in the OpenAPI document, without bearer security', async () => {
    const doc = (await anonymous().get('/openapi.json')).body;
    expect(doc.paths['/sso/saml/{samlProviderId}/acs'].post.security).toEqual([]);
    expect(doc.paths['/sso/saml/{samlProviderId}/start'].get.security).toEqual([]);
    expect(doc.paths['/v1/orgs/{organizationId}/saml'].post).toBeDefined();
  });

  it('redirects the start URL to the identity provider with an AuthnRequest', async () => {
    const res = await t.app.inject({ method: 'GET', url: `/sso/saml/${provider.id}/start?RelayState=%2Fafter` });
    expect(res.statusCode).toBe(302);
    const { xml, url } = inflateRequest(res.headers.location as string);
    expect(`${url.origin}${url.pathname}`).toBe('https://idp.example.com/sso');
    expect(url.searchParams.get('tenant')).toBe('acme');
    expect(url.searchParams.get('RelayState')).toBe('/after');
    expect(xml).toMatch(/<samlp:AuthnRequest /);
    expect(xml).toContain(`AssertionConsumerServiceURL="${provider.service.acsURL}"`);
    expect(xml).toContain(`Destination="${IDP_SSO_URL.replace('&', '&amp;')}"`);
    expect(xml).toMatch(new RegExp(`<saml:Issuer[^>]*>${provider.service.entityID}</saml:Issuer>`));
  });

  it('answers 404 for an unknown provider and 409 for one not configured yet', async () => {
    const pending = await newProvider({ label: 'Pending' });
    expect((await anonymous().get('/sso/saml/doesnotexist/start')).status).toBe(404);
    const res = await anonymous().get(`/sso/saml/${pending.id}/start`);
    expect(res.status).toBe(409);
    expect(res.body.error.message).toMatch(/ssoURL, entityID, certificate/);
    const xml = sign(buildResponse(options()), 'assertion');
    expect((await post(xml, undefined, 'doesnotexist')).status).toBe(404);
    expect((await post(xml, undefined, pending.id)).status).toBe(409);
  });

  it('signs a new person in with a signed assertion: SSO member with the default role and team, and a working token', async () => {
    const o = options({ attributes: { givenName: 'Ada', sn: 'Lovelace' } });
    const res = await post(sign(buildResponse(o), 'assertion'), 'state-1');
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toEqual({
      token: expect.stringMatching(/^dms_/),
      userId: expect.any(String),
      organizationId: org.id,
      relayState: 'state-1',
    });
    const me = await client(t.app, res.body.token).get('/v1/user');
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ id: res.body.userId, email: o.email, displayName: 'Ada Lovelace' });
    const [member] = await sql(t, 'select role, sso, disabled from member where organization_id = ? and user_id = ?', [
      org.id,
      res.body.userId,
    ]);
    expect(member).toEqual({ role: 'comment', sso: true, disabled: false });
    expect(await sql(t, 'select role from team_member where team_id = ? and user_id = ?', [team, res.body.userId])).toEqual([
      { role: 'member' },
    ]);
    expect((await client(t.app, res.body.token).get(`/v1/orgs/${org.id}`)).status).toBe(200);
    const teamNow = await admin().get(`/v1/orgs/${org.id}/saml/${provider.id}`);
    expect(teamNow.body.defaultTeam.members).toBeGreaterThanOrEqual(1);
  });

  it('accepts a response whose whole Response is signed (assertion unsigned), posted as JSON too', async () => {
    const o = options();
    const res = await anonymous().post(`/sso/saml/${provider.id}/acs`, { SAMLResponse: encode(sign(buildResponse(o), 'response')) });
    expect(res.status).toBe(200);
    expect(res.body.relayState).toBeUndefined();
    expect((await client(t.app, res.body.token).get('/v1/user')).body.email).toBe(o.email);
  });

  it('keeps the role of an existing member and marks them as SSO, finding them by email case-insensitively', async () => {
    const [reader] = await sql<{ email: string }>(t, 'select email from app_user where id = ?', [org.members.read.userId]);
    const res = await post(sign(buildResponse(options({ email: reader.email.toUpperCase() })), 'assertion'));
    expect(res.status).toBe(200);
    expect(res.body.userId).toBe(org.members.read.userId);
    const [member] = await sql(t, 'select role, sso from member where organization_id = ? and user_id = ?', [
      org.id,
      org.members.read.userId,
    ]);
    expect(member).toEqual({ role: 'read', sso: true });
  });

  it('takes the email from an attribute when the NameID is opaque', async () => {
    const email = `attr-${newId(6).toLowerCase()}@example.com`;
    const o = options({
      nameId: 'opaque-id-123',
      nameIdFormat: 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent',
      attributes: { email },
    });
    const res = await post(sign(buildResponse(o), 'assertion'));
    expect(res.status).toBe(200);
    expect((await client(t.app, res.body.token).get('/v1/user')).body.email).toBe(email);
    await expectRefused(
      sign(
        buildResponse(options({ nameId: 'opaque-id-456', nameIdFormat: 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent' })),
        'assertion',
      ),
      400,
      /email/,
    );
  });

  it('checks InResponseTo against the requests it sent, each answerable once', async () => {
    const start = await t.app.inject({ method: 'GET', url: `/sso/saml/${provider.id}/start` });
    const requestId = /ID="([^"]+)"/.exec(inflateRequest(start.headers.location as string).xml)![1];
    expect((await post(sign(buildResponse(options({ inResponseTo: requestId })), 'assertion'))).status).toBe(200);
    await expectRefused(sign(buildResponse(options({ inResponseTo: requestId })), 'assertion'), 401, /InResponseTo/);
    await expectRefused(sign(buildResponse(options({ inResponseTo: '_never-sent' })), 'assertion'), 401, /InResponseTo/);
  });

  it('refuses a replayed response', async () => {
    const xml = sign(buildResponse(options()), 'assertion');
    expect((await post(xml)).status).toBe(200);
    await expectRefused(xml, 401, /already used|replay/);
    // the same assertion wrapped in a freshly signed response is still the same assertion
    const assertionId = /<saml:Assertion ID="([^"]+)"/.exec(xml)![1];
    await expectRefused(sign(buildResponse(options({ assertionId })), 'response'), 401, /already used|replay/);
  });

  it('refuses a response altered after signing', async () => {
    const o = options();
    const signed = sign(buildResponse(o), 'assertion');
    await expectRefused(signed.replace(o.email!, 'mallory@example.com'), 401, /Invalid signature/);
    const signedResponse = sign(buildResponse(options({ attributes: { role: 'user' } })), 'response');
    await expectRefused(signedResponse.replace('>user<', '>admin<'), 401, /Invalid signature/);
  });

  it('refuses a response signed by another key', async () => {
    await expectRefused(sign(buildResponse(options()), 'assertion', impostor), 401, /Invalid signature/);
    await expectRefused(sign(buildResponse(options()), 'response', impostor), 401, /Invalid signature/);
  });

  it('refuses an unsigned response', async () => {
    await expectRefused(buildResponse(options()), 401, /not signed/);
  });

  it('refuses expired and not-yet-valid assertions, and assertions without expiry', async () => {
    await expectRefused(
      sign(buildResponse(options({ notOnOrAfterMs: -60 * 60_000, notBeforeMs: -2 * 60 * 60_000 })), 'assertion'),
      401,
      /expired/,
    );
    await expectRefused(
      sign(buildResponse(options({ notBeforeMs: 60 * 60_000, notOnOrAfterMs: 2 * 60 * 60_000 })), 'assertion'),
      401,
      /not valid/,
    );
    await expectRefused(sign(buildResponse(options({ noExpiry: true })), 'assertion'), 401, /expiry/);
  });

  it('refuses an assertion for another audience or from another issuer', async () => {
    await expectRefused(sign(buildResponse(options({ audience: 'https://someone-else.example.com/sp' })), 'assertion'), 401, /audience/i);
    await expectRefused(sign(buildResponse(options({ issuer: 'https://evil.example.com/idp' })), 'assertion'), 401, /issued by/);
  });

  it('refuses malformed input (400) and a disabled member (403)', async () => {
    const missing = await anonymous().post(`/sso/saml/${provider.id}/acs`, {});
    expect(missing.status).toBe(400);
    expect(missing.body.error.message).toMatch(/SAMLResponse/);
    const garbage = await anonymous().post(`/sso/saml/${provider.id}/acs`, { SAMLResponse: 'bm90IHhtbA==' });
    expect(garbage.status).toBe(400);
    expect(garbage.body.error.message).toMatch(/SAMLResponse/);

    const [user] = await sql<{ email: string }>(t, 'select email from app_user where id = ?', [org.members.edit.userId]);
    await sql(t, 'update member set disabled = true where organization_id = ? and user_id = ?', [org.id, org.members.edit.userId]);
    await expectRefused(sign(buildResponse(options({ email: user.email })), 'assertion'), 403, /disabled/);
    await sql(t, 'update member set disabled = false where organization_id = ? and user_id = ?', [org.id, org.members.edit.userId]);
  });
});

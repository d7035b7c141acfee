import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { GitBookAPI } from '@gitbook/api';
import { createTestOrg, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { listenOnLoopback, sql } from '../support/fixtures.ts';
import { expectMatchesGitBook } from '../support/gitbook-openapi.ts';
import { newId } from '../../src/domain/ids.ts';
import { IDP_ENTITY_ID, IDP_SSO_URL, idp, impostor } from '../support/saml-idp.ts';

/**
 * GitBook's own client manages SAML providers and reads the SSO login list; every response body is
 * checked against the schema GitBook's OpenAPI document gives for that operation.
 */
let t: TestApp;
let org: TestOrg;
// The package's bundled type declarations do not resolve under NodeNext, so the client is typed loosely here.
let api: any;
let reader: any;

beforeAll(async () => {
  t = await startTestApp();
  const serverUrl = await listenOnLoopback(t);
  org = await createTestOrg(t, 'Client SAML org');
  api = new GitBookAPI({ endpoint: serverUrl, authToken: org.members.admin.token });
  reader = new GitBookAPI({ endpoint: serverUrl, authToken: org.members.read.token });
});
afterAll(() => t.close());

describe('GitBook client: SAML providers and SSO logins', () => {
  it('creates, reads, lists, updates and deletes providers', async () => {
    const team = newId();
    await sql(t, 'insert into team (id, organization_id, title, created_at, updated_at) values (?, ?, ?, now(), now())', [
      team,
      org.id,
      'Client team',
    ]);
    const created = await api.orgs.createOrganizationSamlProvider(org.id, {
      label: 'Client IdP',
      entityID: IDP_ENTITY_ID,
      ssoURL: IDP_SSO_URL,
      certificate: idp.cert,
      defaultTeam: team,
      defaultRole: 'read',
    });
    expect(created.status).toBe(201);
    expectMatchesGitBook('createOrganizationSAMLProvider', created.data, 201);
    expect(created.headers.get('location')).toBe(created.data.urls.location);
    const id = created.data.id;

    const second = (
      await api.orgs.createOrganizationSamlProvider(org.id, {
        label: 'Second',
        entityID: 'https://idp2.example.com',
        ssoURL: 'https://idp2.example.com/sso',
        certificate: impostor.cert,
        defaultRole: null,
      })
    ).data;
    expectMatchesGitBook('createOrganizationSAMLProvider', second, 201);

    expectMatchesGitBook('getOrganizationSAMLProviderById', (await api.orgs.getOrganizationSamlProviderById(org.id, id)).data);
    const updated = (await api.orgs.updateOrganizationSamlProvider(org.id, id, { label: 'Renamed IdP', defaultRole: 'edit' })).data;
    expectMatchesGitBook('updateOrganizationSAMLProvider', updated);
    expect(updated).toMatchObject({ label: 'Renamed IdP', defaultRole: 'edit', defaultTeam: { id: team } });

    const first = (await api.orgs.listSamlProvidersInOrganizationById(org.id, { limit: 1 })).data;
    expectMatchesGitBook('listSAMLProvidersInOrganizationById', first);
    expect(first.next?.page).toBeDefined();
    const rest = (await api.orgs.listSamlProvidersInOrganizationById(org.id, { page: first.next.page })).data;
    expectMatchesGitBook('listSAMLProvidersInOrganizationById', rest);
    expect([...first.items, ...rest.items].map((p: { id: string }) => p.id)).toEqual([id, second.id]);

    const logins = (await reader.orgs.listSsoProviderLoginsInOrganization(org.id)).data;
    expectMatchesGitBook('listSSOProviderLoginsInOrganization', logins);
    expect(logins.items.map((l: { id: string }) => l.id)).toEqual([id, second.id]);

    const deleted = await api.orgs.deleteOrganizationSamlProvider(org.id, second.id);
    expect(deleted.status).toBe(204);
    await expect(api.orgs.getOrganizationSamlProviderById(org.id, second.id)).rejects.toMatchObject({ code: 404 });
  });

  it('surfaces validation and permission errors the way the client expects', async () => {
    await expect(api.orgs.createOrganizationSamlProvider(org.id, { label: 'x'.repeat(31) })).rejects.toMatchObject({ code: 400 });
    await expect(api.orgs.createOrganizationSamlProvider(org.id, { label: 'Bad', certificate: 'nope' })).rejects.toMatchObject({
      code: 400,
    });
    await expect(reader.orgs.listSamlProvidersInOrganizationById(org.id)).rejects.toMatchObject({ code: 403 });
  });
});

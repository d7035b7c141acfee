import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { GitBookAPI, GitBookAPIError } from '@gitbook/api';
import { createTestOrg, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { listenOnLoopback, PNG_1X1 } from '../support/fixtures.ts';
import { expectMatchesGitBook } from '../support/gitbook-openapi.ts';

/**
 * GitBook's own client drives translations and integrations (publishing, listing, installations);
 * every response is checked against the schema GitBook's OpenAPI document gives for that operation.
 * The client has no custom field operations (nor does the document): those go through its generic
 * `request`, which shows the wire format works with it, without a schema to check against.
 */
let t: TestApp;
let org: TestOrg;
let installer: TestOrg;
let api: any;
let installerApi: any;

beforeAll(async () => {
  t = await startTestApp({ SECRETS_KEY: Buffer.alloc(32, 7).toString('base64') });
  const serverUrl = await listenOnLoopback(t);
  org = await createTestOrg(t, 'Client settings org');
  installer = await createTestOrg(t, 'Client installer org');
  api = new GitBookAPI({ endpoint: serverUrl, authToken: org.members.admin.token });
  installerApi = new GitBookAPI({ endpoint: serverUrl, authToken: installer.members.admin.token });
});
afterAll(() => t.close());

describe('GitBook client: translations', () => {
  it('creates, lists, reads, updates and deletes translation settings', async () => {
    const space = (await api.orgs.createSpace(org.id, { title: 'Source space' })).data;
    const created = await api.orgs.createTranslation(org.id, {
      title: 'French docs',
      languages: ['fr-fr'],
      source: { space: space.id, language: 'en' },
      language: 'fr',
    });
    expect(created.status).toBe(201);
    expectMatchesGitBook('createTranslation', created.data, 201);
    expect(created.data).toMatchObject({ title: 'French docs', languages: ['fr-FR'], language: 'fr' });
    await api.orgs.createTranslation(org.id, { title: 'German docs', source: { space: space.id, language: 'en' }, language: 'de' });

    const first = (await api.orgs.listTranslations(org.id, { limit: 1 })).data;
    expectMatchesGitBook('listTranslations', first);
    expect(first.next?.page).toBeDefined();
    expectMatchesGitBook('listTranslations', (await api.orgs.listTranslations(org.id, { page: first.next.page })).data);

    expectMatchesGitBook('getTranslation', (await api.orgs.getTranslation(org.id, created.data.id)).data);
    const instructions = { object: 'document', data: {}, nodes: [] };
    const updated = (await api.orgs.updateTranslation(org.id, created.data.id, { title: 'French (France)', instructions })).data;
    expectMatchesGitBook('updateTranslation', updated);
    expect(updated.title).toBe('French (France)');

    const deleted = await api.orgs.deleteTranslation(org.id, created.data.id);
    expect(deleted.status).toBe(205);
    await expect(api.orgs.getTranslation(org.id, created.data.id)).rejects.toMatchObject({ code: 404 });
  });

  it('surfaces validation errors through GitBookAPIError', async () => {
    let error: unknown;
    try {
      await api.orgs.createTranslation(org.id, { title: 'x'.repeat(101) });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(GitBookAPIError);
    expect((error as GitBookAPIError).code).toBe(400);
    expect((error as GitBookAPIError).errorMessage).toMatch(/title/);
  });
});

describe('GitBook client: integrations', () => {
  const name = `client-integration-${Date.now().toString(36)}`;

  it('publishes, reads, lists, installs, updates, uninstalls and unpublishes', async () => {
    const published = (
      await api.integrations.publishIntegration(name, {
        title: 'Client integration',
        description: 'Published through GitBook’s client',
        icon: PNG_1X1,
        previewImages: [PNG_1X1],
        visibility: 'public',
        scopes: ['space:content:read'],
        categories: ['content'],
        blocks: [{ id: 'block', title: 'A block', urlUnfurl: ['https://example.net/*'] }],
        contentSources: [{ id: 'source', title: 'A source', configuration: { componentId: 'configure' } }],
        externalLinks: [{ url: 'https://example.net', label: 'Home' }],
        configurations: { account: { properties: { token: { type: 'string', title: 'Token' } }, required: ['token'] } },
        script: 'export default {}',
        organization: org.id,
        secrets: { TOKEN: 'never-shown' },
        contentSecurityPolicy: "default-src 'self'",
      })
    ).data;
    expectMatchesGitBook('publishIntegration', published);
    expect(published.version).toBe(1);
    // A publication replaces the whole definition (secrets excepted), so it repeats the configuration schema.
    const republished = (
      await api.integrations.publishIntegration(name, {
        title: 'Client integration',
        description: 'Again',
        script: 'export default {}',
        organization: org.id,
        scopes: [],
        visibility: 'public',
        configurations: { account: { properties: { token: { type: 'string', title: 'Token' } }, required: ['token'] } },
      })
    ).data;
    expectMatchesGitBook('publishIntegration', republished);
    expect(republished.version).toBe(2);
    expect(JSON.stringify(republished)).not.toContain('never-shown');

    expectMatchesGitBook('getIntegrationByName', (await installerApi.integrations.getIntegrationByName(name)).data);
    const listed = (await installerApi.integrations.listIntegrations({ owner: org.id, search: 'client', limit: 1 })).data;
    expectMatchesGitBook('listIntegrations', listed);
    expect(listed.items.map((i: { name: string }) => i.name)).toEqual([name]);

    const installed = await installerApi.integrations.installIntegration(name, { organization: installer.id });
    expect(installed.status).toBe(201);
    expectMatchesGitBook('installIntegration', installed.data, 201);
    expect(installed.data.status).toBe('pending');
    const id = installed.data.id;
    const configured = (
      await installerApi.integrations.updateIntegrationInstallation(name, id, { configuration: { token: 'abc' }, externalIds: ['ext'] })
    ).data;
    expectMatchesGitBook('updateIntegrationInstallation', configured);
    expect(configured.status).toBe('active');
    expectMatchesGitBook('getIntegrationInstallationById', (await api.integrations.getIntegrationInstallationById(name, id)).data);
    const installations = (await api.integrations.listIntegrationInstallations(name, { externalId: 'ext' })).data;
    expectMatchesGitBook('listIntegrationInstallations', installations);
    expect(installations.items.map((i: { id: string }) => i.id)).toEqual([id]);

    expect((await installerApi.integrations.uninstallIntegration(name, id)).status).toBe(205);
    await installerApi.integrations.installIntegration(name, { organization: installer.id });
    const unpublished = await api.integrations.unpublishIntegration(name);
    expect(unpublished.status).toBe(204);
    expectMatchesGitBook('unpublishIntegration', undefined, 204);
    await expect(api.integrations.getIntegrationByName(name)).rejects.toMatchObject({ code: 404 });
  });
});

describe('GitBook client: custom fields (generic request)', () => {
  it('creates a field and sets a space value', async () => {
    const created = await api.request({
      path: `/orgs/${org.id}/custom-fields`,
      method: 'POST',
      body: { name: 'audience', type: 'select', options: ['dev', 'ops'] },
      type: 'application/json',
      format: 'json',
      secure: true,
    });
    expect(created.status).toBe(201);
    expect(created.data).toMatchObject({ name: 'audience', type: 'select', options: ['dev', 'ops'] });
    const space = (await api.orgs.createSpace(org.id, { title: 'With fields' })).data;
    const patched = await api.request({
      path: `/spaces/${space.id}/custom-fields`,
      method: 'PATCH',
      body: { values: { audience: { value: 'ops' } } },
      type: 'application/json',
      secure: true,
    });
    expect(patched.status).toBe(204);
    const values = await api.request({ path: `/spaces/${space.id}/custom-fields`, method: 'GET', format: 'json', secure: true });
    expect(values.data).toEqual([expect.objectContaining({ value: 'ops', customField: expect.objectContaining({ name: 'audience' }) })]);
  });
});

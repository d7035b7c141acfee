import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { GitBookAPI, GitBookAPIError } from '@gitbook/api';
import { createTestOrg, eventually, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { listenOnLoopback } from '../support/fixtures.ts';
import { expectMatchesGitBook } from '../support/gitbook-openapi.ts';
import { json, petstore30, petstore31, startFixtureServer, yaml, type FixtureServer } from '../support/openapi-fixtures.ts';

/**
 * GitBook's own client drives the OpenAPI spec operations over HTTP; every response body is
 * checked against the schema GitBook's OpenAPI document gives for that operation.
 */
let t: TestApp;
let org: TestOrg;
let fixtures: FixtureServer;
// The package's bundled type declarations do not resolve under NodeNext, so the client is typed loosely here.
let api: any;
let endpoint: string;

beforeAll(async () => {
  t = await startTestApp({ FETCH_ALLOW_HOSTS: '127.0.0.1' });
  endpoint = await listenOnLoopback(t);
  org = await createTestOrg(t, 'OpenAPI client org');
  api = new GitBookAPI({ endpoint, authToken: org.members.admin.token });
  fixtures = await startFixtureServer();
  fixtures.docs.set('/client.json', json(petstore30));
});
afterAll(async () => {
  await fixtures?.close();
  await t?.close();
});

async function completed(slug: string, after?: string) {
  return eventually(async () => {
    const spec = (await api.orgs.getOpenApiSpecBySlug(org.id, slug)).data;
    return spec.processingState === 'complete' && spec.lastProcessedAt !== after ? spec : undefined;
  }, 60_000);
}

describe('GitBook client: OpenAPI specs', () => {
  it('creates, reads, updates, versions and deletes specs', async () => {
    const created = (await api.orgs.createOpenApiSpec(org.id, { slug: 'client-spec', source: { url: `${fixtures.base}/client.json` } }))
      .data;
    expectMatchesGitBook('createOpenAPISpec', created, 201);
    expect(created.processingState).toBe('pending');

    const done = await completed('client-spec');
    expectMatchesGitBook('getOpenAPISpecBySlug', done);
    expect(done.lastVersion).toBeDefined();
    expectMatchesGitBook('listOpenAPISpecs', (await api.orgs.listOpenApiSpecs(org.id, { limit: 1 })).data);

    expectMatchesGitBook('listOpenAPISpecVersions', (await api.orgs.listOpenApiSpecVersions(org.id, 'client-spec')).data);
    const latest = (await api.orgs.getLatestOpenApiSpecVersion(org.id, 'client-spec')).data;
    expectMatchesGitBook('getLatestOpenAPISpecVersion', latest);
    expectMatchesGitBook('getOpenAPISpecVersionById', (await api.orgs.getOpenApiSpecVersionById(org.id, 'client-spec', latest.id)).data);
    const content = (await api.orgs.getLatestOpenApiSpecVersionContent(org.id, 'client-spec')).data;
    expectMatchesGitBook('getLatestOpenAPISpecVersionContent', content);
    expect(content.filesystem).toEqual([
      { dir: '.', isEntrypoint: true, references: [], filename: 'client.json', specification: petstore30 },
    ]);
    expectMatchesGitBook(
      'getOpenAPISpecVersionContentById',
      (await api.orgs.getOpenApiSpecVersionContentById(org.id, 'client-spec', latest.id)).data,
    );

    // Replace the source with a text: 200 and a new version.
    const updated = await api.orgs.createOrUpdateOpenApiSpecBySlug(org.id, 'client-spec', { source: { text: yaml(petstore31).body } });
    expect(updated.status).toBe(200);
    expectMatchesGitBook('createOrUpdateOpenAPISpecBySlug', updated.data, 200);
    const reprocessed = await completed('client-spec', done.lastProcessedAt);
    expectMatchesGitBook('getOpenAPISpecBySlug', reprocessed);
    expect(reprocessed.lastVersion).not.toBe(done.lastVersion);
    const textContent = (await api.orgs.getLatestOpenApiSpecVersionContent(org.id, 'client-spec')).data;
    expectMatchesGitBook('getLatestOpenAPISpecVersionContent', textContent);
    const versions = (await api.orgs.listOpenApiSpecVersions(org.id, 'client-spec', { limit: 1 })).data;
    expectMatchesGitBook('listOpenAPISpecVersions', versions);
    expect(versions.next?.page).toBeDefined();

    // PUT on a new slug creates: 201.
    const made = await api.orgs.createOrUpdateOpenApiSpecBySlug(org.id, 'client-put', { source: { url: `${fixtures.base}/client.json` } });
    expect(made.status).toBe(201);
    expectMatchesGitBook('createOrUpdateOpenAPISpecBySlug', made.data, 201);

    // A failed processing still matches: GitBook's error code enum.
    await api.orgs.createOpenApiSpec(org.id, { slug: 'client-broken', source: { url: `${fixtures.base}/missing.json` } });
    const broken = await completed('client-broken');
    expectMatchesGitBook('getOpenAPISpecBySlug', broken);
    expect(broken.lastProcessErrorCode).toBe('FETCH_ERROR');

    const deleted = await api.orgs.deleteOpenApiSpecBySlug(org.id, 'client-spec');
    expect(deleted.status).toBe(205);
    const again = await api.orgs.deleteOpenApiSpecBySlug(org.id, 'client-spec');
    expect(again.status).toBe(204);
    await expect(api.orgs.getOpenApiSpecBySlug(org.id, 'client-spec')).rejects.toMatchObject({ code: 404 });
  });

  it('surfaces errors the way the client expects', async () => {
    let error: unknown;
    try {
      await api.orgs.createOpenApiSpec(org.id, { slug: 'Not A Slug', source: { url: `${fixtures.base}/client.json` } });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(GitBookAPIError);
    expect((error as GitBookAPIError).code).toBe(400);
    expect((error as GitBookAPIError).errorMessage).toMatch(/slug/);
    const reader: any = new GitBookAPI({ endpoint, authToken: org.members.read.token });
    await expect(reader.orgs.createOpenApiSpec(org.id, { slug: 'nope', source: { text: 'openapi: 3.1.0' } })).rejects.toMatchObject({
      code: 403,
    });
    await expect(api.orgs.getLatestOpenApiSpecVersion(org.id, 'no-such-spec')).rejects.toMatchObject({ code: 404 });
  });
});

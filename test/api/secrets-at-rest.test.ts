import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { buildApp } from '../../src/api/app.ts';
import { loadConfig } from '../../src/config.ts';
import { initOrm } from '../../src/db/orm.ts';
import { logger } from '../../src/lib/logger.ts';
import { connectTemporal } from '../../src/temporal/client.ts';
import { createTestOrg, type TestApp, type TestOrg } from '../support/harness.ts';
import { GIT_PASSWORD, GIT_USER, gitRepository, startImportFixtures, type ImportFixtures } from '../support/import-fixtures.ts';
import { idp, IDP_ENTITY_ID, IDP_SSO_URL } from '../support/saml-idp.ts';

/**
 * Secrets at rest: a flow that handles every kind of secret the service knows (API tokens, an
 * integration secret, a site's visitor signing key, a share-link key, a site lookup token and a
 * site visitor's token, a SAML provider, a git import with basic-auth credentials in its URL), then every text, json and bytea column of every
 * table, the Temporal event histories of the organization's workflows and every log line the API
 * wrote (at debug level) are searched: none holds a plaintext secret.
 */

let t: TestApp;
let org: TestOrg;
let fx: ImportFixtures;
const logLines: string[] = [];
const secrets: Record<string, string> = {};
const INTEGRATION_SECRET = `integration-secret-${randomBytes(12).toString('hex')}`;

beforeAll(async () => {
  // The same secrets key as the suite's worker (it decrypts what the API encrypts for a job).
  // Load shedding off, as in every in-process app of the suite (test/support/harness.ts): the test's own work shares its event loop.
  const config = loadConfig({ ...process.env, PUBLIC_URL: 'http://docs.test', OVERLOAD_EVENT_LOOP_DELAY: '0s' });
  const orm = await initOrm({ databaseUrl: config.databaseUrl!, poolMax: 4 });
  const { client, connection } = await connectTemporal({ address: config.temporalAddress!, namespace: config.temporalNamespace });
  const destination = new Writable({
    write(chunk, _encoding, done) {
      logLines.push(String(chunk));
      done();
    },
  });
  const app = await buildApp(
    { config, orm, temporal: client },
    { authCacheTtlMs: 0, logger: logger('debug', { pretty: false, destination }) },
  );
  await app.ready();
  t = {
    app,
    orm,
    temporal: client,
    config,
    close: async () => {
      await app.close();
      await connection.close();
      await orm.close();
    },
  };
  fx = await startImportFixtures();
  gitRepository(fx.gitRoot, 'project.wiki', { 'Home.md': '# Home\n\nWelcome.\n' });
});
afterAll(async () => {
  await fx?.close();
  await t?.close();
});

it('keeps no secret in plaintext in the database, the workflow histories or the logs', async () => {
  org = await createTestOrg(t, 'Secrets');
  const admin = org.members.admin.api;
  for (const [role, member] of Object.entries(org.members)) secrets[`API token (${role})`] = member.token;
  // Every token is used, so that each passes through authentication (and its logging).
  for (const member of Object.values(org.members)) expect((await member.api.get(`/v1/orgs/${org.id}`)).status).toBe(200);

  const name = `secrets-${randomBytes(3).toString('hex')}`;
  const published = await admin.post(`/v1/integrations/${name}`, {
    title: 'Secretive',
    description: 'Holds a secret',
    script: 'export default {}',
    organization: org.id,
    secrets: { API_KEY: INTEGRATION_SECRET },
  });
  expect(published.status).toBe(200);
  secrets['integration secret'] = INTEGRATION_SECRET;

  const site = await admin.post(`/v1/orgs/${org.id}/sites`, { title: 'Private site' });
  expect(site.status).toBe(201);
  const siteUrl = `/v1/orgs/${org.id}/sites/${site.body.id}`;
  expect((await admin.post(`${siteUrl}/publishing/auth/regenerate`)).status).toBeLessThan(300);
  const auth = await admin.get(`${siteUrl}/publishing/auth`);
  expect(auth.status).toBe(200);
  secrets['visitor signing key'] = auth.body.privateKey;
  const link = await admin.post(`${siteUrl}/share-links`, { name: 'Partners' });
  expect(link.status).toBe(201);
  secrets['share-link key'] = link.body.key;
  // A share link used by a visitor: the key travels in the path of a URL passed in a query string that is logged.
  await t.app.inject({ method: 'GET', url: `/v1/urls/published?url=${encodeURIComponent(link.body.urls.published)}` });

  // A site lookup token resolves a published site's URL; the visitor's token it answers reads the space.
  const lookup = await admin.post(`/v1/orgs/${org.id}/site-lookup-tokens`, { label: 'Renderer' });
  expect(lookup.status).toBe(201);
  secrets['site lookup token'] = lookup.body.token;
  const publicSpace = await admin.post(`/v1/orgs/${org.id}/spaces`, { title: 'Public' });
  const publicSite = await admin.post(`/v1/orgs/${org.id}/sites`, { title: 'Public site', spaces: [publicSpace.body.id] });
  expect((await admin.post(`/v1/orgs/${org.id}/sites/${publicSite.body.id}/publish`)).status).toBe(200);
  const resolved = await t.app.inject({
    method: 'POST',
    url: '/v1/urls/published',
    headers: { authorization: `Bearer ${lookup.body.token}`, 'content-type': 'application/json' },
    payload: JSON.stringify({ url: `${t.config.sitesUrl}/${org.id}/${publicSite.body.id}/` }),
  });
  expect(resolved.statusCode).toBe(200);
  secrets["site visitor's token"] = resolved.json().apiToken;
  const read = await t.app.inject({
    url: `/v1/spaces/${publicSpace.body.id}`,
    headers: { authorization: `Bearer ${resolved.json().apiToken}` },
  });
  expect(read.statusCode).toBe(200);

  const saml = await admin.post(`/v1/orgs/${org.id}/saml`, {
    label: 'IdP',
    entityID: IDP_ENTITY_ID,
    certificate: idp.cert,
    ssoURL: IDP_SSO_URL,
  });
  expect(saml.status).toBe(201);
  // The service is never given the IdP's private key; none of its lines may turn up anywhere.
  const keyBody = idp.key.split('\n').filter((line) => line.length > 40);
  for (const [i, line] of keyBody.slice(0, 3).entries()) secrets[`SAML private key line ${i}`] = line;

  const space = await admin.post(`/v1/orgs/${org.id}/spaces`, { title: 'Wiki' });
  const wiki = `http://${GIT_USER}:${encodeURIComponent(GIT_PASSWORD)}@127.0.0.1:${fx.port}/git/project/wiki`;
  const imported = await admin.post(`/v1/spaces/${space.body.id}/content/import`, { source: 'github-wiki', url: wiki });
  expect([imported.status, imported.body?.error]).toEqual([201, undefined]);
  secrets['git password'] = GIT_PASSWORD;
  secrets['git password (URL-encoded)'] = encodeURIComponent(GIT_PASSWORD);

  for (const [what, value] of Object.entries(secrets)) expect([what, typeof value, value.length >= 8]).toEqual([what, 'string', true]);

  const found: string[] = [];
  const search = (where: string, text: string) => {
    for (const [what, value] of Object.entries(secrets)) if (text.includes(value)) found.push(`${what} in ${where}`);
  };

  // The database: every column of every table, as text (bytea as its bytes).
  const em = t.orm.em.fork();
  const connection = em.getConnection();
  const tables = await connection.execute<{ table_name: string }[]>(
    "select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'",
  );
  for (const { table_name } of tables) {
    const rows = await connection.execute<{ row: string }[]>(`select row_to_json(t)::text as row from "${table_name}" t`);
    for (const { row } of rows) search(`table ${table_name}`, row);
    const binary = await connection.execute<{ column_name: string }[]>(
      "select column_name from information_schema.columns where table_schema = 'public' and table_name = ? and data_type = 'bytea'",
      [table_name],
    );
    for (const { column_name } of binary) {
      const values = await connection.execute<{ v: Buffer | null }[]>(`select "${column_name}" as v from "${table_name}"`);
      for (const { v } of values) if (v) search(`table ${table_name}.${column_name}`, Buffer.from(v).toString('latin1'));
    }
  }
  expect(tables.length).toBeGreaterThan(10);

  // The event histories of every workflow the flow started for this organization.
  let histories = 0;
  for await (const execution of t.temporal.workflow.list({ query: `DocsOrganizationId = '${org.id}'` })) {
    const history = await t.temporal.workflow.getHandle(execution.workflowId, execution.runId).fetchHistory();
    search(`history of ${execution.workflowId}`, JSON.stringify(history));
    histories++;
  }
  expect(histories).toBeGreaterThan(0);

  // Every log line of the API.
  expect(logLines.length).toBeGreaterThan(10);
  for (const line of logLines) search('the API log', line);

  expect(found).toEqual([]);
}, 85_000);

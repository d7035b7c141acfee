import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { GitBookAPI, GitBookAPIError } from '@gitbook/api';
import LZString from 'lz-string';
import { forkEm } from '../../src/db/orm.ts';
import { newId } from '../../src/domain/ids.ts';
import { expect400, newSpace } from '../support/fixtures.ts';
import { expectMatchesGitBook } from '../support/gitbook-openapi.ts';
import { client, createTestOrg, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { bundleIntegration } from '../support/integration-bundle.ts';
import { sql } from '../support/sql.ts';

/**
 * Rendering an integration's component (renderIntegrationUIWithPost / …WithGet): the request
 * becomes GitBook's `ui_render` event, dispatched to the integration's script in workerd with its
 * installation's environment, and the script's ContentKit output is the answer. The script is
 * built with @gitbook/runtime's createComponent, as GitBook's own integrations are.
 */
let t: TestApp;
let org: TestOrg;
let other: TestOrg;
let gitbook: any;

/** A block showing its props, its state, the installation's configuration and who asked; an action that counts. */
const SOURCE = `
import { createComponent, createIntegration } from '@gitbook/runtime';
const block = createComponent({
  componentId: 'greeting',
  initialState: (props) => ({ count: 0 }),
  action: async (element, action) => (action.action === 'add' ? { state: { count: element.state.count + 1 } } : {}),
  render: async (element, context) => {
    if (element.props.loop) for (;;) {}
    if (element.props.fail) throw new Error('the block could not be drawn');
    element.setCache({ maxAge: 60 });
    const env = context.environment;
    return {
      type: 'block',
      children: [
        { type: 'text', children: 'Hello ' + element.props.name + ' #' + element.state.count },
        { type: 'markdown', content: [env.installation.id, env.spaceInstallation ? env.spaceInstallation.space : 'none', env.secrets.KEY, element.context.type].join(' | ') },
      ],
    };
  },
});
export default createIntegration({
  components: [block],
  fetch_published_script: async (event, context) =>
    new Response('window.tracked = ' + JSON.stringify({ site: event.siteId, id: context.environment.siteInstallation.configuration.trackingId }) + ';', {
      headers: { 'content-type': 'application/javascript' },
    }),
  fetch: async (request, context) => {
    const url = new URL(request.url);
    if (url.pathname.endsWith('/cookie')) return new Response('<p>hi</p>', { headers: { 'content-type': 'text/html', 'set-cookie': 'stolen=1' } });
    if (url.pathname.endsWith('/fail')) throw new Error('the endpoint broke');
    if (url.pathname.endsWith('/loop')) for (;;) {}
    if (url.pathname.endsWith('/slow')) await new Promise((done) => setTimeout(done, 800));
    return Response.json({
      method: request.method,
      url: request.url,
      body: await request.text(),
      signature: request.headers.get('x-signature'),
      authorization: request.headers.get('authorization'),
      cookie: request.headers.get('cookie'),
      installation: context.environment.installation ? context.environment.installation.id : null,
      hasToken: typeof context.environment.apiTokens.installation === 'string',
      secret: context.environment.secrets.KEY,
    }, { status: 201 });
  },
});
`;

let script: string;

beforeAll(async () => {
  t = await startTestApp({ INTEGRATION_TIMEOUT: '2s', INTEGRATION_POOL_SIZE: '2', INTEGRATION_ENDPOINT_CONCURRENCY: '2' });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = t.app.server.address() as { port: number };
  org = await createTestOrg(t, 'Render org');
  other = await createTestOrg(t, 'Render elsewhere');
  gitbook = new GitBookAPI({ endpoint: `http://127.0.0.1:${port}`, authToken: org.members.admin.token });
  script = await bundleIntegration(SOURCE);
}, 60_000);
afterAll(() => t.close());

const admin = () => org.members.admin.api;

/** The integration published, installed in the org and enabled on a new space (unless `enable` is false). */
async function installed(enable = true) {
  const name = `render-${newId(8).toLowerCase()}`;
  const published = await admin().post(`/v1/integrations/${name}`, {
    title: 'Render integration',
    description: 'Draws a block',
    script,
    organization: org.id,
    visibility: 'private',
    scopes: ['space:content:read'],
    secrets: { KEY: 'the-secret' },
    blocks: [{ id: 'greeting', title: 'Greeting' }],
  });
  expect([published.status, published.body?.error]).toEqual([200, undefined]);
  const installation = await admin().post(`/v1/integrations/${name}/installations`, { organization: org.id });
  expect(installation.status).toBe(201);
  const space = await newSpace(admin(), org.id, { title: `Space of ${name}` });
  if (enable) {
    const enabled = await admin().patch(`/v1/integrations/${name}/installations/${installation.body.id}/spaces/${space.id}`, {
      configuration: {},
    });
    expect(enabled.status).toBe(200);
  }
  return { name, installationId: installation.body.id as string, spaceId: space.id as string };
}

const documentContext = (spaceId: string) => ({ type: 'document', spaceId, editable: false, theme: 'light' });

describe('POST /v1/integrations/{integrationName}/render', () => {
  it("answers the script's ContentKit output for a block in a space's document, with its cache and state", async () => {
    const { name, installationId, spaceId } = await installed();
    const res = await admin().post(`/v1/integrations/${name}/render`, {
      componentId: 'greeting',
      props: { name: 'reader' },
      context: documentContext(spaceId),
    });
    expect([res.status, res.body?.error]).toEqual([200, undefined]);
    expectMatchesGitBook('renderIntegrationUIWithPost', res.body);
    expect(res.headers['cache-control']).toBe('max-age=60');
    expect(res.body).toEqual({
      type: 'element',
      props: { name: 'reader' },
      state: { count: 0 },
      element: {
        type: 'block',
        children: [
          { type: 'text', children: 'Hello reader #0' },
          { type: 'markdown', content: `${installationId} | ${spaceId} | the-secret | document` },
        ],
      },
    });
    // An action, with the state the renderer holds.
    const acted = await admin().post(`/v1/integrations/${name}/render`, {
      componentId: 'greeting',
      props: { name: 'reader' },
      state: { count: 4 },
      action: { action: 'add' },
      context: documentContext(spaceId),
    });
    expect(acted.body.state).toEqual({ count: 5 });
    // GitBook's client, both forms.
    const viaClient = await gitbook.integrations.renderIntegrationUiWithPost(name, {
      componentId: 'greeting',
      props: { name: 'client' },
      context: { type: 'document', spaceId, editable: true, theme: 'dark' },
    });
    expect(viaClient.data.type).toBe('element');
    expect(viaClient.data.element.children[0]).toEqual({ type: 'text', children: 'Hello client #0' });
    const request = LZString.compressToEncodedURIComponent(
      JSON.stringify({ componentId: 'greeting', props: { name: 'get' }, context: documentContext(spaceId) }),
    );
    const viaGet = await gitbook.integrations.renderIntegrationUiWithGet(name, { request });
    expectMatchesGitBook('renderIntegrationUIWithGet', viaGet.data);
    expect(viaGet.data.element.children[0]).toEqual({ type: 'text', children: 'Hello get #0' });
  });

  it("renders for a published site's visitor reading the space, and for the organization's installation configuration", async () => {
    const { name, installationId, spaceId } = await installed();
    const site = (await admin().post(`/v1/orgs/${org.id}/sites`, { title: 'Blocks', visibility: 'public', spaces: [spaceId] })).body;
    const published = (await admin().post(`/v1/orgs/${org.id}/sites/${site.id}/publish`)).body;
    const lookup = await admin().post('/v1/urls/published', { url: published.urls.published });
    const visitor = client(t.app, lookup.body.apiToken);
    const seen = await visitor.post(`/v1/integrations/${name}/render`, {
      componentId: 'greeting',
      props: { name: 'visitor' },
      context: documentContext(spaceId),
    });
    expect([seen.status, seen.body?.element?.children?.[0]]).toEqual([200, { type: 'text', children: 'Hello visitor #0' }]);
    const configuration = await admin().post(`/v1/integrations/${name}/render`, {
      componentId: 'greeting',
      props: { name: 'admin' },
      context: { type: 'configuration_account', organizationId: org.id, theme: 'light' },
    });
    expect(configuration.status).toBe(200);
    expect(configuration.body.element.children[1].content).toBe(`${installationId} | none | the-secret | configuration_account`);
  });

  it("refuses what the caller cannot see, contexts it does not serve and bad requests, in the API's error shape", async () => {
    const { name, spaceId } = await installed();
    const notEnabled = await installed(false);
    const render = (api: typeof admin extends () => infer A ? A : never, body: object, integration = name) =>
      api.post(`/v1/integrations/${integration}/render`, { componentId: 'greeting', props: { name: 'x' }, ...body });
    // The attacker's requests: a space of another organization, a space the integration is not enabled on, a
    // member of another organization, a reader asking for an admin's configuration, a site visitor of another site.
    const elsewhere = await newSpace(other.members.admin.api, other.id, { title: 'Theirs' });
    expect((await render(admin(), { context: documentContext(elsewhere.id) })).status).toBe(404);
    expect((await render(admin(), { context: documentContext(notEnabled.spaceId) }, notEnabled.name)).status).toBe(404);
    expect((await render(other.members.admin.api, { context: documentContext(spaceId) })).status).toBe(404);
    expect(
      (await render(org.members.read.api, { context: { type: 'configuration_account', organizationId: org.id, theme: 'light' } })).status,
    ).toBe(403);
    expect(
      (await render(other.members.admin.api, { context: { type: 'configuration_account', organizationId: org.id, theme: 'light' } }))
        .status,
    ).toBe(404);
    expect((await render(org.members.read.api, { context: { type: 'configuration_space', spaceId, theme: 'light' } })).status).toBe(403);
    const unrelated = await newSpace(admin(), org.id, { title: 'Unrelated' });
    const otherSite = (await admin().post(`/v1/orgs/${org.id}/sites`, { title: 'Other', visibility: 'public', spaces: [unrelated.id] }))
      .body;
    const otherPublished = (await admin().post(`/v1/orgs/${org.id}/sites/${otherSite.id}/publish`)).body;
    const stranger = client(t.app, (await admin().post('/v1/urls/published', { url: otherPublished.urls.published })).body.apiToken);
    expect((await render(stranger, { context: documentContext(spaceId) })).status).toBe(404);
    expect(
      (
        await client(t.app).post(`/v1/integrations/${name}/render`, {
          componentId: 'greeting',
          props: {},
          context: documentContext(spaceId),
        })
      ).status,
    ).toBe(401);
    // Unknown integration, unknown component (the script's own 404), a context not served, bad bodies.
    expect((await render(admin(), { context: documentContext(spaceId) }, 'no-such-integration')).status).toBe(404);
    const unknown = await render(admin(), { componentId: 'nope', context: documentContext(spaceId) });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.message).toMatch(/refused to render: Component nope not found/);
    expect400(await render(admin(), { context: { type: 'configuration_contentsource', theme: 'light' } }), /configuration_contentsource/);
    expect((await render(admin(), { context: { type: 'configuration_site', siteId: 'x', theme: 'light' } })).status).toBe(404);
    expect400(await render(admin(), { context: { type: 'configuration_site', theme: 'light' } }), /siteId/);
    expect400(await render(admin(), { context: { type: 'document', theme: 'light', editable: false } }), /spaceId/);
    expect400(await render(admin(), { context: { type: 'elsewhere', spaceId, theme: 'light' } }), /context/);
    expect400(await admin().post(`/v1/integrations/${name}/render`, { props: {}, context: documentContext(spaceId) }), /componentId/);
    expect400(await admin().get(`/v1/integrations/${name}/render?request=not-compressed`), /request/);
    const wrongShape = LZString.compressToEncodedURIComponent(JSON.stringify({ componentId: 'greeting' }));
    expect400(await admin().get(`/v1/integrations/${name}/render?request=${wrongShape}`), /request/);
    try {
      await gitbook.integrations.renderIntegrationUiWithPost(name, {
        componentId: 'greeting',
        props: {},
        context: { type: 'document', spaceId: elsewhere.id, editable: false, theme: 'light' },
      });
      throw new Error('expected a refusal');
    } catch (error) {
      expect(error).toBeInstanceOf(GitBookAPIError);
      expect((error as GitBookAPIError).code).toBe(404);
    }
  });

  it('answers 502 when the script throws or runs past its limits, and the next render still works', async () => {
    const { name, spaceId } = await installed();
    const failed = await admin().post(`/v1/integrations/${name}/render`, {
      componentId: 'greeting',
      props: { fail: true },
      context: documentContext(spaceId),
    });
    expect(failed.status).toBe(502);
    expect(failed.body.error.message).toMatch(/could not render/);
    const looped = await admin().post(`/v1/integrations/${name}/render`, {
      componentId: 'greeting',
      props: { loop: true },
      context: documentContext(spaceId),
    });
    expect(looped.status).toBe(502);
    expect(looped.body.error.message).toMatch(/could not render/);
    const fine = await admin().post(`/v1/integrations/${name}/render`, {
      componentId: 'greeting',
      props: { name: 'after' },
      context: documentContext(spaceId),
    });
    expect([fine.status, fine.body.element?.children?.[0]?.children]).toEqual([200, 'Hello after #0']);
  }, 60_000);
});

/** A request as any HTTP client sends it, headers and body as given. */
async function raw(method: 'GET' | 'POST' | 'PUT', url: string, headers: Record<string, string> = {}, payload?: string) {
  const res = await t.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload }) });
  let body: any = res.body;
  try {
    body = JSON.parse(res.body);
  } catch {
    // not JSON: the text
  }
  return { status: res.statusCode, headers: res.headers, body };
}

describe("an integration's public endpoints", () => {
  it("dispatch any request under them as a fetch event, with the installation's environment, and answer what the script answers", async () => {
    const { name, installationId } = await installed();
    const integration = (await admin().get(`/v1/integrations/${name}`)).body;
    const installation = (await admin().get(`/v1/integrations/${name}/installations/${installationId}`)).body;
    expect(installation.urls.publicEndpoint).toBe(`http://docs.test/v1/integrations/${name}/installations/${installationId}/integration`);
    const path = `/v1/integrations/${name}/installations/${installationId}/integration/webhook?from=slack`;
    // No token needed; a caller's credentials never reach the script.
    const res = await raw(
      'POST',
      path,
      {
        authorization: `Bearer ${org.members.admin.token}`,
        'content-type': 'application/json',
        'x-signature': 'v0=abc',
        cookie: 'session=secret',
      },
      JSON.stringify({ hello: 'world' }),
    );
    expect(res.status).toBe(201);
    expect(res.headers['content-security-policy']).toBe('sandbox allow-scripts');
    expect(res.body).toEqual({
      method: 'POST',
      url: `http://docs.test${path}`,
      body: JSON.stringify({ hello: 'world' }),
      signature: 'v0=abc',
      authorization: null,
      cookie: null,
      installation: installationId,
      hasToken: true,
      secret: 'the-secret',
    });
    const anonymous = await raw('PUT', path.replace('webhook', 'raw'), { 'content-type': 'text/plain' }, 'plain body');
    expect([anonymous.status, anonymous.body.method, anonymous.body.body]).toEqual([201, 'PUT', 'plain body']);
    // The integration's own endpoint: no installation, no token.
    expect(integration.urls.publicEndpoint).toBe(`http://docs.test/v1/integrations/${name}/integration`);
    const own = await raw('GET', `/v1/integrations/${name}/integration`);
    expect([own.status, own.body.installation, own.body.hasToken, own.body.method]).toEqual([201, null, false, 'GET']);
  });

  it('keep the script from setting cookies or running script under this origin, and answer 404 or 502 in the error shape', async () => {
    const { name, installationId } = await installed();
    const base = `/v1/integrations/${name}/installations/${installationId}/integration`;
    const html = await raw('GET', `${base}/cookie`);
    expect(html.status).toBe(200);
    expect(html.headers['set-cookie']).toBeUndefined();
    expect(html.headers['content-security-policy']).toBe('sandbox allow-scripts');
    expect(html.headers['x-content-type-options']).toBe('nosniff');
    // An unknown integration or installation, another integration's installation, a paused installation.
    const second = await installed();
    expect((await raw('GET', `/v1/integrations/no-such-integration/integration`)).status).toBe(404);
    expect((await raw('GET', `/v1/integrations/${name}/installations/nope/integration`)).status).toBe(404);
    expect((await raw('GET', `/v1/integrations/${name}/installations/${second.installationId}/integration`)).status).toBe(404);
    // Paused (GitBook pauses an installation itself; no operation of the API does).
    await sql(forkEm(t.orm), `update integration_installation set status = 'paused' where id = ?`, [installationId]);
    expect((await raw('GET', `${base}/echo`)).body).toEqual({ error: { code: 404, message: 'Integration installation not found' } });
    // A script that throws answers its runtime's 500, passed on as its answer; one stopped by its limits is a 502, and the service goes on.
    const failed = await raw('GET', `/v1/integrations/${second.name}/integration/fail`);
    expect([failed.status, failed.headers['content-security-policy']]).toEqual([500, 'sandbox allow-scripts']);
    const looped = await raw('GET', `/v1/integrations/${second.name}/integration/loop`);
    expect(looped.status).toBe(502);
    expect(looped.body.error.message).toMatch(/could not answer/);
    expect((await raw('GET', `/v1/integrations/${second.name}/integration/echo`)).status).toBe(201);
  }, 60_000);

  it("answer at most INTEGRATION_ENDPOINT_CONCURRENCY requests of one integration at once, and 429 past it, leaving the others' alone", async () => {
    const { name, installationId } = await installed();
    const second = await installed(false);
    // Warm: the first request of an integration starts its instance.
    expect((await raw('GET', `/v1/integrations/${name}/integration/echo`)).status).toBe(201);
    expect((await raw('GET', `/v1/integrations/${second.name}/integration/echo`)).status).toBe(201);
    // Three at once on its endpoints (the integration's and an installation's share its limit of 2).
    const slow = await Promise.all([
      raw('GET', `/v1/integrations/${name}/integration/slow`),
      raw('POST', `/v1/integrations/${name}/installations/${installationId}/integration/slow`, { 'content-type': 'text/plain' }, 'x'),
      raw('GET', `/v1/integrations/${name}/integration/slow`),
      // Another integration, at the same time: its own limit.
      raw('GET', `/v1/integrations/${second.name}/integration/slow`),
    ]);
    const own = slow.slice(0, 3);
    expect(own.map((r) => r.status).sort()).toEqual([201, 201, 429]);
    const busy = own.find((r) => r.status === 429)!;
    expect(busy.headers['retry-after']).toBe('1');
    expect(busy.body).toEqual({ error: { code: 429, message: `The integration ${name} is answering 2 requests already; retry in 1 s` } });
    expect(slow[3].status).toBe(201);
    // Once they are answered, it answers again.
    expect((await raw('GET', `/v1/integrations/${name}/integration/echo`)).status).toBe(201);
  }, 60_000);
});

describe("integrations' scripts in a site's pages", () => {
  it("list the script of each installation on the site that may inject one, and serve it from the installation's script", async () => {
    const name = `script-${newId(8).toLowerCase()}`;
    const published = await admin().post(`/v1/integrations/${name}`, {
      title: 'Script integration',
      description: 'Tracks pages',
      script,
      organization: org.id,
      visibility: 'private',
      scopes: ['site:script:inject', 'site:script:cookies'],
      contentSecurityPolicy: { 'script-src': 'https://tracker.example.com' },
      target: 'site',
    });
    expect([published.status, published.body?.error]).toEqual([200, undefined]);
    const installation = (await admin().post(`/v1/integrations/${name}/installations`, { organization: org.id })).body;
    const space = await newSpace(admin(), org.id, { title: 'Tracked' });
    const site = (await admin().post(`/v1/orgs/${org.id}/sites`, { title: 'Tracked', visibility: 'public', spaces: [space.id] })).body;
    const untracked = (await admin().post(`/v1/orgs/${org.id}/sites`, { title: 'Untracked', visibility: 'public', spaces: [space.id] }))
      .body;
    const listed = async (siteId = site.id) => (await admin().get(`/v1/orgs/${org.id}/sites/${siteId}/integration-scripts`)).body;
    expect(await listed()).toEqual([]);
    const enabled = await admin().post(`/v1/integrations/${name}/installations/${installation.id}/sites`, { siteId: site.id });
    expect([enabled.status, enabled.body?.error]).toEqual([201, undefined]);
    const configured = await admin().patch(`/v1/integrations/${name}/installations/${installation.id}/sites/${site.id}`, {
      configuration: { trackingId: 'UA-1' },
    });
    expect([configured.status, configured.body?.error]).toEqual([200, undefined]);
    const scriptUrl = `http://docs.test/v1/integrations/${name}/installations/${installation.id}/sites/${site.id}/script.js`;
    const scripts = await admin().get(`/v1/orgs/${org.id}/sites/${site.id}/integration-scripts`);
    expect(scripts.status).toBe(200);
    expectMatchesGitBook('listSiteIntegrationScripts', scripts.body);
    expect(scripts.body).toEqual([{ script: scriptUrl, cookies: true, contentSecurityPolicy: 'script-src https://tracker.example.com' }]);
    expect(await listed(untracked.id)).toEqual([]);
    // The published site answers them to its readers.
    await admin().post(`/v1/orgs/${org.id}/sites/${site.id}/publish`);
    const lookup = await admin().post('/v1/urls/published', {
      url: (await admin().get(`/v1/orgs/${org.id}/sites/${site.id}`)).body.urls.published,
    });
    const seen = await client(t.app, lookup.body.apiToken).get(`/v1/orgs/${org.id}/sites/${site.id}/published`);
    expectMatchesGitBook('getPublishedContentSite', seen.body);
    expect(seen.body.scripts).toEqual(scripts.body);
    // The script itself, as a visitor's browser loads it.
    const served = await raw('GET', new URL(scriptUrl).pathname);
    expect([served.status, served.headers['content-type']]).toEqual([200, 'application/javascript']);
    expect(served.body).toBe(`window.tracked = ${JSON.stringify({ site: site.id, id: 'UA-1' })};`);
    // The attacker's requests: the script of another site, of an installation not on the site, of an unknown integration.
    expect((await raw('GET', `/v1/integrations/${name}/installations/${installation.id}/sites/${untracked.id}/script.js`)).status).toBe(
      404,
    );
    const other = await installed();
    expect(
      (await raw('GET', `/v1/integrations/${other.name}/installations/${other.installationId}/sites/${site.id}/script.js`)).status,
    ).toBe(404);
    expect((await raw('GET', `/v1/integrations/nope/installations/${installation.id}/sites/${site.id}/script.js`)).status).toBe(404);
    // Disabled on the site, it is no longer listed nor served.
    expect((await admin().delete(`/v1/integrations/${name}/installations/${installation.id}/sites/${site.id}`)).status).toBeLessThan(300);
    expect(await listed()).toEqual([]);
    expect((await raw('GET', new URL(scriptUrl).pathname)).status).toBe(404);
  }, 60_000);
});

describe('visitor authentication through an integration', () => {
  /**
   * What GitBook's va-* integrations do once the identity provider has answered (va-auth0's
   * `/visitor-auth/response`): on the site installation's public endpoint, sign a visitor token
   * with `signingSecrets.siteInstallation` (HS256, as @tsndr/cloudflare-worker-jwt signs) and send
   * the visitor back to the site with it.
   */
  const VA_SOURCE = `
import { createIntegration } from '@gitbook/runtime';
const b64 = (bytes) => btoa(String.fromCharCode(...new Uint8Array(bytes))).replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '');
const text = (value) => b64(new TextEncoder().encode(JSON.stringify(value)));
export default createIntegration({
  fetch_visitor_authentication: async (event, context) => {
    const callback = context.environment.siteInstallation.urls.publicEndpoint + '/visitor-auth/response';
    return Response.redirect('https://idp.example.com/authorize?redirect_uri=' + encodeURIComponent(callback) + '&state=' + encodeURIComponent(event.location ?? ''), 302);
  },
  fetch: async (request, context) => {
    const url = new URL(request.url);
    const env = context.environment;
    if (url.pathname.endsWith('/secrets')) return Response.json(env.signingSecrets);
    if (!url.pathname.endsWith('/visitor-auth/response')) return new Response('not found', { status: 404 });
    if (!env.siteInstallation) return new Response('Error: no site installation', { status: 400 });
    const unsigned = text({ alg: 'HS256', typ: 'JWT' }) + '.' + text({ plan: 'pro', exp: Math.floor(Date.now() / 1000) + 3600 });
    const key = await crypto.subtle.importKey('raw', new TextEncoder().encode(env.signingSecrets.siteInstallation), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    const token = unsigned + '.' + b64(await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(unsigned)));
    return Response.redirect(url.searchParams.get('state') + '?jwt_token=' + token, 302);
  },
});
`;

  async function publishedOn(site: { id: string }, scopes: string[]) {
    const name = `va-${newId(8).toLowerCase()}`;
    const published = await admin().post(`/v1/integrations/${name}`, {
      title: 'Visitor auth',
      description: 'Signs visitors in',
      script: await bundleIntegration(VA_SOURCE),
      organization: org.id,
      visibility: 'private',
      scopes,
      target: 'site',
    });
    expect([published.status, published.body?.error]).toEqual([200, undefined]);
    const installation = (await admin().post(`/v1/integrations/${name}/installations`, { organization: org.id })).body;
    const enabled = await admin().post(`/v1/integrations/${name}/installations/${installation.id}/sites`, { siteId: site.id });
    expect([enabled.status, enabled.body?.error]).toEqual([201, undefined]);
    return { name, installationId: installation.id as string, endpoint: enabled.body.urls.publicEndpoint as string };
  }

  it("signs visitors in with the site's key through the site installation's endpoint, and gives that key to no other integration", async () => {
    const space = await newSpace(admin(), org.id, { title: 'Behind a login' });
    const site = (
      await admin().post(`/v1/orgs/${org.id}/sites`, { title: 'Behind a login', visibility: 'visitor-auth', spaces: [space.id] })
    ).body;
    expect((await admin().post(`/v1/orgs/${org.id}/sites/${site.id}/publish`)).status).toBe(200);
    const publishedUrl = (await admin().get(`/v1/orgs/${org.id}/sites/${site.id}`)).body.urls.published;
    const va = await publishedOn(site, ['site:visitor:auth', 'site:metadata:read']);
    expect(va.endpoint).toBe(`http://docs.test/v1/integrations/${va.name}/installations/${va.installationId}/sites/${site.id}/integration`);

    // Without a token the site does not open: the renderer sends the visitor to the integration,
    // which sends them to its identity provider, with the page they asked for.
    expect((await admin().post('/v1/urls/published', { url: publishedUrl })).status).toBe(404);
    const toLogin = await admin().post('/v1/urls/published', { url: `${publishedUrl}/guide`, redirectOnError: true });
    expect(toLogin.status).toBe(200);
    const entry = new URL(toLogin.body.redirect);
    expect(entry.pathname).toBe(`/v1/integrations/${va.name}/installations/${va.installationId}/sites/${site.id}/visitor-auth`);
    expect(entry.searchParams.get('location')).toBe('/guide');
    const login = await raw('GET', entry.pathname + entry.search);
    expect(login.status).toBe(302);
    const idp = new URL(String(login.headers.location));
    expect([idp.origin, idp.searchParams.get('state'), idp.searchParams.get('redirect_uri')]).toEqual([
      'https://idp.example.com',
      '/guide',
      `${va.endpoint}/visitor-auth/response`,
    ]);
    // With the token the integration signs once the provider has answered, it does.
    const callback = await raw('GET', `${new URL(va.endpoint).pathname}/visitor-auth/response?state=${encodeURIComponent(publishedUrl)}`);
    expect(callback.status).toBe(302);
    const back = new URL(String(callback.headers.location));
    expect(`${back.origin}${back.pathname}`).toBe(publishedUrl);
    const opened = await admin().post('/v1/urls/published', { url: back.toString() });
    expect(opened.status).toBe(200);
    expect(opened.body.apiToken).toEqual(expect.any(String));

    // The secrets: stable per integration and installation, the site's key only with `site:visitor:auth`.
    const secretsOf = async (endpoint: string) => (await raw('GET', `${new URL(endpoint).pathname}/secrets`)).body;
    const first = await secretsOf(va.endpoint);
    expect(await secretsOf(va.endpoint)).toEqual(first);
    expect(first).toEqual({
      integration: expect.stringMatching(/^[\w-]{43}$/),
      installation: expect.stringMatching(/^[\w-]{43}$/),
      siteInstallation: (await admin().get(`/v1/orgs/${org.id}/sites/${site.id}/publishing/auth`)).body.privateKey,
    });
    const other = await publishedOn(site, ['site:metadata:read']);
    const others = await secretsOf(other.endpoint);
    expect(others.siteInstallation).toEqual(expect.stringMatching(/^[\w-]{43}$/));
    expect(others.siteInstallation).not.toBe(first.siteInstallation);
    expect(others.integration).not.toBe(first.integration);
    // Its token is refused by the site: an integration without the scope cannot sign visitors in.
    const forged = await raw('GET', `${new URL(other.endpoint).pathname}/visitor-auth/response?state=${encodeURIComponent(publishedUrl)}`);
    expect((await admin().post('/v1/urls/published', { url: String(forged.headers.location) })).status).toBe(404);
    // Only the installation signing the site's visitors in has an entry for them.
    expect(
      (await raw('GET', `/v1/integrations/${other.name}/installations/${other.installationId}/sites/${site.id}/visitor-auth`)).status,
    ).toBe(404);
    // A site installation's endpoint answers only for a site the installation is enabled on.
    const elsewhere = (await admin().post(`/v1/orgs/${org.id}/sites`, { title: 'Elsewhere', visibility: 'public', spaces: [space.id] }))
      .body;
    expect(
      (await raw('GET', `/v1/integrations/${va.name}/installations/${va.installationId}/sites/${elsewhere.id}/integration/secrets`)).status,
    ).toBe(404);
  }, 60_000);
});

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { GitBookAPI } from '@gitbook/api';
import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { freePort } from '../../src/lib/infra.ts';
import { edit, merge, newChangeRequest, newSpace } from '../support/fixtures.ts';
import { startGitServer, type GitServer } from '../support/git-server.ts';
import { expectMatchesGitBook } from '../support/gitbook-openapi.ts';
import { cliPublishRequest, type GitBookIntegrationName } from '../support/gitbook-integrations.ts';
import { createTestOrg, eventually, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';

/**
 * GitBook's own integrations from GitbookIO/integrations, unchanged (test/fixtures/integrations/,
 * built as `gitbook publish` builds them; scripts/build-integration-fixtures.ts rebuilds them), each
 * published with the request GitBook's CLI sends, through GitBook's client:
 * - Mermaid: a ```mermaid code block imported by Git Sync is its block in the page's document, the
 *   block renders (its webframe), the webframe's page is served by its public content endpoint, and
 *   Git Sync writes the code block back as it was.
 * - Webhook: configured through its own configuration component (its action saves the
 *   configuration with its installation's token), then a merge reaches a local receiver as a signed
 *   delivery, retried by the script after the receiver's 500; on a site, the renderer's page views
 *   and ratings reach it as `site_view` and `page_feedback`.
 * - Google Analytics: its script is listed for the site and served with the site's measurement ID.
 */
let t: TestApp;
let org: TestOrg;
/** GitBook's client, as its CLI uses it (untyped here, as in the other tests calling its integrations operations). */
let gitbook: any;
let git: GitServer;
let receiver: Server;
let receiverUrl: string;
/** What the receiver heard, and the statuses it answers next (200 once they run out). */
const heard: { headers: Record<string, string | string[] | undefined>; body: string }[] = [];
const statuses: number[] = [];

beforeAll(async () => {
  // The API listens where the scripts' calls to PUBLIC_URL are sent (INTEGRATION_API_UPSTREAM).
  const port = await freePort();
  t = await startTestApp({ INTEGRATION_API_UPSTREAM: `http://127.0.0.1:${port}`, FETCH_ALLOW_HOSTS: '127.0.0.1' });
  await t.app.listen({ host: '127.0.0.1', port });
  org = await createTestOrg(t, 'GitBook integrations org');
  gitbook = new GitBookAPI({ endpoint: `http://127.0.0.1:${port}`, authToken: org.members.admin.token });
  git = await startGitServer();
  receiver = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      heard.push({ headers: request.headers, body });
      const status = statuses.shift() ?? 200;
      response.writeHead(status, { 'content-type': 'text/plain' }).end(status === 200 ? 'ok' : 'try again');
    });
  });
  await new Promise<void>((done) => receiver.listen(0, '127.0.0.1', done));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/gitbook-webhook`;
}, 120_000);

afterAll(async () => {
  await new Promise((done) => receiver?.close(done));
  await git?.close();
  await t?.close();
});

const admin = () => org.members.admin.api;

/** Publishes the integration as `gitbook publish` does, installs it in the organization and answers the installation. */
async function publishAndInstall(name: GitBookIntegrationName): Promise<{ installationId: string; version: number }> {
  const published = await gitbook.integrations.publishIntegration(name, await cliPublishRequest(name, org.id));
  expect(published.status).toBe(200);
  expectMatchesGitBook('publishIntegration', published.data);
  const installed = await admin().post(`/v1/integrations/${name}/installations`, { organization: org.id });
  expect([installed.status, installed.body?.error]).toEqual([201, undefined]);
  return { installationId: installed.body.id, version: published.data.version };
}

async function enableOnSpace(name: string, installationId: string, spaceId: string, configuration: object = {}) {
  const enabled = await admin().patch(`/v1/integrations/${name}/installations/${installationId}/spaces/${spaceId}`, { configuration });
  expect([enabled.status, enabled.body?.error]).toEqual([200, undefined]);
}

const at = (n: number) => new Date(Date.UTC(2026, 5, 1, 0, 0, n)).toISOString();

async function gitInfo(spaceId: string, until: (info: any) => boolean) {
  return eventually(async () => {
    const res = await admin().get(`/v1/spaces/${spaceId}/git/info`);
    return res.status === 200 && until(res.body) ? res.body : undefined;
  }, 90_000);
}

const DIAGRAM = 'graph TD\n  A["Git Sync"] --> B{{Mermaid}}\n  B -->|renders| C[Diagram]';
const README = `# Architecture\n\nHow the parts meet:\n\n\`\`\`mermaid\n${DIAGRAM}\n\`\`\`\n\nAnd some code:\n\n\`\`\`js\nconsole.log('not a diagram');\n\`\`\`\n`;

describe("GitBook's Mermaid integration", () => {
  it('turns a mermaid code block into its block, renders it, serves its webframe and writes it back as a code block', async () => {
    const { installationId, version } = await publishAndInstall('mermaid');
    const integration = (await admin().get('/v1/integrations/mermaid')).body;
    expect(integration.blocks).toEqual([expect.objectContaining({ id: 'diagram', markdown: { codeblock: 'mermaid', body: 'content' } })]);
    expect(integration.previewImages).toHaveLength(1);

    const space = await newSpace(admin(), org.id, { title: 'Diagrams' });
    await enableOnSpace('mermaid', installationId, space.id);
    git.create('diagrams');
    git.commit('diagrams', { 'README.md': README, 'SUMMARY.md': '# Table of contents\n\n* [Architecture](README.md)\n' });
    const imported = await admin().post(`/v1/spaces/${space.id}/git/import`, {
      url: git.url('diagrams'),
      ref: 'refs/heads/main',
      timestamp: at(1),
    });
    expect(imported.status).toBe(204);
    await gitInfo(space.id, (i) => i.status === 'ok' && i.lastOperation === 'import');

    const pages = (await admin().get(`/v1/spaces/${space.id}/content/pages`)).body.pages;
    const pageId = pages[0].id;
    const read = async () => {
      const res = await admin().get(`/v1/spaces/${space.id}/content/page/${pageId}?format=document`);
      expect(res.status).toBe(200);
      return res.body.document.nodes as any[];
    };
    const nodes = await read();
    const block = nodes.find((n) => n.type === 'integration');
    expect(block).toMatchObject({
      object: 'block',
      isVoid: true,
      data: { integration: 'mermaid', block: 'diagram', props: { content: DIAGRAM } },
    });
    expect(nodes.filter((n) => n.type === 'code').map((n) => n.data.syntax)).toEqual(['js']);
    // The revision's document, as GitBook's renderer reads it, holds the same block.
    const revision = (await admin().get(`/v1/spaces/${space.id}`)).body.revision;
    const viaRevision = await admin().get(`/v1/spaces/${space.id}/revisions/${revision}/page/${pageId}/document`);
    expect(viaRevision.body.nodes.find((n: any) => n.type === 'integration')).toEqual(block);

    // The block renders as the renderer asks for it: a webframe on the integration's public content endpoint.
    const rendered = await gitbook.integrations.renderIntegrationUiWithPost('mermaid', {
      componentId: 'diagram',
      props: block.data.props,
      context: { type: 'document', spaceId: space.id, editable: false, theme: 'light' },
    });
    expect(rendered.status).toBe(200);
    expectMatchesGitBook('renderIntegrationUIWithPost', rendered.data);
    const element = (rendered.data as any).element;
    expect(element.type).toBe('block');
    const webframe = element.children[0];
    expect(webframe).toMatchObject({ type: 'webframe', data: { content: { $state: 'content' } } });
    expect((rendered.data as any).state).toEqual({ content: DIAGRAM });
    const frameUrl = new URL(webframe.source.url);
    expect(frameUrl.searchParams.get('v')).toBe(String(version));
    expect(frameUrl.origin).toBe('http://docs.test');
    const frame = await t.app.inject({ method: 'GET', url: frameUrl.pathname + frameUrl.search });
    expect(frame.statusCode).toBe(200);
    expect(frame.headers['content-type']).toBe('text/html');
    expect(frame.body).toContain('mermaid.initialize');
    // Its scripts run, in an opaque origin of their own.
    expect(frame.headers['content-security-policy']).toBe('sandbox allow-scripts');

    // Git Sync writes the page back with its code block as it was.
    git.create('diagrams-out');
    const exported = await admin().post(`/v1/spaces/${space.id}/git/export`, {
      url: git.url('diagrams-out'),
      ref: 'refs/heads/main',
      commitMessage: 'Export',
      timestamp: at(2),
    });
    expect(exported.status).toBe(204);
    await gitInfo(space.id, (i) => i.status === 'ok' && i.lastOperation === 'export');
    expect(git.read('diagrams-out')['README.md'].toString()).toContain(`\`\`\`mermaid\n${DIAGRAM}\n\`\`\``);

    // Without the integration on the space, the page shows a code block again.
    const removed = await admin().delete(`/v1/integrations/mermaid/installations/${installationId}/spaces/${space.id}`);
    expect(removed.status).toBeLessThan(300);
    expect((await read()).filter((n) => n.type === 'code').map((n) => n.data.syntax)).toEqual(['mermaid', 'js']);
  }, 240_000);
});

describe("GitBook's Webhook integration", () => {
  /** Its installation in the organization. */
  let webhook: string;
  beforeAll(async () => {
    webhook = (await publishAndInstall('webhook')).installationId;
  });

  it('saves its configuration through its own component, then delivers a signed event on a merge, retried after a 500', async () => {
    const installationId = webhook;
    const space = await newSpace(admin(), org.id, { title: 'Hooked' });
    await enableOnSpace('webhook', installationId, space.id);

    // Its configuration screen, as GitBook's app shows it to a space admin, and its save action.
    const context = { type: 'configuration_space', spaceId: space.id, theme: 'light' };
    const shown = await gitbook.integrations.renderIntegrationUiWithPost('webhook', {
      componentId: 'config',
      props: { installation: { configuration: {} }, spaceInstallation: { configuration: {} } },
      context,
    });
    expect(shown.status).toBe(200);
    const state = (shown.data as any).state;
    expect(state).toMatchObject({ webhookUrl: '', space_content_updated: false });
    expect(state.secret).toMatch(/^[\w-]{40,}$/);
    const saved = await gitbook.integrations.renderIntegrationUiWithPost('webhook', {
      componentId: 'config',
      props: { installation: { configuration: {} }, spaceInstallation: { configuration: {} } },
      state: { ...state, webhookUrl: receiverUrl, space_content_updated: true },
      action: { action: 'save.config' },
      context,
    });
    expect(saved.status).toBe(200);
    // The script wrote both with its installation's token.
    const installation = (await admin().get(`/v1/integrations/webhook/installations/${installationId}`)).body;
    expect(installation.configuration).toEqual({ webhookUrl: receiverUrl, secret: state.secret });
    const onSpace = (await admin().get(`/v1/integrations/webhook/installations/${installationId}/spaces/${space.id}`)).body;
    expect(onSpace.configuration).toEqual({ space_content_updated: true });

    // A merge: the receiver fails the first delivery, and the script tries again.
    statuses.push(500);
    const start = heard.length;
    const cr = await newChangeRequest(admin(), space.id, 'Hook me');
    await edit(admin(), space.id, cr.id, [{ operation: 'insert_page', title: 'Hooked page', document: { markdown: 'Delivered.\n' } }]);
    await merge(admin(), space.id, cr.id);
    // Deliveries are at least once: a retried activity may deliver an event again, so this space's are counted.
    const ofSpace = () => heard.slice(start).filter((d) => JSON.parse(d.body).spaceId === space.id);
    const deliveries = await eventually(async () => (ofSpace().length >= 2 ? ofSpace() : undefined), 90_000);
    expect(deliveries[0].body).toBe(deliveries[1].body);
    for (const delivery of deliveries) {
      expect(delivery.headers['user-agent']).toBe('GitBook-Webhook');
      const [, timestamp, signature] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(delivery.headers['x-gitbook-signature'])) ?? [];
      expect(signature).toBe(createHmac('sha256', state.secret).update(`${timestamp}.${delivery.body}`).digest('hex'));
    }
    const event = JSON.parse(deliveries[0].body);
    expect(event).toMatchObject({ type: 'space_content_updated', spaceId: space.id, installationId });
    expect(event.revisionId).toBe((await admin().get(`/v1/spaces/${space.id}`)).body.revision);
  }, 240_000);

  it("delivers a site's page views and ratings, as the site's configuration asks, from the renderer's insights events", async () => {
    const installationId = webhook;
    const space = await newSpace(admin(), org.id, { title: 'Read' });
    const site = (await admin().post(`/v1/orgs/${org.id}/sites`, { title: 'Read', visibility: 'public', spaces: [space.id] })).body;
    const enabled = await admin().post(`/v1/integrations/webhook/installations/${installationId}/sites`, { siteId: site.id });
    expect([enabled.status, enabled.body?.error]).toEqual([201, undefined]);

    // Its configuration screen in the site's settings, and its save action.
    const context = { type: 'configuration_site', siteId: site.id, theme: 'light' };
    const props = { installation: { configuration: {} }, siteInstallation: { configuration: {} } };
    const shown = await gitbook.integrations.renderIntegrationUiWithPost('webhook', { componentId: 'config', props, context });
    const state = { ...(shown.data as any).state, webhookUrl: receiverUrl, site_view: true, page_feedback: true };
    const saved = await gitbook.integrations.renderIntegrationUiWithPost('webhook', {
      componentId: 'config',
      props,
      state,
      action: { action: 'save.config' },
      context,
    });
    expect(saved.status).toBe(200);
    const onSite = (await admin().get(`/v1/integrations/webhook/installations/${installationId}/sites/${site.id}`)).body;
    expect(onSite.configuration).toEqual({ site_view: true, page_feedback: true });
    // Another organization's admin may not render it.
    const outsider = await createTestOrg(t, 'Webhook outsider');
    expect(
      (await outsider.members.admin.api.post('/v1/integrations/webhook/render', { componentId: 'config', props, context })).status,
    ).toBe(404);

    // The renderer reports a page view and a rating.
    const start = heard.length;
    const session = {
      visitorId: 'visitor-7',
      sessionId: 's-7',
      cookies: { secret: 'never-forwarded' },
      userAgent: 'Mozilla/5.0',
      language: 'en',
      referrer: null,
    };
    const location = {
      url: 'https://docs.example.com/guide',
      siteSection: null,
      siteSpace: null,
      siteShareKey: null,
      space: space.id,
      revision: null,
      page: 'page-1',
    };
    const tracked = await admin().post(`/v1/orgs/${org.id}/sites/${site.id}/insights/events`, {
      events: [
        { type: 'page_view', session, location },
        { type: 'search_type_query', session, location, query: 'not an integration event' },
        { type: 'page_post_feedback', session, location, feedback: { rating: 'bad' } },
      ],
    });
    expect(tracked.status).toBe(204);
    // This site's deliveries, once both kinds have arrived (at least once each).
    const ofSite = () => heard.slice(start).filter((d) => JSON.parse(d.body).siteId === site.id);
    const kinds = (deliveries: typeof heard) => new Set(deliveries.map((d) => JSON.parse(d.body).type as string));
    const deliveries = await eventually(async () => (kinds(ofSite()).size >= 2 ? ofSite() : undefined), 90_000);
    const events = deliveries.map((d) => JSON.parse(d.body));
    expect([...kinds(deliveries)].sort()).toEqual(['page_feedback', 'site_view']);
    for (const delivery of deliveries) {
      const [, timestamp, signature] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(delivery.headers['x-gitbook-signature'])) ?? [];
      expect(signature).toBe(createHmac('sha256', state.secret).update(`${timestamp}.${delivery.body}`).digest('hex'));
    }
    const view = events.find((e) => e.type === 'site_view');
    expect(view).toMatchObject({
      siteId: site.id,
      installationId,
      pageId: 'page-1',
      url: location.url,
      visitor: { anonymousId: 'visitor-7' },
    });
    // Visitors' cookies and addresses are never kept, so never passed on.
    expect(view.visitor.cookies).toEqual({});
    expect(events.find((e) => e.type === 'page_feedback')).toMatchObject({ feedback: { rating: 'bad' }, siteId: site.id });
  }, 240_000);
});

describe("GitBook's Google Analytics integration", () => {
  it("lists its script for a site it is configured on, and serves it with the site's measurement ID", async () => {
    const { installationId } = await publishAndInstall('googleanalytics');
    const space = await newSpace(admin(), org.id, { title: 'Measured' });
    const site = (await admin().post(`/v1/orgs/${org.id}/sites`, { title: 'Measured', visibility: 'public', spaces: [space.id] })).body;
    const enabled = await admin().post(`/v1/integrations/googleanalytics/installations/${installationId}/sites`, { siteId: site.id });
    expect([enabled.status, enabled.body?.error]).toEqual([201, undefined]);
    // Its manifest requires the measurement ID: the site installation waits for it.
    expect(enabled.body.status).toBe('pending');
    const configured = await admin().patch(`/v1/integrations/googleanalytics/installations/${installationId}/sites/${site.id}`, {
      configuration: { tracking_id: 'G-TEST12345' },
    });
    expect([configured.status, configured.body?.status]).toEqual([200, 'active']);

    const scripts = await admin().get(`/v1/orgs/${org.id}/sites/${site.id}/integration-scripts`);
    expect(scripts.status).toBe(200);
    expectMatchesGitBook('listSiteIntegrationScripts', scripts.body);
    expect(scripts.body).toHaveLength(1);
    expect(scripts.body[0]).toMatchObject({ cookies: true });
    expect(scripts.body[0].contentSecurityPolicy).toContain('https://www.google-analytics.com');
    const url = new URL(scripts.body[0].script);
    const served = await t.app.inject({ method: 'GET', url: url.pathname });
    expect([served.statusCode, served.headers['content-type'], served.headers['cache-control']]).toEqual([
      200,
      'application/javascript',
      'max-age=604800',
    ]);
    expect(served.body).toContain("const id = 'G-TEST12345';");
    expect(served.body).not.toContain('<TO_REPLACE>');
  }, 120_000);
});

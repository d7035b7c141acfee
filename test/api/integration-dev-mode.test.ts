import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { GitBookAPI } from '@gitbook/api';
import type { AddressInfo } from 'node:net';
import { Miniflare } from 'miniflare';
import { newId } from '../../src/domain/ids.ts';
import { COMPATIBILITY_DATE, COMPATIBILITY_FLAGS } from '../../src/lib/integration-sandbox.ts';
import { freePort } from '../../src/lib/infra.ts';
import { newSpace } from '../support/fixtures.ts';
import { createTestOrg, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { bundleIntegration } from '../support/integration-bundle.ts';

/**
 * Development mode (`setIntegrationDevelopmentMode` / `disableIntegrationDevelopmentMode`), as
 * `gitbook dev` uses it: the integrator runs the script in Miniflare on their machine behind a
 * tunnel, and the integration's events go there instead of to its published script: the owner
 * organization's only, or every organization's with `all`. The tunnel is a URL a user gave, so it
 * is reached through the fetch guard (127.0.0.1 is allowed in the suite by FETCH_ALLOW_HOSTS).
 */
let t: TestApp;
let org: TestOrg;
let other: TestOrg;
let gitbook: any;
let local: Miniflare;
let tunnelUrl: string;

/** A block saying where it was drawn. */
const source = (where: string) => `
import { createComponent, createIntegration } from '@gitbook/runtime';
const block = createComponent({
  componentId: 'where',
  render: async (element, context) => ({ type: 'block', children: [{ type: 'text', children: '${where}' }] }),
});
export default createIntegration({ components: [block] });
`;

beforeAll(async () => {
  t = await startTestApp({ INTEGRATION_TIMEOUT: '5s' });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = t.app.server.address() as AddressInfo;
  org = await createTestOrg(t, 'Dev mode org');
  other = await createTestOrg(t, 'Dev mode elsewhere');
  gitbook = new GitBookAPI({ endpoint: `http://127.0.0.1:${port}`, authToken: org.members.admin.token });
  // What `gitbook dev` starts (packages/cli/src/dev.ts): Miniflare on a local port, with the script built in development mode.
  const localPort = await freePort();
  local = new Miniflare({
    script: await bundleIntegration(source('drawn on the integrator machine'), 'development'),
    modules: true,
    compatibilityDate: COMPATIBILITY_DATE,
    compatibilityFlags: COMPATIBILITY_FLAGS,
    host: '127.0.0.1',
    port: localPort,
  });
  await local.ready;
  tunnelUrl = `http://127.0.0.1:${localPort}`;
}, 120_000);

afterAll(async () => {
  await local?.dispose();
  await t?.close();
});

/** A new integration drawing its block with the published script, unlisted so that other organizations may install it. */
async function published(): Promise<string> {
  const name = `dev-${newId(8).toLowerCase()}`;
  const res = await org.members.admin.api.post(`/v1/integrations/${name}`, {
    title: 'Dev integration',
    description: 'Drawn somewhere',
    script: await bundleIntegration(source('drawn by the published script')),
    organization: org.id,
    visibility: 'unlisted',
    scopes: ['space:content:read'],
    blocks: [{ id: 'where', title: 'Where' }],
  });
  expect([res.status, res.body?.error]).toEqual([200, undefined]);
  return name;
}

/** The integration published (unlisted, so other organizations may install it), installed in `by`'s organization and enabled on a space. */
async function installedIn(name: string, by: TestOrg) {
  const installation = await by.members.admin.api.post(`/v1/integrations/${name}/installations`, { organization: by.id });
  expect([installation.status, installation.body?.error]).toEqual([201, undefined]);
  const space = await newSpace(by.members.admin.api, by.id, { title: `Space of ${name}` });
  const enabled = await by.members.admin.api.patch(`/v1/integrations/${name}/installations/${installation.body.id}/spaces/${space.id}`, {
    configuration: {},
  });
  expect(enabled.status).toBe(200);
  return { spaceId: space.id as string, by };
}

/** What the block says for the installation of `on`: rendered as GitBook's renderer asks for it. */
async function drawn(name: string, on: { spaceId: string; by: TestOrg }): Promise<string> {
  const res = await on.by.members.admin.api.post(`/v1/integrations/${name}/render`, {
    componentId: 'where',
    props: {},
    context: { type: 'document', spaceId: on.spaceId, editable: false, theme: 'light' },
  });
  expect([res.status, res.body?.error]).toEqual([200, undefined]);
  return res.body.element.children[0].children;
}

describe('development mode', () => {
  it("sends the owner's events to the tunnel, every organization's with all, and the published script's again once disabled", async () => {
    const name = await published();
    const own = await installedIn(name, org);
    const elsewhere = await installedIn(name, other);
    expect(await drawn(name, own)).toBe('drawn by the published script');

    // As `gitbook dev` calls it, through GitBook's client.
    const set = await gitbook.integrations.setIntegrationDevelopmentMode(name, { tunnelUrl, all: false });
    expect(set.status).toBe(204);
    expect(await drawn(name, own)).toBe('drawn on the integrator machine');
    // Another organization's installation still runs the published script.
    expect(await drawn(name, elsewhere)).toBe('drawn by the published script');

    expect((await gitbook.integrations.setIntegrationDevelopmentMode(name, { tunnelUrl, all: true })).status).toBe(204);
    expect(await drawn(name, elsewhere)).toBe('drawn on the integrator machine');

    // The integration as presented says nothing of the tunnel.
    expect(JSON.stringify((await org.members.admin.api.get(`/v1/integrations/${name}`)).body)).not.toContain(tunnelUrl);

    const disabled = await gitbook.integrations.disableIntegrationDevelopmentMode(name);
    expect(disabled.status).toBe(205);
    expect(await drawn(name, own)).toBe('drawn by the published script');
    expect(await drawn(name, elsewhere)).toBe('drawn by the published script');
  }, 120_000);

  it("is refused to anyone but the owner's admins, to a URL that is not http, and reaches no address the fetch guard refuses", async () => {
    const name = await published();
    const own = await installedIn(name, org);
    // Another organization's admin, and an editor of the owner, would have their tunnel run everyone's events.
    expect((await other.members.admin.api.put(`/v1/integrations/${name}/dev`, { tunnelUrl, all: true })).status).toBe(403);
    expect((await org.members.edit.api.put(`/v1/integrations/${name}/dev`, { tunnelUrl })).status).toBe(403);
    expect((await other.members.admin.api.delete(`/v1/integrations/${name}/dev`)).status).toBe(403);
    expect((await org.members.admin.api.put(`/v1/integrations/no-such-integration/dev`, { tunnelUrl })).status).toBe(404);
    for (const bad of ['file:///etc/passwd', 'not a url', '']) {
      const res = await org.members.admin.api.put(`/v1/integrations/${name}/dev`, { tunnelUrl: bad });
      expect([res.status, res.body.error.code]).toEqual([400, 400]);
    }
    expect(await drawn(name, own)).toBe('drawn by the published script');

    // A tunnel at the cloud's metadata address: every dispatch to it is refused, and says so.
    expect((await org.members.admin.api.put(`/v1/integrations/${name}/dev`, { tunnelUrl: 'http://169.254.169.254/latest' })).status).toBe(
      204,
    );
    const refused = await org.members.admin.api.post(`/v1/integrations/${name}/render`, {
      componentId: 'where',
      props: {},
      context: { type: 'document', spaceId: own.spaceId, editable: false, theme: 'light' },
    });
    expect(refused.status).toBe(502);
    expect(refused.body.error.message).toMatch(/development tunnel of the integration .* could not be reached/);
    expect(refused.body.error.message).toMatch(/169\.254\.169\.254/);
  }, 120_000);
});

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTestOrg, eventually, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';

/**
 * Server-side request forgery: every URL a user gives the service (file insert by URL, content
 * import from every source that fetches, an OpenAPI spec's source URL and the `$ref`s inside it)
 * is refused when it points at loopback, private, link-local or cloud metadata addresses — given
 * directly, reached through a redirect from a host that IS allowed, or through a DNS name that
 * resolves to one. A server listening on every loopback address counts the requests that reach
 * it: the count stays 0. Every refusal is a clear 400 (or a recorded processing failure), never a 5xx.
 *
 * The suite's worker allows 127.0.0.1 (its fixture servers listen there); the in-process API of
 * this file allows only the redirecting server's port, so 127.0.0.1 itself is refused for file inserts.
 */

let t: TestApp;
let org: TestOrg;
let counter: Server;
let redirector: Server;
let hits = 0;
let C = 0; // the counting server's port
let R = 0; // the redirecting server's port (allowed)
const admin = () => org.members.admin.api;

async function listen(server: Server, host: string): Promise<number> {
  await new Promise<void>((resolve) => server.listen({ host, port: 0, ipv6Only: false }, resolve));
  return (server.address() as AddressInfo).port;
}

/** Refused destinations, each given directly. */
const direct = () => [
  `http://localhost:${C}/x.md`,
  `http://[::1]:${C}/x.md`,
  `http://127.0.0.2:${C}/x.md`,
  'http://10.0.0.1/x.md',
  'http://172.16.0.1/x.md',
  'http://172.31.255.254/x.md',
  'http://192.168.1.1/x.md',
  'http://169.254.1.1/x.md',
  'http://169.254.169.254/latest/meta-data/',
  'http://[fe80::1]/x.md',
];
/** The same, reached through a redirect from the allowed host. */
const redirected = () =>
  [`http://localhost:${C}/x.md`, `http://[::1]:${C}/x.md`, 'http://169.254.169.254/latest/meta-data/', 'http://10.0.0.1/x.md'].map(
    (to) => `http://127.0.0.1:${R}/to/${Buffer.from(to).toString('base64url')}`,
  );

beforeAll(async () => {
  counter = createServer((_req, res) => {
    hits++;
    res.writeHead(200, { 'content-type': 'text/markdown' }).end('# Reached\n');
  });
  C = await listen(counter, '::');
  redirector = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname.startsWith('/to/'))
      return void res.writeHead(302, { location: Buffer.from(url.pathname.slice(4), 'base64url').toString() }).end();
    if (url.pathname === '/spec.json') {
      const ref = url.searchParams.get('ref') ?? '';
      const spec = { openapi: '3.1.0', info: { title: 'Refs', version: '1' }, paths: { '/x': { $ref: ref } } };
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(spec));
    }
    res.writeHead(404).end();
  });
  R = await listen(redirector, '127.0.0.1');
  t = await startTestApp({ FETCH_ALLOW_HOSTS: `127.0.0.1:${R}` });
  org = await createTestOrg(t, 'SSRF');
});
afterAll(async () => {
  expect(hits).toBe(0);
  await t?.close();
  await new Promise((r) => counter?.close(r));
  await new Promise((r) => redirector?.close(r));
});

const refusedClearly = (res: { status: number; body: any }, what: string) => {
  expect([what, res.status]).toEqual([what, 400]);
  expect([what, res.body.error.message]).toEqual([what, expect.stringMatching(/ADDRESS_NOT_ALLOWED|not allowed|Refusing/)]);
};

async function newSpace() {
  const res = await admin().post(`/v1/orgs/${org.id}/spaces`, { title: 'Target' });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

describe('file insert by URL in change-request content', () => {
  it('refuses every internal destination, 127.0.0.1 included, directly and through redirects', async () => {
    const spaceId = await newSpace();
    const cr = (await admin().post(`/v1/spaces/${spaceId}/change-requests`, { subject: 'Files' })).body;
    for (const url of [`http://127.0.0.1:${C}/x.png`, ...direct(), ...redirected()]) {
      const res = await admin().post(`/v1/spaces/${spaceId}/change-requests/${cr.id}/content`, {
        changes: [{ operation: 'insert_files', files: [{ name: 'x.png', contentType: 'image/png', url }] }],
      });
      refusedClearly(res, url);
    }
    expect((await admin().get(`/v1/spaces/${spaceId}/change-requests/${cr.id}/content/files`)).body.items).toEqual([]);
    expect(hits).toBe(0);
  });
});

describe('content import', () => {
  it('refuses every internal destination for the markdown source, directly and through redirects', async () => {
    const spaceId = await newSpace();
    for (const url of [...direct(), ...redirected()]) {
      refusedClearly(await admin().post(`/v1/spaces/${spaceId}/content/import`, { source: 'markdown', url }), url);
    }
    expect(hits).toBe(0);
  });

  it('refuses them for every other source that fetches (website, html, docx, zip, git wiki), into a space and a change request', async () => {
    const spaceId = await newSpace();
    const cr = (await admin().post(`/v1/spaces/${spaceId}/change-requests`, { subject: 'Import' })).body;
    const targets = [`http://localhost:${C}/x`, 'http://169.254.169.254/latest/meta-data/', `http://[::1]:${C}/x`, redirected()[0]];
    for (const source of ['website', 'html', 'docx', 'zip', 'github-wiki']) {
      for (const target of targets) {
        const url =
          source === 'github-wiki' && !target.includes('/to/') ? `${target.replace(/\/latest.*|\/x$/, '')}/owner/project/wiki` : target;
        const into =
          source === 'zip' ? `/v1/spaces/${spaceId}/change-requests/${cr.id}/content/import` : `/v1/spaces/${spaceId}/content/import`;
        const res = await admin().post(into, { source, url });
        // A git remote reached through an HTTP redirect: git itself is told not to follow it.
        if (source === 'github-wiki' && url.includes('/to/')) {
          expect([url, res.status]).toEqual([url, 400]);
          continue;
        }
        refusedClearly(res, `${source} ${url}`);
      }
    }
    expect(hits).toBe(0);
  });
});

describe('OpenAPI specs', () => {
  /** Creates a spec; answers the refusal: a 400 at creation or the recorded processing failure. */
  async function outcome(slug: string, url: string): Promise<string> {
    const created = await admin().post(`/v1/orgs/${org.id}/openapi`, { slug, source: { url } });
    expect(created.status).toBeLessThan(500);
    if (created.status === 400) return created.body.error.message;
    expect([url, created.status]).toEqual([url, 201]);
    let last: any;
    const spec = await eventually(async () => {
      last = (await admin().get(`/v1/orgs/${org.id}/openapi/${slug}`)).body;
      return last.processingState === 'complete' && last.lastProcessedAt !== undefined ? last : undefined;
    }, 45_000).catch(() => {
      throw new Error(`${url}: not processed: ${JSON.stringify(last)}`);
    });
    expect([url, spec.lastVersion]).toEqual([url, undefined]);
    return JSON.stringify(spec.lastProcessedErrors ?? spec.lastProcessErrorCode);
  }

  it('refuses a source URL pointing at any internal destination, directly and through redirects', async () => {
    const urls = [...direct().filter((url) => !url.includes('172.31') && !url.includes('169.254.1.1')), ...redirected().slice(0, 3)];
    // In small batches: the suite's one worker processes them next to everything else.
    const messages: string[] = [];
    for (let i = 0; i < urls.length; i += 4) {
      messages.push(...(await Promise.all(urls.slice(i, i + 4).map((url, j) => outcome(`src-${i + j}`, url)))));
    }
    for (const [i, message] of messages.entries())
      expect([urls[i], message]).toEqual([urls[i], expect.stringMatching(/ADDRESS_NOT_ALLOWED|not allowed|Refusing/)]);
    expect(hits).toBe(0);
  }, 85_000);

  it('refuses a $ref of an allowed document pointing at an internal destination', async () => {
    const refs = [
      `http://localhost:${C}/paths.json`,
      `http://[::1]:${C}/paths.json`,
      'http://169.254.169.254/latest/meta-data/',
      redirected()[0],
    ];
    const messages = await Promise.all(
      refs.map((ref, i) => outcome(`ref-${i}`, `http://127.0.0.1:${R}/spec.json?ref=${encodeURIComponent(ref)}`)),
    );
    for (const [i, message] of messages.entries())
      expect([refs[i], message]).toEqual([refs[i], expect.stringMatching(/ADDRESS_NOT_ALLOWED|not allowed|Refusing/)]);
    expect(hits).toBe(0);
  });
});

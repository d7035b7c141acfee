/**
 * Integration scripts in real workerd (through Miniflare): a script built with @gitbook/runtime the
 * way GitBook's CLI builds it, events and fetch events as GitBook's dispatcher sends them, requests
 * to the API and to other hosts, and hostile scripts against each limit.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import {
  createIntegrationSandbox,
  integrationSandboxOptions,
  IntegrationSandboxError,
  type IntegrationSandbox,
  type IntegrationSandboxOptions,
  type IntegrationScript,
} from '../../src/lib/integration-sandbox.ts';
import type { FetchPolicy } from '../../src/lib/guarded-fetch.ts';
import { loadConfig } from '../../src/config.ts';
import { bundleIntegration } from '../support/integration-bundle.ts';

const MIB = 2 ** 20;

const bundle = bundleIntegration;

/** An integration of @gitbook/runtime: answers events with what it was given, fetches and calls the API. */
const RUNTIME_INTEGRATION = `
import { createIntegration } from '@gitbook/runtime';
let seen = [];
export default createIntegration({
  events: {
    space_content_updated: async (event, context) => {
      seen.push({ type: event.type, spaceId: event.spaceId, secret: context.environment.secrets.TOKEN });
    },
  },
  fetch: async (request, context) => {
    const url = new URL(request.url);
    if (url.pathname.endsWith('/seen')) return Response.json(seen);
    if (url.pathname.endsWith('/echo')) {
      return Response.json({
        method: request.method,
        url: request.url,
        header: request.headers.get('x-hello'),
        body: await request.text(),
        secret: context.environment.secrets.TOKEN,
        installation: context.environment.installation?.id ?? null,
      });
    }
    if (url.pathname.endsWith('/api')) {
      // The GitBook API client, with the installation's token, against the environment's apiEndpoint.
      const user = await context.api.user.getAuthenticatedUser();
      return Response.json({ user: user.data });
    }
    if (url.pathname.endsWith('/outbound')) {
      const target = url.searchParams.get('url');
      const response = await fetch(target, { method: 'POST', body: 'ping', headers: { 'x-from': 'script' } });
      return Response.json({ status: response.status, refused: response.headers.get('x-sandbox-refused'), body: await response.text() });
    }
    return new Response('not found', { status: 404 });
  },
});
`;

function plain(body: string): string {
  return `export default { async fetch(request) { ${body} } };`;
}

const environment = (name: string, extra: Record<string, unknown> = {}) => ({
  integration: { name, version: 1 },
  installation: { id: 'inst-1' },
  apiTokens: { integration: 'integration-token', installation: 'installation-token' },
  signingSecrets: { integration: 'signing' },
  secrets: {},
  ...extra,
});

interface Recorder {
  server: Server;
  origin: string;
  requests: { method: string; url: string; headers: IncomingMessage['headers']; body: string }[];
}

async function recorder(
  answer: (req: IncomingMessage) => { status: number; headers?: Record<string, string>; body: string },
): Promise<Recorder> {
  const requests: Recorder['requests'] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const { status, headers, body } = answer(req);
      res.writeHead(status, headers);
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
}

const policy: FetchPolicy = { allowPrivate: false, allowHosts: [], timeoutMs: 5000, maxBytes: MIB, maxRedirects: 5 };

let api: Recorder;
let privateHost: Recorder;
let runtimeCode: string;
let sandbox: IntegrationSandbox;
const logs: string[] = [];

function options(overrides: Partial<IntegrationSandboxOptions> = {}): IntegrationSandboxOptions {
  return {
    timeoutMs: 5000,
    memoryLimitBytes: 256 * MIB,
    maxResponseBytes: 64 * 1024,
    maxInstances: 3,
    fetchPolicy: policy,
    // The API endpoint as scripts know it (PUBLIC_URL), and where this process reaches it.
    api: { endpoint: 'http://docs.localhost:8080', upstream: api.origin },
    onLog: ({ text }) => logs.push(text),
    ...overrides,
  };
}

const script = (name: string, code: string, version = 1, secrets: Record<string, string> = {}): IntegrationScript => ({
  name,
  version,
  code,
  secrets,
});

async function failureOf(promise: Promise<unknown>): Promise<IntegrationSandboxError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(IntegrationSandboxError);
  return error as IntegrationSandboxError;
}

/** A well-behaved integration answers: the check made after each hostile script. */
async function stillServes(box: IntegrationSandbox): Promise<void> {
  const answer = await box.dispatch(script('well-behaved', plain(`return new Response('fine ' + new URL(request.url).pathname);`)), {}, {});
  expect(answer.status).toBe(200);
  expect(answer.body.toString()).toBe('fine /v1');
}

beforeAll(async () => {
  api = await recorder((req) => ({
    status: 200,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ object: 'user', id: 'u1', displayName: 'Ada', authorization: req.headers.authorization }),
  }));
  privateHost = await recorder(() => ({ status: 200, body: 'private data' }));
  runtimeCode = await bundle(RUNTIME_INTEGRATION);
  sandbox = createIntegrationSandbox(options());
});

afterAll(async () => {
  await sandbox?.close();
  api?.server.close();
  privateHost?.server.close();
});

describe('an integration built with @gitbook/runtime', () => {
  const secrets = { TOKEN: 's3cret' };

  it('receives an event with its environment and secrets, and keeps its instance for the next event', async () => {
    const integration = script('runtime-events', runtimeCode, 1, secrets);
    const event = { eventId: 'e1', type: 'space_content_updated', spaceId: 'space-1', revisionId: 'r1' };
    const answer = await sandbox.dispatch(integration, event, environment('runtime-events'));
    expect(answer.status).toBe(200);
    expect(answer.body.toString()).toBe('OK');

    // The same isolate answers the fetch event: it remembers the first event.
    const seen = await sandbox.dispatch(integration, { eventId: 'e2', type: 'fetch' }, environment('runtime-events'), {
      method: 'GET',
      url: 'https://integrations.example/v1/integrations/runtime-events/installations/inst-1/seen',
      headers: {},
    });
    expect(JSON.parse(seen.body.toString())).toEqual([{ type: 'space_content_updated', spaceId: 'space-1', secret: 's3cret' }]);
  });

  it('answers a fetch event with a Response built from its request and body', async () => {
    const answer = await sandbox.dispatch(
      script('runtime-events', runtimeCode, 1, secrets),
      { eventId: 'e3', type: 'fetch' },
      environment('runtime-events'),
      {
        method: 'POST',
        url: 'https://integrations.example/v1/integrations/runtime-events/installations/inst-1/echo?x=1',
        headers: { 'x-hello': 'world', 'content-type': 'text/plain' },
        body: 'hello body',
      },
    );
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toContain('application/json');
    expect(JSON.parse(answer.body.toString())).toEqual({
      method: 'POST',
      url: 'https://integrations.example/v1/integrations/runtime-events/installations/inst-1/echo?x=1',
      header: 'world',
      body: 'hello body',
      secret: 's3cret',
      installation: 'inst-1',
    });
  });

  it('answers a redirect as its answer, without following it (an OAuth callback sending the visitor on)', async () => {
    const code = `export default { async fetch() { return Response.redirect('https://idp.example.com/authorize?state=x', 302); } };`;
    const answer = await sandbox.dispatch(script('redirects', code), { eventId: 'e5', type: 'fetch' }, environment('redirects'));
    expect([answer.status, answer.headers.location]).toEqual([302, 'https://idp.example.com/authorize?state=x']);
  });

  it('answers an event type it does not handle as @gitbook/runtime does (406)', async () => {
    const answer = await sandbox.dispatch(
      script('runtime-events', runtimeCode, 1, secrets),
      { eventId: 'e4', type: 'space_view' },
      environment('runtime-events'),
    );
    expect(answer.status).toBe(406);
    expect(JSON.parse(answer.body.toString())).toEqual({ error: 'Integration does not handle "space_view" events' });
  });

  it("calls the service's API at its endpoint with the installation's token, though the API listens on loopback", async () => {
    const answer = await sandbox.dispatch(
      script('runtime-events', runtimeCode, 1, secrets),
      { eventId: 'e5', type: 'fetch' },
      environment('runtime-events'),
      {
        method: 'GET',
        url: 'https://integrations.example/v1/integrations/runtime-events/installations/inst-1/api',
        headers: {},
      },
    );
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body.toString())).toEqual({
      user: { object: 'user', id: 'u1', displayName: 'Ada', authorization: 'Bearer installation-token' },
    });
    expect(api.requests.at(-1)).toMatchObject({ method: 'GET', url: '/v1/user' });
  });
});

describe("a script's requests go through the fetch guard", () => {
  const hostile = (url: string) =>
    sandbox.dispatch(script('runtime-events', runtimeCode, 1, {}), { eventId: 'x', type: 'fetch' }, environment('runtime-events'), {
      method: 'GET',
      url: `https://integrations.example/v1/outbound?url=${encodeURIComponent(url)}`,
      headers: {},
    });

  it.each([
    ['loopback', () => `${privateHost.origin}/secret`, 'loopback'],
    ['localhost by name', () => `http://localhost:${new URL(privateHost.origin).port}/secret`, 'loopback'],
    ['cloud metadata', () => 'http://169.254.169.254/latest/meta-data/', 'metadata'],
    ['a private network', () => 'http://10.1.2.3/', 'private'],
    ['a non-HTTP scheme', () => 'ftp://example.com/', ''],
  ])('refuses %s', async (_, url, kind) => {
    const before = privateHost.requests.length;
    const answer = await hostile(url());
    if (kind === '') {
      // workerd's fetch throws for other schemes; @gitbook/runtime answers 500.
      expect(answer.status).toBe(500);
    } else {
      expect(answer.status).toBe(200);
      const result = JSON.parse(answer.body.toString()) as { status: number; refused: string | null; body: string };
      expect(result).toMatchObject({ status: 403, refused: 'ADDRESS_NOT_ALLOWED' });
      expect(result.body).toContain(`a ${kind} address`);
    }
    expect(privateHost.requests.length).toBe(before);
  });

  it('follows a redirect only through the guard: a listed host redirecting to a private address is refused at the second hop', async () => {
    const redirector = await recorder(() => ({ status: 302, headers: { location: `${privateHost.origin}/secret` }, body: '' }));
    const box = createIntegrationSandbox(options({ fetchPolicy: { ...policy, allowHosts: [new URL(redirector.origin).host] } }));
    try {
      const answer = await box.dispatch(
        script('runtime-events', runtimeCode, 1, {}),
        { eventId: 'x', type: 'fetch' },
        environment('runtime-events'),
        {
          method: 'GET',
          url: `https://integrations.example/v1/outbound?url=${encodeURIComponent(`${redirector.origin}/go`)}`,
          headers: {},
        },
      );
      const result = JSON.parse(answer.body.toString()) as { status: number; refused: string | null };
      expect(redirector.requests).toHaveLength(1);
      expect(redirector.requests[0]).toMatchObject({ method: 'POST', body: 'ping' });
      expect(result).toMatchObject({ status: 403, refused: 'ADDRESS_NOT_ALLOWED' });
      expect(privateHost.requests).toHaveLength(0);
    } finally {
      await box.close();
      redirector.server.close();
    }
  });

  it('reaches a private host the operator listed', async () => {
    const box = createIntegrationSandbox(options({ fetchPolicy: { ...policy, allowHosts: [new URL(privateHost.origin).host] } }));
    try {
      const answer = await box.dispatch(
        script('runtime-events', runtimeCode, 1, {}),
        { eventId: 'x', type: 'fetch' },
        environment('runtime-events'),
        {
          method: 'GET',
          url: `https://integrations.example/v1/outbound?url=${encodeURIComponent(`${privateHost.origin}/listed`)}`,
          headers: {},
        },
      );
      expect(JSON.parse(answer.body.toString())).toEqual({ status: 200, refused: null, body: 'private data' });
      expect(privateHost.requests.at(-1)).toMatchObject({ method: 'POST', url: '/listed', body: 'ping' });
      expect(privateHost.requests.at(-1)!.headers['x-from']).toBe('script');
    } finally {
      await box.close();
      privateHost.requests.length = 0;
    }
  });

  it('cannot open a raw TCP socket to a private address', async () => {
    const code = `
      import { connect } from 'cloudflare:sockets';
      export default { async fetch() {
        try {
          const socket = connect({ hostname: '127.0.0.1', port: ${new URL(privateHost.origin).port} });
          const writer = socket.writable.getWriter();
          await writer.write(new TextEncoder().encode('GET /socket HTTP/1.0\\r\\n\\r\\n'));
          const { value } = await socket.readable.getReader().read();
          return new Response('connected: ' + new TextDecoder().decode(value));
        } catch (error) {
          return new Response('refused: ' + error.message);
        }
      } };`;
    const answer = await sandbox.dispatch(script('raw-socket', code), {}, {});
    expect(answer.body.toString()).toMatch(/^refused: /);
    expect(privateHost.requests.filter((r) => r.url === '/socket')).toHaveLength(0);
  });
});

describe('hostile scripts', () => {
  it('an endless loop fails its event at the deadline; the instance is stopped and the next events are served', async () => {
    const box = createIntegrationSandbox(options({ timeoutMs: 1500 }));
    try {
      const looping = script('endless', plain(`if (new URL(request.url).searchParams.has('x')) return new Response('no'); for (;;) {}`));
      const error = await failureOf(box.dispatch(looping, {}, {}));
      expect(error.code).toBe('TIMEOUT');
      expect(error.message).toBe('The integration endless did not answer within 1500 ms; its script was stopped');
      expect(box.stats().map((s) => s.integration)).not.toContain('endless');
      await stillServes(box);
      // The same integration gets a new instance for its next event (and loops again).
      expect((await failureOf(box.dispatch(looping, {}, {}))).code).toBe('TIMEOUT');
    } finally {
      await box.close();
    }
  });

  it.each([
    ['the JavaScript heap', 'keep.push(new Array(100000).fill({ n: Math.random() }));'],
    ['array buffers (outside the heap)', 'keep.push(new Uint8Array(8 * 1024 * 1024).fill(1));'],
  ])('unbounded growth of %s fails its event over the memory limit, without taking the host down', async (_, grow) => {
    const box = createIntegrationSandbox(options({ memoryLimitBytes: 160 * MIB, timeoutMs: 60_000 }));
    try {
      const code = `const keep = []; export default { async fetch() { for (;;) { ${grow} } } };`;
      const error = await failureOf(box.dispatch(script('greedy', code), {}, {}));
      expect(error.code).toBe('MEMORY_LIMIT');
      expect(error.message).toMatch(
        /^The integration greedy used more than its memory limit of 160 MiB; its script was stopped(: its resident memory reached \d+ MiB|: .*memory.*)$/,
      );
      await stillServes(box);
      for (const instance of box.stats()) expect(instance.rssBytes).toBeLessThan(160 * MIB);
    } finally {
      await box.close();
    }
  });

  it('cannot reserve more writable memory than the runtime and its limit, even untouched (which resident memory would not show)', async () => {
    const box = createIntegrationSandbox(options({ memoryLimitBytes: 160 * MIB }));
    try {
      const code = plain(`
        const sizes = [64 * 1024 * 1024, 2 * 1024 * 1024 * 1024];
        const out = [];
        for (const size of sizes) { try { out.push(new ArrayBuffer(size).byteLength); } catch (e) { out.push(e.constructor.name + ': ' + e.message); } }
        return Response.json(out);`);
      const answer = await box.dispatch(script('reserving', code), {}, {});
      expect(JSON.parse(answer.body.toString())).toEqual([64 * MIB, 'RangeError: Array buffer allocation failed']);
      await stillServes(box);
    } finally {
      await box.close();
    }
  });

  it('an answer larger than the bound fails its event', async () => {
    const big = script('big-answer', plain(`return new Response('x'.repeat(200 * 1024));`));
    const error = await failureOf(sandbox.dispatch(big, {}, {}));
    expect(error.code).toBe('RESPONSE_TOO_LARGE');
    expect(error.message).toBe(`The integration big-answer answered more than ${64 * 1024} bytes`);
    // Streamed without a length, too.
    const streamed = script(
      'big-stream',
      plain(`const chunk = new Uint8Array(16 * 1024); let n = 0;
        return new Response(new ReadableStream({ pull(c) { if (n++ < 100) c.enqueue(chunk); else c.close(); } }));`),
    );
    expect((await failureOf(sandbox.dispatch(streamed, {}, {}))).code).toBe('RESPONSE_TOO_LARGE');
    await stillServes(sandbox);
  });

  it("cannot read the service's environment, the host's files or start processes", async () => {
    process.env.SANDBOX_CANARY = 'canary-value-of-the-service';
    const box = createIntegrationSandbox(options());
    try {
      const code = `
        const attempt = async (f) => { try { const v = await f(); return { ok: true, value: typeof v === 'string' ? v.slice(0, 200) : v }; } catch (e) { return { ok: false, error: String(e.message).slice(0, 200) }; } };
        export default { async fetch(request, env) {
          return Response.json({
            env: Object.keys(env ?? {}),
            processEnv: await attempt(() => JSON.stringify(process.env)),
            passwd: await attempt(async () => (await import('node:fs')).readFileSync('/etc/passwd', 'utf8')),
            source: await attempt(async () => (await import('node:fs')).readFileSync(${JSON.stringify(fileURLToPath(import.meta.url))}, 'utf8')),
            listing: await attempt(async () => (await import('node:fs')).readdirSync('/')),
            spawn: await attempt(async () => (await import('node:child_process')).execSync('id').toString()),
          });
        } };`;
      const answer = await box.dispatch(script('nosy', code), {}, {});
      expect(answer.status).toBe(200);
      const text = answer.body.toString();
      expect(text).not.toContain('canary-value-of-the-service');
      expect(text).not.toContain('root:');
      expect(text).not.toContain('integration-sandbox.test');
      const result = JSON.parse(text) as Record<string, { ok: boolean; value?: unknown }>;
      expect(result.env).toEqual([]);
      expect(result.passwd.ok).toBe(false);
      expect(result.source.ok).toBe(false);
      expect(result.spawn.ok).toBe(false);
      // workerd's node:fs is a virtual file system of its own (/bundle, /tmp, /dev), not the host's.
      if (result.listing.ok) expect(result.listing.value).not.toContain('etc');
      // The runtime process itself was started with an empty environment.
      const [instance] = box.stats();
      expect(instance.pid).not.toBeNull();
      const runtimeEnv = readFileSync(`/proc/${instance.pid}/environ`, 'utf8').split('\0').filter(Boolean);
      expect(runtimeEnv).toEqual(['TZ=UTC']);
    } finally {
      delete process.env.SANDBOX_CANARY;
      await box.close();
    }
  });

  it('an endless loop in top-level code fails the start of its instance at its deadline', async () => {
    const box = createIntegrationSandbox(options({ startTimeoutMs: 5000 }));
    try {
      const error = await failureOf(
        box.dispatch(script('endless-start', `for (;;) {}\n${plain(`return new Response('never');`)}`), {}, {}),
      );
      expect(error.code).toBe('START_FAILED');
      expect(error.message).toBe('The script of the integration endless-start could not be started: it did not start within 5000 ms');
      expect(box.stats()).toEqual([]);
      await stillServes(box);
    } finally {
      await box.close();
    }
  });

  it('a script that does not load fails its event with the reason', async () => {
    const error = await failureOf(sandbox.dispatch(script('broken', 'export default { fetch( }'), {}, {}));
    expect(error.code).toBe('START_FAILED');
    expect(error.message).toMatch(/^The script of the integration broken could not be started: /);
    await stillServes(sandbox);
  });
});

describe('the configuration', () => {
  it('gives the limits of INTEGRATION_*, the FETCH_* policy and PUBLIC_URL as the API endpoint', () => {
    const config = loadConfig({
      PUBLIC_URL: 'https://docs.example.com/',
      INTEGRATION_TIMEOUT: '2s',
      INTEGRATION_MEMORY_LIMIT: '128MiB',
      INTEGRATION_POOL_SIZE: '3',
      INTEGRATION_API_UPSTREAM: 'http://127.0.0.1:8080',
      FETCH_ALLOW_HOSTS: 'hooks.internal.example',
    });
    expect(integrationSandboxOptions(config)).toEqual({
      timeoutMs: 2000,
      memoryLimitBytes: 128 * MIB,
      maxResponseBytes: 5 * MIB,
      maxInstances: 3,
      fetchPolicy: expect.objectContaining({ allowPrivate: false, allowHosts: ['hooks.internal.example'] }),
      api: { endpoint: 'https://docs.example.com', upstream: 'http://127.0.0.1:8080' },
    });
  });
});

describe('the pool of instances', () => {
  it('keeps one instance per version, stops an integration’s old version and the least recently used beyond its bound', async () => {
    const box = createIntegrationSandbox(options({ maxInstances: 2 }));
    try {
      const counter = (version: number) =>
        plain(`globalThis.n = (globalThis.n ?? 0) + 1; return new Response('v${version} ' + globalThis.n);`);
      const text = async (s: IntegrationScript) => (await box.dispatch(s, {}, {})).body.toString();
      expect(await text(script('a', counter(1), 1))).toBe('v1 1');
      expect(await text(script('a', counter(1), 1))).toBe('v1 2');
      expect(await text(script('a', counter(2), 2))).toBe('v2 1');
      expect(box.stats().map((s) => `${s.integration}@${s.version}`)).toEqual(['a@2']);
      expect(await text(script('b', counter(1), 1))).toBe('v1 1');
      expect(await text(script('a', counter(2), 2))).toBe('v2 2');
      expect(await text(script('c', counter(1), 1))).toBe('v1 1');
      // b was the least recently used: it was stopped, a@2 kept.
      expect(
        box
          .stats()
          .map((s) => `${s.integration}@${s.version}`)
          .sort(),
      ).toEqual(['a@2', 'c@1']);
      expect(await text(script('b', counter(1), 1))).toBe('v1 1');
    } finally {
      await box.close();
    }
  });

  it('runs the events of one version concurrently in one instance', async () => {
    const code = plain(`await new Promise((r) => setTimeout(r, 200)); return new Response(String(globalThis.id ??= Math.random()));`);
    const answers = await Promise.all([1, 2, 3].map(() => sandbox.dispatch(script('concurrent', code), {}, {})));
    expect(new Set(answers.map((a) => a.body.toString())).size).toBe(1);
    expect(sandbox.stats().filter((s) => s.integration === 'concurrent')).toHaveLength(1);
  });

  it('refuses events once closed', async () => {
    const box = createIntegrationSandbox(options());
    await stillServes(box);
    await box.close();
    expect((await failureOf(box.dispatch(script('late', plain(`return new Response('x');`)), {}, {}))).code).toBe('CLOSED');
  });
});

import { afterAll, afterEach, beforeAll, describe, expect, it, jest } from '@jest/globals';
import type { LookupAddress } from 'node:dns';
import * as realDns from 'node:dns/promises';
import diagnosticsChannel from 'node:diagnostics_channel';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Names ending in `.test` resolve through this table instead of the system resolver, so the
 * tests can hand out chosen addresses without any DNS server. Everything else (localhost)
 * resolves for real.
 */
const fakeDns = new Map<string, LookupAddress[] | 'hang' | 'missing'>();
const lookupCalls: string[] = [];
jest.unstable_mockModule('node:dns/promises', () => {
  const lookup = async (hostname: string, options: object) => {
    lookupCalls.push(hostname);
    if (!hostname.endsWith('.test')) return realDns.lookup(hostname, options as { all: true });
    const answer = fakeDns.get(hostname) ?? 'missing';
    if (answer === 'hang') return new Promise<never>(() => {});
    if (answer === 'missing') throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return answer;
  };
  return { ...realDns, lookup, default: { ...realDns, lookup } };
});

const { FetchError, fetchPolicyFromEnv, guardedFetch } = await import('../../src/lib/guarded-fetch.ts');
type FetchPolicy = import('../../src/lib/guarded-fetch.ts').FetchPolicy;
type FetchErrorType = InstanceType<typeof FetchError>;

/** Every connection undici starts, by host name; refusals must leave this empty. */
const connects: string[] = [];
const onConnect = (message: unknown) => {
  const { connectParams } = message as { connectParams: { hostname: string } };
  connects.push(connectParams.hostname);
};
diagnosticsChannel.subscribe('undici:client:beforeConnect', onConnect);

type Handler = (req: IncomingMessage, res: ServerResponse) => void;
interface TestServer {
  server: Server;
  port: number;
  requests: IncomingMessage[];
}
const servers: Server[] = [];

async function startServer(handler: Handler): Promise<TestServer> {
  const requests: IncomingMessage[] = [];
  const server = createServer((req, res) => {
    requests.push(req);
    handler(req, res);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, requests };
}

const KIB = 1024;
let app: TestServer;
let base: string;

/** Routes of the main test server. */
const routes: Record<string, Handler> = {
  '/ok': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'x-test': 'yes' });
    res.end('hello');
  },
  '/echo': (req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ method: req.method, url: req.url, headers: req.headers }));
  },
  '/not-found': (_req, res) => {
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('no such thing');
  },
  '/server-error': (_req, res) => {
    res.writeHead(500);
    res.end();
  },
  '/redirect': (req, res) => {
    const to = new URL(req.url ?? '/', 'http://x').searchParams.get('to') ?? '/ok';
    res.writeHead(302, { location: to });
    res.end();
  },
  '/loop': (_req, res) => {
    res.writeHead(301, { location: '/loop' });
    res.end();
  },
  '/no-location': (_req, res) => {
    res.writeHead(302);
    res.end();
  },
  '/slow-headers': (req, res) => {
    const timer = setTimeout(() => {
      res.writeHead(200);
      res.end('late');
    }, 5000);
    req.socket.on('close', () => clearTimeout(timer));
  },
  '/trickle': (req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    const timer = setInterval(() => res.write('.'), 20);
    req.socket.on('close', () => clearInterval(timer));
  },
  '/huge-declared': (_req, res) => {
    res.writeHead(200, { 'content-length': String(64 * KIB) });
    res.end(Buffer.alloc(64 * KIB, 'a'));
  },
  '/huge-chunked': (req, res) => {
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    let sent = 0;
    const pump = () => {
      while (sent < 4096 * KIB && !res.destroyed) {
        sent += 16 * KIB;
        if (!res.write(Buffer.alloc(16 * KIB, 'b'))) return void res.once('drain', pump);
      }
      res.end();
    };
    req.socket.on('close', () => res.destroy());
    pump();
  },
  '/exact': (_req, res) => {
    res.writeHead(200);
    res.end(Buffer.alloc(1000, 'c'));
  },
};

function policy(overrides: Partial<FetchPolicy> = {}): FetchPolicy {
  return { allowPrivate: false, allowHosts: [], timeoutMs: 5000, maxBytes: 1024 * KIB, maxRedirects: 5, ...overrides };
}

async function failure(promise: Promise<unknown>): Promise<FetchErrorType> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(FetchError);
    return error as FetchErrorType;
  }
  throw new Error('expected the fetch to fail');
}

beforeAll(async () => {
  app = await startServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    (routes[path] ?? routes['/not-found'])(req, res);
  });
  base = `http://127.0.0.1:${app.port}`;
});

afterEach(() => {
  connects.length = 0;
  lookupCalls.length = 0;
  fakeDns.clear();
});

afterAll(async () => {
  diagnosticsChannel.unsubscribe('undici:client:beforeConnect', onConnect);
  await Promise.all(
    servers.map(
      (server) =>
        new Promise<void>((resolve, reject) => {
          if (!server.listening) return resolve();
          server.closeAllConnections();
          server.close((err) => (err ? reject(err) : resolve()));
        }),
    ),
  );
});

describe('guardedFetch: addresses', () => {
  it('refuses loopback by default, before connecting', async () => {
    const error = await failure(guardedFetch(`${base}/ok`, policy()));
    expect(error.code).toBe('ADDRESS_NOT_ALLOWED');
    expect(error.message).toContain('loopback');
    expect(error.url).toBe(`${base}/ok`);
    expect(connects).toEqual([]);
    expect(app.requests.length).toBe(0);
  });

  it('refuses localhost by name after resolving it, before connecting', async () => {
    const error = await failure(guardedFetch(`http://localhost:${app.port}/ok`, policy()));
    expect(error.code).toBe('ADDRESS_NOT_ALLOWED');
    expect(lookupCalls).toEqual(['localhost']);
    expect(connects).toEqual([]);
  });

  it('fetches a host on the allow list', async () => {
    const result = await guardedFetch(`${base}/ok`, policy({ allowHosts: ['127.0.0.1'] }));
    expect(result.status).toBe(200);
    expect(result.body.toString()).toBe('hello');
    expect(result.url).toBe(`${base}/ok`);
    expect(result.contentType).toBe('text/plain; charset=utf-8');
    expect(result.headers['x-test']).toBe('yes');
  });

  it('honours a port on an allow-list entry', async () => {
    await expect(guardedFetch(`${base}/ok`, policy({ allowHosts: [`127.0.0.1:${app.port}`] }))).resolves.toMatchObject({ status: 200 });
    const error = await failure(guardedFetch(`${base}/ok`, policy({ allowHosts: [`127.0.0.1:${app.port === 1 ? 2 : 1}`] })));
    expect(error.code).toBe('ADDRESS_NOT_ALLOWED');
  });

  it('fetches private addresses when they are allowed', async () => {
    const result = await guardedFetch(`${base}/ok`, policy({ allowPrivate: true }));
    expect(result.body.toString()).toBe('hello');
  });

  it.each([
    ['http://10.0.0.1/', 'private'],
    ['http://192.168.1.1:8080/x', 'private'],
    ['http://100.64.0.1/', 'private'],
    ['http://169.254.169.254/latest/meta-data/', 'metadata'],
    ['http://[fd00:ec2::254]/latest/meta-data/', 'metadata'],
    ['http://[::1]/', 'loopback'],
    ['http://[::ffff:127.0.0.1]/', 'loopback'],
    ['http://[fe80::1]/', 'link-local'],
    ['http://[fc00::1]/', 'private'],
    ['http://0.0.0.0/', 'reserved'],
    ['http://0x7f.1/', 'loopback'],
    ['http://2130706433/', 'loopback'],
    ['https://127.0.0.1/', 'loopback'],
  ])('refuses %s (%s) without resolving or connecting', async (url, kind) => {
    const error = await failure(guardedFetch(url, policy()));
    expect(error.code).toBe('ADDRESS_NOT_ALLOWED');
    expect(error.message).toContain(kind);
    expect(lookupCalls).toEqual([]);
    expect(connects).toEqual([]);
  });

  it('keeps metadata endpoints closed when private addresses are allowed', async () => {
    for (const url of ['http://169.254.169.254/', 'http://[::ffff:169.254.169.254]/', 'http://[fd00:ec2::254]/']) {
      const error = await failure(guardedFetch(url, policy({ allowPrivate: true })));
      expect(error.code).toBe('ADDRESS_NOT_ALLOWED');
      expect(error.message).toContain('metadata');
    }
    fakeDns.set('metadata.test', [{ address: '169.254.169.254', family: 4 }]);
    expect((await failure(guardedFetch('http://metadata.test/', policy({ allowPrivate: true })))).code).toBe('ADDRESS_NOT_ALLOWED');
    expect(connects).toEqual([]);
  });

  it('refuses a name when any of its addresses is not public', async () => {
    fakeDns.set('mixed.test', [
      { address: '93.184.216.34', family: 4 },
      { address: '10.1.2.3', family: 4 },
    ]);
    const error = await failure(guardedFetch('https://mixed.test/spec.yaml', policy()));
    expect(error.code).toBe('ADDRESS_NOT_ALLOWED');
    expect(error.message).toContain('10.1.2.3');
    expect(connects).toEqual([]);
  });

  it('connects to the address it checked, not to a fresh resolution', async () => {
    // `pinned.test` exists only in the fake table: the request can only reach the server if the
    // socket uses the address the guard resolved, and the name is resolved exactly once.
    fakeDns.set('pinned.test', [{ address: '127.0.0.1', family: 4 }]);
    const result = await guardedFetch(`http://pinned.test:${app.port}/echo`, policy({ allowHosts: ['pinned.test'] }));
    const seen = JSON.parse(result.body.toString()) as { headers: Record<string, string> };
    expect(seen.headers.host).toBe(`pinned.test:${app.port}`);
    expect(lookupCalls).toEqual(['pinned.test']);
    expect(connects).toEqual(['pinned.test']);
  });

  it('reports names that do not resolve', async () => {
    const error = await failure(guardedFetch('http://nowhere.test/', policy()));
    expect(error.code).toBe('DNS_FAILURE');
    expect(error.message).toContain('ENOTFOUND');
  });

  it('reports a refused connection as a network error', async () => {
    const closed = await startServer(() => {});
    const port = closed.port;
    await new Promise<void>((resolve) => closed.server.close(() => resolve()));
    const error = await failure(guardedFetch(`http://127.0.0.1:${port}/`, policy({ allowPrivate: true })));
    expect(error.code).toBe('NETWORK_ERROR');
    expect(error.message).toMatch(/ECONNREFUSED/);
  });
});

describe('guardedFetch: URLs', () => {
  it.each(['ftp://example.com/file', 'file:///etc/passwd', 'gopher://127.0.0.1/', 'data:text/plain,hi', 'javascript:alert(1)'])(
    'refuses %s',
    async (url) => {
      const error = await failure(guardedFetch(url, policy({ allowPrivate: true })));
      expect(error.code).toBe('PROTOCOL_NOT_ALLOWED');
      expect(connects).toEqual([]);
    },
  );

  it.each(['not a url', '', 'http://', 'http://exa mple.com/', '//example.com/x', 'http://[::1/'])('refuses malformed %j', async (url) => {
    expect((await failure(guardedFetch(url, policy()))).code).toBe('INVALID_URL');
  });
});

describe('guardedFetch: redirects', () => {
  const allowLocalhost = policy({ allowHosts: ['localhost'] });

  it('follows redirects and reports the final URL', async () => {
    const result = await guardedFetch(`${base}/redirect?to=/redirect%3Fto%3D/ok`, policy({ allowHosts: ['127.0.0.1'] }));
    expect(result.body.toString()).toBe('hello');
    expect(result.url).toBe(`${base}/ok`);
  });

  it.each([
    ['127.0.0.2', (port: number) => `http://127.0.0.2:${port}/ok`],
    ['[::1]', (port: number) => `http://[::1]:${port}/ok`],
    ['169.254.169.254', () => 'http://169.254.169.254/latest/meta-data/'],
    ['10.0.0.1', () => 'http://10.0.0.1/'],
  ])('re-checks every hop: an allowed host redirecting to %s is refused', async (_name, target) => {
    const to = target(app.port);
    const error = await failure(guardedFetch(`http://localhost:${app.port}/redirect?to=${encodeURIComponent(to)}`, allowLocalhost));
    expect(error.code).toBe('ADDRESS_NOT_ALLOWED');
    expect(error.url).toBe(to);
    expect(error.message).toContain(to);
    expect(connects).toEqual(['localhost']);
  });

  it('re-checks the protocol of every hop', async () => {
    const error = await failure(
      guardedFetch(`${base}/redirect?to=${encodeURIComponent('file:///etc/passwd')}`, policy({ allowPrivate: true })),
    );
    expect(error.code).toBe('PROTOCOL_NOT_ALLOWED');
  });

  it('re-resolves names on every hop', async () => {
    fakeDns.set('evil.test', [{ address: '127.0.0.1', family: 4 }]);
    const to = `http://evil.test:${app.port}/ok`;
    const error = await failure(guardedFetch(`${base}/redirect?to=${encodeURIComponent(to)}`, policy({ allowHosts: ['127.0.0.1'] })));
    expect(error.code).toBe('ADDRESS_NOT_ALLOWED');
    expect(lookupCalls).toEqual(['evil.test']);
  });

  it('stops a redirect loop', async () => {
    const error = await failure(guardedFetch(`${base}/loop`, policy({ allowPrivate: true, maxRedirects: 3 })));
    expect(error.code).toBe('TOO_MANY_REDIRECTS');
    expect(app.requests.filter((r) => r.url === '/loop').length).toBeGreaterThanOrEqual(4);
  });

  it('follows exactly maxRedirects redirects', async () => {
    const chain = (n: number) => {
      let url = '/ok';
      for (let i = 0; i < n; i++) url = `/redirect?to=${encodeURIComponent(url)}`;
      return `${base}${url}`;
    };
    const twice = policy({ allowPrivate: true, maxRedirects: 2 });
    await expect(guardedFetch(chain(2), twice)).resolves.toMatchObject({ status: 200 });
    expect((await failure(guardedFetch(chain(3), twice))).code).toBe('TOO_MANY_REDIRECTS');
    expect((await failure(guardedFetch(chain(1), policy({ allowPrivate: true, maxRedirects: 0 })))).code).toBe('TOO_MANY_REDIRECTS');
  });

  it('treats a redirect without Location as an HTTP error', async () => {
    const error = await failure(guardedFetch(`${base}/no-location`, policy({ allowPrivate: true })));
    expect(error.code).toBe('HTTP_ERROR');
    expect(error.status).toBe(302);
  });
});

describe('guardedFetch: limits', () => {
  it('times out when headers are slow', async () => {
    const started = Date.now();
    const error = await failure(guardedFetch(`${base}/slow-headers`, policy({ allowPrivate: true, timeoutMs: 200 })));
    expect(error.code).toBe('FETCH_TIMEOUT');
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('times out when the body trickles, however steadily', async () => {
    const started = Date.now();
    const error = await failure(guardedFetch(`${base}/trickle`, policy({ allowPrivate: true, timeoutMs: 300 })));
    expect(error.code).toBe('FETCH_TIMEOUT');
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('counts resolving against the deadline', async () => {
    fakeDns.set('slow-dns.test', 'hang');
    const error = await failure(guardedFetch('http://slow-dns.test/', policy({ timeoutMs: 100 })));
    expect(error.code).toBe('FETCH_TIMEOUT');
  });

  it('refuses a declared Content-Length above the limit', async () => {
    const error = await failure(guardedFetch(`${base}/huge-declared`, policy({ allowPrivate: true, maxBytes: 10 * KIB })));
    expect(error.code).toBe('TOO_LARGE');
    expect(error.message).toContain(String(64 * KIB));
  });

  it('stops reading a body without Content-Length once it passes the limit', async () => {
    const error = await failure(guardedFetch(`${base}/huge-chunked`, policy({ allowPrivate: true, maxBytes: 100 * KIB })));
    expect(error.code).toBe('TOO_LARGE');
  });

  it('accepts a body of exactly the limit', async () => {
    const result = await guardedFetch(`${base}/exact`, policy({ allowPrivate: true, maxBytes: 1000 }));
    expect(result.body.length).toBe(1000);
    expect((await failure(guardedFetch(`${base}/exact`, policy({ allowPrivate: true, maxBytes: 999 })))).code).toBe('TOO_LARGE');
  });
});

describe('guardedFetch: responses and requests', () => {
  it.each([
    ['/not-found', 404],
    ['/server-error', 500],
  ])('reports %s as HTTP_ERROR %i', async (path, status) => {
    const error = await failure(guardedFetch(`${base}${path}`, policy({ allowPrivate: true })));
    expect(error.code).toBe('HTTP_ERROR');
    expect(error.status).toBe(status);
    expect(error.message).toContain(String(status));
  });

  it('sends Accept, User-Agent and extra headers, and supports HEAD', async () => {
    const result = await guardedFetch(`${base}/echo`, policy({ allowPrivate: true, userAgent: 'docs-service/test' }), {
      accept: 'application/yaml',
      headers: { 'X-Extra': 'one' },
    });
    const seen = JSON.parse(result.body.toString()) as { method: string; headers: Record<string, string> };
    expect(seen.method).toBe('GET');
    expect(seen.headers.accept).toBe('application/yaml');
    expect(seen.headers['user-agent']).toBe('docs-service/test');
    expect(seen.headers['x-extra']).toBe('one');
    expect(seen.headers.host).toBe(`127.0.0.1:${app.port}`);

    const head = await guardedFetch(`${base}/echo`, policy({ allowPrivate: true }), { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    expect(app.requests.at(-1)?.method).toBe('HEAD');
  });
});

describe('guardedFetch: credentials in the URL', () => {
  const allow = policy({ allowHosts: ['127.0.0.1', 'localhost'] });
  const basic = (user: string, pass: string) => `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;

  it('sends them as Basic authorization, decoded, and not in the request line', async () => {
    const result = await guardedFetch(`http://al%20ice:s3cr%40t@127.0.0.1:${app.port}/echo`, allow);
    const seen = JSON.parse(result.body.toString()) as { url: string; headers: Record<string, string> };
    expect(seen.headers.authorization).toBe(basic('al ice', 's3cr@t'));
    expect(seen.url).toBe('/echo');
    expect(result.url).toBe(`${base}/echo`);
  });

  it('keeps them on a same-origin redirect and drops them on a cross-origin one', async () => {
    const same = await guardedFetch(`http://u:pw@127.0.0.1:${app.port}/redirect?to=/echo`, allow);
    expect((JSON.parse(same.body.toString()) as { headers: Record<string, string> }).headers.authorization).toBe(basic('u', 'pw'));

    const to = encodeURIComponent(`http://localhost:${app.port}/echo`);
    const cross = await guardedFetch(`http://u:pw@127.0.0.1:${app.port}/redirect?to=${to}`, allow, { headers: { Cookie: 'a=b' } });
    const seen = (JSON.parse(cross.body.toString()) as { headers: Record<string, string> }).headers;
    expect(seen.authorization).toBeUndefined();
    expect(seen.cookie).toBeUndefined();
  });

  it.each([
    ['an HTTP error', (port: number) => `http://user:hunter2@127.0.0.1:${port}/not-found`, allow, 'HTTP_ERROR'],
    ['a refused address', (port: number) => `http://user:hunter2@127.0.0.1:${port}/ok`, policy(), 'ADDRESS_NOT_ALLOWED'],
    ['a refused protocol', () => 'ftp://user:hunter2@example.com/x', policy(), 'PROTOCOL_NOT_ALLOWED'],
    ['a malformed URL', () => 'http://user:hunter2@exa mple.com/', policy(), 'INVALID_URL'],
    ['a timeout', (port: number) => `http://user:hunter2@127.0.0.1:${port}/slow-headers`, { ...allow, timeoutMs: 100 }, 'FETCH_TIMEOUT'],
    [
      'a redirect loop',
      (port: number) => `http://user:hunter2@127.0.0.1:${port}/loop`,
      { ...allow, maxRedirects: 1 },
      'TOO_MANY_REDIRECTS',
    ],
  ] as const)('leaves them out of %s', async (_name, url, p, code) => {
    const error = await failure(guardedFetch(url(app.port), p));
    expect(error.code).toBe(code);
    for (const text of [error.message, error.url, String(error.stack)]) {
      expect(text).not.toContain('hunter2');
      expect(text).not.toContain('user:');
    }
  });
});

describe('fetchPolicyFromEnv', () => {
  it('has safe defaults', () => {
    expect(fetchPolicyFromEnv({})).toEqual({
      allowPrivate: false,
      allowHosts: [],
      timeoutMs: 10_000,
      maxBytes: 10 * 1024 * 1024,
      maxRedirects: 5,
    });
    expect(fetchPolicyFromEnv({ FETCH_ALLOW_PRIVATE: '', FETCH_TIMEOUT: ' ' }).timeoutMs).toBe(10_000);
  });

  it('reads every variable', () => {
    expect(
      fetchPolicyFromEnv({
        FETCH_ALLOW_PRIVATE: 'TRUE',
        FETCH_ALLOW_HOSTS: ' git.internal , *.corp.example:8443,, 10.0.0.5,[::1]:9000,::1 ',
        FETCH_TIMEOUT: '2500',
        FETCH_MAX_BYTES: '2MiB',
        FETCH_MAX_REDIRECTS: '0',
      }),
    ).toEqual({
      allowPrivate: true,
      allowHosts: ['git.internal', '*.corp.example:8443', '10.0.0.5', '[::1]:9000', '::1'],
      timeoutMs: 2500,
      maxBytes: 2 * 1024 * 1024,
      maxRedirects: 0,
    });
    expect(fetchPolicyFromEnv({ FETCH_TIMEOUT: '1m30s' }).timeoutMs).toBe(90_000);
    expect(fetchPolicyFromEnv({ FETCH_TIMEOUT: '750ms' }).timeoutMs).toBe(750);
    expect(fetchPolicyFromEnv({ FETCH_MAX_BYTES: '4096' }).maxBytes).toBe(4096);
    expect(fetchPolicyFromEnv({ FETCH_ALLOW_PRIVATE: 'false' }).allowPrivate).toBe(false);
  });

  it.each([
    ['FETCH_ALLOW_PRIVATE', 'yes please'],
    ['FETCH_ALLOW_HOSTS', 'https://example.com'],
    ['FETCH_ALLOW_HOSTS', 'example.com/path'],
    ['FETCH_TIMEOUT', 'soon'],
    ['FETCH_TIMEOUT', '0'],
    ['FETCH_TIMEOUT', '-5s'],
    ['FETCH_MAX_BYTES', 'lots'],
    ['FETCH_MAX_BYTES', '0'],
    ['FETCH_MAX_BYTES', '5MB'],
    ['FETCH_MAX_REDIRECTS', '-1'],
    ['FETCH_MAX_REDIRECTS', 'many'],
  ])('names %s in the error for %j', (name, value) => {
    expect(() => fetchPolicyFromEnv({ [name]: value })).toThrow(new RegExp(`${name}.*${value.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`));
  });

  it('reports every bad variable at once, without credentials', () => {
    let message = '';
    try {
      fetchPolicyFromEnv({ FETCH_TIMEOUT: 'x', FETCH_MAX_REDIRECTS: 'y', FETCH_ALLOW_HOSTS: 'https://me:pw@host' });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain('FETCH_TIMEOUT');
    expect(message).toContain('FETCH_MAX_REDIRECTS');
    expect(message).toContain('FETCH_ALLOW_HOSTS');
    expect(message).not.toContain('pw');
  });
});

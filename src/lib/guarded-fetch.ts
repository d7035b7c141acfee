/**
 * The one way this service fetches a URL that a user gave it (OpenAPI sources and their $refs,
 * git remotes over HTTP, content imports, files by URL). It refuses what could reach the
 * service's own network unless the operator allows it:
 *
 * - only http: and https:;
 * - every address a host resolves to must be public, unless private addresses are allowed or the
 *   host is on the allow list; cloud metadata endpoints stay refused even when private addresses
 *   are allowed, unless the host is listed explicitly;
 * - the connection goes to the addresses that were checked (the lookup is pinned), so a second DNS
 *   answer cannot swap in another address; Host and TLS server name stay the original host name;
 * - redirects are followed by hand and every hop is checked again;
 * - one deadline covers resolving, connecting, headers and body; the body is capped in bytes.
 */
import type { LookupAddress } from 'node:dns';
import { lookup as dnsLookup } from 'node:dns/promises';
import type { Response } from 'undici';
import { FetchEnv, readEnv, type FetchSettings } from '../config/schema.ts';
import { classifyAddress, isHostAllowed, isIpLiteral } from '../domain/net.ts';

export interface FetchPolicy {
  /** Allow loopback, private, link-local and reserved addresses (never cloud metadata). */
  allowPrivate: boolean;
  /** Hosts reachable whatever they resolve to: `host`, `host:port`, `*.example.com`. */
  allowHosts: string[];
  /** Deadline for the whole fetch, redirects and body included. */
  timeoutMs: number;
  /** Largest body accepted, in bytes. */
  maxBytes: number;
  /** Redirects followed before giving up; 0 refuses any redirect. */
  maxRedirects: number;
  userAgent?: string;
}

export const FETCH_ERROR_CODES = [
  'INVALID_URL',
  'PROTOCOL_NOT_ALLOWED',
  'ADDRESS_NOT_ALLOWED',
  'DNS_FAILURE',
  'FETCH_TIMEOUT',
  'TOO_LARGE',
  'TOO_MANY_REDIRECTS',
  'HTTP_ERROR',
  'NETWORK_ERROR',
] as const;
export type FetchErrorCode = (typeof FETCH_ERROR_CODES)[number];

export class FetchError extends Error {
  readonly code: FetchErrorCode;
  /** The HTTP status, for HTTP_ERROR. */
  readonly status?: number;
  /** The URL being fetched when it failed (the redirect hop, if any), credentials redacted. */
  readonly url: string;

  constructor(code: FetchErrorCode, message: string, url: string, options: { status?: number; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'FetchError';
    this.code = code;
    this.url = url;
    if (options.status !== undefined) this.status = options.status;
  }
}

export interface GuardedFetchInit {
  headers?: Record<string, string>;
  method?: 'GET' | 'HEAD';
  /** Shorthand for an Accept header. */
  accept?: string;
}

export interface GuardedFetchResult {
  /** The final URL, after redirects, without credentials. */
  url: string;
  status: number;
  /** Lowercase header names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: Buffer;
  contentType: string | null;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** Headers that carry credentials and must not follow a redirect to another origin. */
const CREDENTIAL_HEADERS = ['authorization', 'cookie', 'proxy-authorization'];

/** Replaces any `user:password@` in a URL (or URL-like text) with `***@`. */
export function redactUrl(text: string | URL): string {
  if (typeof text !== 'string') {
    if (text.username === '' && text.password === '') return text.href;
    const copy = new URL(text.href);
    copy.username = '***';
    copy.password = '';
    return copy.href;
  }
  try {
    return redactUrl(new URL(text));
  } catch {
    return text.replace(/\/\/[^/?#]*@/, '//***@');
  }
}

/** The URL as sent on the wire: no credentials, no fragment. */
function withoutCredentials(url: URL): URL {
  const copy = new URL(url.href);
  copy.username = '';
  copy.password = '';
  copy.hash = '';
  return copy;
}

function basicAuth(url: URL): string | null {
  if (url.username === '' && url.password === '') return null;
  const user = decodeURIComponent(url.username);
  const pass = decodeURIComponent(url.password);
  return `Basic ${Buffer.from(`${user}:${pass}`, 'utf8').toString('base64')}`;
}

function bareHostname(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

/** Resolves when `promise` does, rejects with the signal's reason as soon as it aborts. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

type Pins = Map<string, LookupAddress[]>;

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for net/tls.connect that only answers with addresses already checked for that host
 * name, so the socket connects exactly where the policy said it may.
 */
function pinnedLookup(pins: Pins) {
  return (hostname: string, options: { family?: number | string; all?: boolean }, callback: LookupCallback) => {
    const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : Number(options.family ?? 0);
    const all = pins.get(hostname) ?? pins.get(hostname.toLowerCase()) ?? [];
    const addresses = family === 4 || family === 6 ? all.filter((a) => a.family === family) : all;
    if (addresses.length === 0) {
      const err: NodeJS.ErrnoException = new Error(`${hostname} was not resolved by the fetch guard`);
      err.code = 'ENOTFOUND';
      callback(err, options.all ? [] : '', 0);
      return;
    }
    if (options.all) callback(null, addresses);
    else callback(null, addresses[0].address, addresses[0].family);
  };
}

/**
 * Checks protocol and addresses of one hop and records the addresses to connect to.
 * Throws FetchError for anything the policy refuses.
 */
async function checkHop(url: URL, policy: FetchPolicy, pins: Pins, signal: AbortSignal, shown: string): Promise<void> {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new FetchError('PROTOCOL_NOT_ALLOWED', `Only http: and https: URLs can be fetched, not ${url.protocol} (${shown})`, shown);
  }
  const hostname = bareHostname(url);
  if (hostname === '') throw new FetchError('INVALID_URL', `The URL has no host: ${shown}`, shown);
  const listed = isHostAllowed(url.host, policy.allowHosts);

  let addresses: LookupAddress[];
  if (isIpLiteral(hostname)) {
    addresses = [{ address: hostname, family: hostname.includes(':') ? 6 : 4 }];
  } else {
    try {
      addresses = await untilAborted(dnsLookup(url.hostname, { all: true, verbatim: true }), signal);
    } catch (error) {
      if (signal.aborted) throw error; // reported as a timeout by the caller
      const code = (error as NodeJS.ErrnoException).code ?? 'unknown error';
      throw new FetchError('DNS_FAILURE', `Could not resolve ${hostname} (${code}) for ${shown}`, shown, { cause: error });
    }
    if (addresses.length === 0) throw new FetchError('DNS_FAILURE', `${hostname} has no addresses (${shown})`, shown);
  }

  if (!listed) {
    for (const { address } of addresses) {
      const kind = classifyAddress(address);
      if (kind === 'public' || (policy.allowPrivate && kind !== 'metadata')) continue;
      const where = address === hostname ? `${hostname} is` : `${hostname} resolves to ${address}, which is`;
      const hint =
        kind === 'metadata'
          ? 'cloud metadata endpoints are only reachable when the host is on the allow list (FETCH_ALLOW_HOSTS)'
          : 'allow private addresses (FETCH_ALLOW_PRIVATE=true) or add the host to the allow list (FETCH_ALLOW_HOSTS)';
      throw new FetchError('ADDRESS_NOT_ALLOWED', `Refusing to fetch ${shown}: ${where} a ${kind} address; ${hint}`, shown);
    }
  }
  if (!isIpLiteral(hostname)) pins.set(url.hostname, addresses);
}

/**
 * Checks a URL against `policy` the way `guardedFetch` checks each hop, without fetching it, for
 * clients other than HTTP fetches (the `git` CLI): resolves when it may be reached, with the
 * addresses it may connect to (pin them); rejects with a FetchError saying why not.
 */
export async function checkUrl(url: string, policy: FetchPolicy): Promise<{ url: URL; addresses: LookupAddress[] }> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    const shown = redactUrl(url);
    throw new FetchError('INVALID_URL', `Not a valid URL: ${shown}`, shown);
  }
  const shown = redactUrl(parsed);
  const pins: Pins = new Map();
  const clock = new AbortController();
  const timer = setTimeout(() => clock.abort(new DOMException('The deadline passed', 'TimeoutError')), policy.timeoutMs);
  try {
    await checkHop(parsed, policy, pins, clock.signal, shown);
  } catch (error) {
    if (error instanceof FetchError || !clock.signal.aborted) throw error;
    throw new FetchError('FETCH_TIMEOUT', `Resolving ${bareHostname(parsed)} took longer than ${policy.timeoutMs} ms`, shown);
  } finally {
    clearTimeout(timer);
  }
  const hostname = bareHostname(parsed);
  const addresses = isIpLiteral(hostname)
    ? [{ address: hostname, family: hostname.includes(':') ? 6 : 4 }]
    : (pins.get(parsed.hostname) ?? []);
  return { url: parsed, addresses };
}

/**
 * The most specific message in an error's cause chain (undici wraps socket errors in
 * "fetch failed"). Duck-typed: socket errors may come from another realm than this module's Error.
 */
function describe(error: unknown): string {
  const messageOf = (value: unknown): string | undefined => {
    const candidate = value as { message?: unknown; errors?: unknown } | null;
    if (candidate === null || typeof candidate !== 'object') return undefined;
    if (Array.isArray(candidate.errors) && candidate.errors.length > 0) {
      const inner = candidate.errors.map(messageOf).filter((m) => m !== undefined && m !== '');
      if (inner.length > 0) return inner.join('; ');
    }
    return typeof candidate.message === 'string' && candidate.message !== '' ? candidate.message : undefined;
  };
  let message = messageOf(error) ?? String(error);
  let current: unknown = error;
  for (let depth = 0; depth < 5; depth++) {
    current = (current as { cause?: unknown } | null)?.cause;
    if (current === undefined || current === null) break;
    message = messageOf(current) ?? message;
  }
  return message;
}

async function readBody(response: Response, maxBytes: number, shown: string): Promise<Buffer> {
  if (response.body === null) return Buffer.alloc(0);
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of response.body) {
    total += chunk.byteLength;
    if (total > maxBytes) throw new FetchError('TOO_LARGE', `The response from ${shown} is larger than ${maxBytes} bytes`, shown);
    chunks.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
  }
  return Buffer.concat(chunks, total);
}

function headerRecord(response: Response): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of response.headers) out[name] = name in out ? `${out[name]}, ${value}` : value;
  return out;
}

/**
 * Fetches a user-given URL under `policy`. Resolves with the final 2xx response, its body fully
 * read; rejects with a FetchError whose `code` says why otherwise. Credentials in the URL are sent
 * as Basic authorization (to that origin only) and never appear in errors or in the result.
 */
export async function guardedFetch(url: string, policy: FetchPolicy, init: GuardedFetchInit = {}): Promise<GuardedFetchResult> {
  let current: URL;
  try {
    current = new URL(url);
  } catch {
    const shown = redactUrl(url);
    throw new FetchError('INVALID_URL', `Not a valid URL: ${shown}`, shown);
  }
  const original = redactUrl(current);
  const method = init.method ?? 'GET';

  const baseHeaders: Record<string, string> = {};
  for (const [name, value] of Object.entries(init.headers ?? {})) baseHeaders[name.toLowerCase()] = value;
  if (init.accept !== undefined && baseHeaders.accept === undefined) baseHeaders.accept = init.accept;
  if (policy.userAgent !== undefined && baseHeaders['user-agent'] === undefined) baseHeaders['user-agent'] = policy.userAgent;
  const firstOrigin = current.origin;
  let urlAuth: { origin: string; value: string } | null = null;

  // Loaded on first use: most API processes never fetch a URL, and undici costs them memory.
  const { Agent, fetch } = await import('undici');
  const clock = new AbortController();
  const timer = setTimeout(() => clock.abort(new DOMException('The fetch deadline passed', 'TimeoutError')), policy.timeoutMs);
  const deadline = clock.signal;
  const pins: Pins = new Map();
  const agent = new Agent({
    connect: { lookup: pinnedLookup(pins), timeout: policy.timeoutMs },
    headersTimeout: policy.timeoutMs,
    bodyTimeout: policy.timeoutMs,
  });

  let shown = original;
  try {
    for (let redirects = 0; ;) {
      shown = redactUrl(current);
      await checkHop(current, policy, pins, deadline, shown);

      const headers: Record<string, string> = { ...baseHeaders };
      if (current.origin !== firstOrigin) for (const name of CREDENTIAL_HEADERS) delete headers[name];
      const auth = basicAuth(current);
      if (auth !== null) urlAuth = { origin: current.origin, value: auth };
      if (urlAuth !== null && urlAuth.origin === current.origin && headers.authorization === undefined) {
        headers.authorization = urlAuth.value;
      }

      const response = await fetch(withoutCredentials(current), {
        method,
        headers,
        redirect: 'manual',
        signal: deadline,
        dispatcher: agent,
      });

      const location = response.headers.get('location');
      if (REDIRECT_STATUSES.has(response.status) && location !== null) {
        await response.body?.cancel().catch(() => undefined);
        if (redirects >= policy.maxRedirects) {
          throw new FetchError(
            'TOO_MANY_REDIRECTS',
            `${original} redirected more than ${policy.maxRedirects} time${policy.maxRedirects === 1 ? '' : 's'} (last to ${shown})`,
            shown,
          );
        }
        redirects++;
        try {
          current = new URL(location, current);
        } catch {
          const target = redactUrl(location);
          throw new FetchError('INVALID_URL', `${shown} redirected to an invalid URL: ${target}`, target);
        }
        continue;
      }

      const via = shown === original ? '' : ` (redirected from ${original})`;
      if (response.status < 200 || response.status > 299) {
        await response.body?.cancel().catch(() => undefined);
        throw new FetchError('HTTP_ERROR', `${shown}${via} answered ${response.status} ${response.statusText}`.trim(), shown, {
          status: response.status,
        });
      }
      const declared = Number(response.headers.get('content-length') ?? NaN);
      if (method === 'GET' && declared > policy.maxBytes) {
        await response.body?.cancel().catch(() => undefined);
        throw new FetchError(
          'TOO_LARGE',
          `The response from ${shown}${via} is ${declared} bytes, more than the limit of ${policy.maxBytes}`,
          shown,
        );
      }
      const body = method === 'HEAD' ? Buffer.alloc(0) : await readBody(response, policy.maxBytes, shown);
      return {
        url: withoutCredentials(current).href,
        status: response.status,
        headers: headerRecord(response),
        body,
        contentType: response.headers.get('content-type'),
      };
    }
  } catch (error) {
    if (error instanceof FetchError) throw error;
    if (deadline.aborted) {
      throw new FetchError('FETCH_TIMEOUT', `Fetching ${shown} took longer than ${policy.timeoutMs} ms`, shown);
    }
    throw new FetchError('NETWORK_ERROR', `Could not fetch ${shown}: ${describe(error)}`, shown, { cause: error });
  } finally {
    clearTimeout(timer);
    await agent.destroy().catch(() => undefined);
  }
}

export interface GuardedRequestInit {
  method: string;
  /** Lowercase or not; hop-by-hop headers are left to the HTTP client. */
  headers: [string, string][];
  body?: Uint8Array;
  /** Aborts the request (besides the policy's deadline). */
  signal?: AbortSignal;
}

/**
 * One request to a URL given by code the service runs on behalf of others (integration scripts):
 * any method and body, any status answered, no redirect followed (a 3xx is answered as it is; the
 * client asks again for its Location, and that request is checked again). The URL's addresses are
 * checked and pinned as `guardedFetch` checks each hop; the deadline and the body cap are the
 * policy's. Rejects with a FetchError for anything the policy refuses.
 */
export async function guardedRequest(url: string, policy: FetchPolicy, init: GuardedRequestInit): Promise<GuardedFetchResult> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    const shown = redactUrl(url);
    throw new FetchError('INVALID_URL', `Not a valid URL: ${shown}`, shown);
  }
  const shown = redactUrl(target);
  const { Agent, fetch } = await import('undici');
  const clock = new AbortController();
  const timer = setTimeout(() => clock.abort(new DOMException('The fetch deadline passed', 'TimeoutError')), policy.timeoutMs);
  const signal = init.signal === undefined ? clock.signal : AbortSignal.any([clock.signal, init.signal]);
  const pins: Pins = new Map();
  const agent = new Agent({
    connect: { lookup: pinnedLookup(pins), timeout: policy.timeoutMs },
    headersTimeout: policy.timeoutMs,
    bodyTimeout: policy.timeoutMs,
  });
  try {
    await checkHop(target, policy, pins, signal, shown);
    const headers = init.headers.filter(
      ([name]) => !['host', 'content-length', 'connection', 'transfer-encoding'].includes(name.toLowerCase()),
    );
    const auth = basicAuth(target);
    if (auth !== null && !headers.some(([name]) => name.toLowerCase() === 'authorization')) headers.push(['authorization', auth]);
    const hasBody = init.body !== undefined && init.method !== 'GET' && init.method !== 'HEAD';
    const response = await fetch(withoutCredentials(target), {
      method: init.method,
      headers,
      ...(hasBody ? { body: init.body } : {}),
      redirect: 'manual',
      signal,
      dispatcher: agent,
    });
    const declared = Number(response.headers.get('content-length') ?? NaN);
    if (declared > policy.maxBytes) {
      await response.body?.cancel().catch(() => undefined);
      throw new FetchError(
        'TOO_LARGE',
        `The response from ${shown} is ${declared} bytes, more than the limit of ${policy.maxBytes}`,
        shown,
      );
    }
    const body = init.method === 'HEAD' ? Buffer.alloc(0) : await readBody(response, policy.maxBytes, shown);
    return {
      url: withoutCredentials(target).href,
      status: response.status,
      headers: headerRecord(response),
      body,
      contentType: response.headers.get('content-type'),
    };
  } catch (error) {
    if (error instanceof FetchError) throw error;
    if (clock.signal.aborted) throw new FetchError('FETCH_TIMEOUT', `Fetching ${shown} took longer than ${policy.timeoutMs} ms`, shown);
    throw new FetchError('NETWORK_ERROR', `Could not fetch ${shown}: ${describe(error)}`, shown, { cause: error });
  } finally {
    clearTimeout(timer);
    await agent.destroy().catch(() => undefined);
  }
}

/**
 * The fetch policy of the FETCH_* settings, read and validated with the rest of the environment
 * (src/config/schema.ts): FETCH_ALLOW_PRIVATE, FETCH_ALLOW_HOSTS, FETCH_TIMEOUT, FETCH_MAX_BYTES,
 * FETCH_MAX_REDIRECTS.
 */
export function parseFetchPolicy(settings: FetchSettings): FetchPolicy {
  return {
    allowPrivate: settings.FETCH_ALLOW_PRIVATE,
    allowHosts: settings.FETCH_ALLOW_HOSTS ?? [],
    timeoutMs: settings.FETCH_TIMEOUT,
    maxBytes: settings.FETCH_MAX_BYTES,
    maxRedirects: settings.FETCH_MAX_REDIRECTS,
  };
}

/**
 * The fetch policy of the given FETCH_* variables; every bad value is reported in one Error. The
 * service itself reads the policy from its configuration (`Config.fetch`).
 */
export function fetchPolicyFromEnv(env: Record<string, string | undefined>): FetchPolicy {
  const { values, problems } = readEnv(FetchEnv, env);
  if (problems.length > 0) throw new Error(`Invalid fetch configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  return parseFetchPolicy(values);
}

/**
 * Runs published integration scripts: each script in workerd (Cloudflare's open-source Workers
 * runtime, driven through Miniflare), the way GitBook runs them. An event is POSTed to the script
 * as GitBook's dispatcher does it (form fields `event`, `environment` and, for `fetch` events,
 * `fetch-body`), and its answer is read back under the sandbox's limits.
 *
 * - One instance (a workerd process running one isolate) per integration version, kept for the
 *   next events; a bounded pool, least recently used idle instances stopped first, and an
 *   integration's other versions stopped when a new one runs.
 * - The script sees no file system of the host, no environment variable of the service and no
 *   binding: workerd is started with an empty environment, and the script is given nothing but
 *   its event. Every request it makes comes back to this process (Miniflare's outbound service):
 *   requests to the service's API endpoint go to the API; every other one goes through the fetch
 *   guard (src/lib/guarded-fetch.ts), which refuses private networks unless configured.
 * - Limits: a wall-clock deadline per event (open-source workerd enforces no CPU limit: past the
 *   deadline the instance is killed, which stops an endless loop); the instance's resident memory,
 *   sampled while events run, with a hard bound on its writable memory (RLIMIT_DATA) behind it; the
 *   answer's size. An event over a limit fails with an IntegrationSandboxError; its instance is
 *   stopped and the next event starts a new one.
 */
import { createHash } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import type { Miniflare, Request as MiniflareRequest, Response as MiniflareResponse } from 'miniflare';
import {
  evictions,
  eventFields,
  failureMessage,
  ranOutOfMemory,
  routeSubrequest,
  toUpstream,
  type SandboxErrorCode,
  type SandboxFetchRequest,
  type SandboxLimits,
} from '../domain/integrations-runtime.ts';
import type { Config } from '../config.ts';
import { FetchError, guardedRequest, type FetchPolicy } from './guarded-fetch.ts';

export type { SandboxErrorCode, SandboxFetchRequest } from '../domain/integrations-runtime.ts';

/** The compatibility date and flags GitBook's CLI runs integrations with (`gitbook dev`). */
export const COMPATIBILITY_DATE = '2025-05-25';
export const COMPATIBILITY_FLAGS = ['nodejs_compat'];

/**
 * Writable memory the runtime reserves before it runs any script (V8's code range, its sandbox's
 * allocator, tcmalloc): about 560 MiB measured with workerd 1.20260730. The hard bound on an
 * instance's writable memory is this plus its memory limit.
 */
export const RUNTIME_DATA_RESERVE_BYTES = 1024 * 2 ** 20;

const OUTBOUND_WORKER = 'sandbox-outbound';

/** How often an instance's resident memory is read while events run in it. */
const MEMORY_SAMPLE_MS = 50;

export interface IntegrationSandboxOptions extends SandboxLimits {
  /** Instances kept at most (idle ones beyond it are stopped, least recently used first). */
  maxInstances: number;
  /** What a script's requests may reach (the service's FETCH_* policy). */
  fetchPolicy: FetchPolicy;
  /**
   * The service's API: requests to `endpoint`'s origin (PUBLIC_URL) are sent to `upstream`'s
   * (default: the endpoint itself) without the fetch guard. `endpoint` is also the environment's
   * `apiEndpoint` when the caller gives none.
   */
  api?: { endpoint: string; upstream?: string };
  /**
   * Deadline of starting an instance (loading the script and running its top-level code); default
   * the event deadline, and at least 30 s, since a cold start takes about a second on a busy machine.
   */
  startTimeoutMs?: number;
  /** Hears every line a script's runtime writes (console output, runtime errors). */
  onLog?: (line: { integration: string; stream: 'stdout' | 'stderr'; text: string }) => void;
}

export interface IntegrationScript {
  name: string;
  version: number | string;
  /** The bundled ES module (`export default { fetch }`). */
  code: string;
  /** The integration's secrets, given to the script as `environment.secrets`. */
  secrets: Record<string, string>;
  /**
   * Development mode (`gitbook dev`): the event goes to this URL, where the integrator runs the
   * script, instead of running `code` here; through the fetch guard, within the same deadline and
   * answer size.
   */
  tunnelUrl?: string;
}

export interface SandboxResponse {
  status: number;
  /** Lowercase names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: Buffer;
  /** CPU time the instance spent while the event ran (other events running in it at the same time included). */
  cpuMs: number | null;
}

export interface SandboxInstanceStats {
  integration: string;
  version: string;
  pid: number | null;
  rssBytes: number | null;
  inFlight: number;
}

export interface IntegrationSandbox {
  dispatch(
    script: IntegrationScript,
    event: Record<string, unknown>,
    environment: Record<string, unknown>,
    fetchRequest?: SandboxFetchRequest,
  ): Promise<SandboxResponse>;
  /** The instances running now. */
  stats(): SandboxInstanceStats[];
  close(): Promise<void>;
}

export class IntegrationSandboxError extends Error {
  readonly code: SandboxErrorCode;
  constructor(code: SandboxErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'IntegrationSandboxError';
    this.code = code;
  }
}

// --- The runtime's launcher --------------------------------------------------------------------------

/**
 * Miniflare starts workerd with the service's whole environment; it starts this launcher instead
 * (MINIFLARE_WORKERD_PATH), which records workerd's process id, bounds its writable memory and
 * starts it with an empty environment.
 */
const LAUNCHER = `#!/bin/sh
echo $$ > "$SANDBOX_PID_FILE"
ulimit -d "$SANDBOX_DATA_KIB" || exit 70
exec env -i TZ=UTC "$SANDBOX_WORKERD" "$@"
`;

let launcherDir: string | undefined;

function launcher(): { dir: string; path: string } {
  if (launcherDir === undefined) {
    const dir = mkdtempSync(join(tmpdir(), 'integration-sandbox-'));
    writeFileSync(join(dir, 'workerd.sh'), LAUNCHER);
    chmodSync(join(dir, 'workerd.sh'), 0o700);
    launcherDir = dir;
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  }
  const path = join(launcherDir, 'workerd.sh');
  // Read by Miniflare whenever it (re)starts a runtime, so it stays set.
  process.env.MINIFLARE_WORKERD_PATH = path;
  return { dir: launcherDir, path };
}

type MiniflareModule = typeof import('miniflare');
let miniflareModule: MiniflareModule | undefined;

/** Miniflare, loaded on first use: it takes about 90 MB and a second or more to load, which processes running no script never pay. */
async function loadMiniflare(): Promise<MiniflareModule> {
  miniflareModule ??= await import('miniflare');
  return miniflareModule;
}

const workerdBinary = (): string => createRequire(import.meta.url)('workerd').default as string;

// --- Instances -------------------------------------------------------------------------------------

interface Instance {
  key: string;
  name: string;
  version: string;
  mf: Miniflare;
  ready: Promise<void>;
  pidFile: string;
  pid: number | null;
  inFlight: number;
  lastUsed: number;
  /** The last few KiB the runtime wrote to stderr, to tell why it stopped. */
  stderrTail: string;
  /** Set when the instance was stopped for going over a limit. */
  stoppedFor: SandboxErrorCode | null;
  /** What was measured when it was stopped for going over a limit. */
  stoppedDetail: string | undefined;
  stopped: boolean;
  /** Aborted when the instance is stopped: the events running in it end at once. */
  halt: AbortController;
}

let instanceSeq = 0;

function readPid(file: string): number | null {
  try {
    const pid = Number(readFileSync(file, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

const PAGE_SIZE = 4096;

/** Resident bytes and CPU milliseconds of a process, from /proc (null where /proc cannot say). */
function processUsage(pid: number | null): { rss: number | null; cpuMs: number | null } {
  if (pid === null) return { rss: null, cpuMs: null };
  let rss: number | null = null;
  let cpuMs: number | null = null;
  try {
    rss = Number(readFileSync(`/proc/${pid}/statm`, 'utf8').split(' ')[1]) * PAGE_SIZE;
  } catch {
    /* not Linux, or the process is gone */
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime (fields 14 and 15 of stat) in clock ticks of 10 ms.
    cpuMs = (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    /* idem */
  }
  return { rss, cpuMs };
}

function drain(stream: Readable, onLine: (text: string) => void, onChunk?: (text: string) => void): void {
  let pending = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    onChunk?.(chunk);
    pending += chunk;
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    if (pending.length > 8192) pending = pending.slice(-8192);
    for (const line of lines) if (line !== '') onLine(line.slice(0, 8192));
  });
  stream.on('error', () => undefined);
}

async function readCapped(response: MiniflareResponse, maxBytes: number): Promise<Buffer | null> {
  const declared = Number(response.headers.get('content-length') ?? NaN);
  if (declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    return null;
  }
  if (response.body === null) return Buffer.alloc(0);
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of response.body) {
    total += chunk.byteLength;
    if (total > maxBytes) {
      await response.body.cancel().catch(() => undefined);
      return null;
    }
    chunks.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
  }
  return Buffer.concat(chunks, total);
}

async function readRequestBody(request: MiniflareRequest, maxBytes: number): Promise<Uint8Array | undefined> {
  if (request.body === null) return undefined;
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of request.body) {
    total += chunk.byteLength;
    if (total > maxBytes) throw new FetchError('TOO_LARGE', `The request body is larger than ${maxBytes} bytes`, request.url);
    chunks.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
  }
  return Buffer.concat(chunks, total);
}

function headerPairs(headers: Iterable<[string, string]>): [string, string][] {
  return [...headers].filter(([name]) => !name.toLowerCase().startsWith('mf-') && name.toLowerCase() !== 'cf-connecting-ip');
}

/** The answer a script gets for a request the guard refused: 403 with GitBook's error shape and the reason. */
function refusal(mf: MiniflareModule, error: FetchError): MiniflareResponse {
  const status = error.code === 'FETCH_TIMEOUT' ? 504 : error.code === 'TOO_LARGE' ? 502 : 403;
  return new mf.Response(JSON.stringify({ error: { code: status, message: error.message } }), {
    status,
    headers: { 'content-type': 'application/json', 'x-sandbox-refused': error.code },
  });
}

/** The sandbox options of the service's configuration (INTEGRATION_*, FETCH_*, PUBLIC_URL). */
export function integrationSandboxOptions(
  config: Pick<Config, 'integrations' | 'fetch' | 'publicUrl'>,
  onLog?: IntegrationSandboxOptions['onLog'],
): IntegrationSandboxOptions {
  const { timeoutMs, memoryLimitBytes, maxResponseBytes, poolSize, apiUpstream } = config.integrations;
  return {
    timeoutMs,
    memoryLimitBytes,
    maxResponseBytes,
    maxInstances: poolSize,
    fetchPolicy: config.fetch,
    api: { endpoint: config.publicUrl, upstream: apiUpstream },
    ...(onLog === undefined ? {} : { onLog }),
  };
}

export function createIntegrationSandbox(options: IntegrationSandboxOptions): IntegrationSandbox {
  const limits: SandboxLimits = {
    timeoutMs: options.timeoutMs,
    memoryLimitBytes: options.memoryLimitBytes,
    maxResponseBytes: options.maxResponseBytes,
  };
  const instances = new Map<string, Instance>();
  const starting = new Map<string, Promise<Instance>>();
  let closed = false;
  let sampler: NodeJS.Timeout | undefined;

  const log = (integration: string, stream: 'stdout' | 'stderr', text: string) => options.onLog?.({ integration, stream, text });

  /** A request of a script: to the API, or through the guard. */
  async function outbound(request: MiniflareRequest): Promise<MiniflareResponse> {
    const mf = await loadMiniflare();
    const policy = options.fetchPolicy;
    try {
      const body = await readRequestBody(request, policy.maxBytes);
      const headers = headerPairs(request.headers);
      if (options.api !== undefined && routeSubrequest(request.url, options.api.endpoint) === 'api') {
        // The service's own API: reached where it listens, whatever the fetch policy says of that address.
        const { fetch } = await import('undici');
        const upstream = toUpstream(request.url, options.api.upstream ?? options.api.endpoint);
        const hasBody = body !== undefined && request.method !== 'GET' && request.method !== 'HEAD';
        const response = await fetch(upstream, {
          method: request.method,
          headers: headers.filter(([name]) => !['host', 'content-length', 'connection'].includes(name.toLowerCase())),
          ...(hasBody ? { body } : {}),
          redirect: 'manual',
          signal: AbortSignal.timeout(policy.timeoutMs),
        });
        const answer = Buffer.from(await response.arrayBuffer());
        const out = new mf.Response(answer, { status: response.status });
        for (const [name, value] of response.headers) {
          if (name !== 'content-encoding' && name !== 'content-length' && name !== 'transfer-encoding') out.headers.append(name, value);
        }
        return out;
      }
      const result = await guardedRequest(request.url, policy, { method: request.method, headers, body });
      const out = new mf.Response(result.status === 204 || result.status === 304 ? null : result.body, { status: result.status });
      for (const [name, value] of Object.entries(result.headers)) {
        if (name !== 'content-encoding' && name !== 'content-length' && name !== 'transfer-encoding') out.headers.set(name, value);
      }
      return out;
    } catch (error) {
      if (error instanceof FetchError) return refusal(mf, error);
      const message = error instanceof Error ? error.message : String(error);
      return refusal(mf, new FetchError('NETWORK_ERROR', `Could not fetch ${request.url}: ${message}`, request.url));
    }
  }

  async function stop(instance: Instance, reason: SandboxErrorCode | null): Promise<void> {
    if (instance.stopped) return;
    instance.stopped = true;
    instance.stoppedFor ??= reason;
    instance.halt.abort();
    if (instances.get(instance.key) === instance) instances.delete(instance.key);
    // Kills workerd (SIGKILL), whatever its isolate is doing.
    await instance.mf.dispose().catch(() => undefined);
    rmSync(instance.pidFile, { force: true });
  }

  function sampleMemory(): void {
    let busy = false;
    for (const instance of instances.values()) {
      if (instance.inFlight === 0) continue;
      busy = true;
      instance.pid ??= readPid(instance.pidFile);
      const { rss } = processUsage(instance.pid);
      if (rss !== null && rss > limits.memoryLimitBytes) {
        instance.stoppedDetail ??= residentDetail(rss);
        void stop(instance, 'MEMORY_LIMIT');
      }
    }
    if (!busy && sampler !== undefined) {
      clearInterval(sampler);
      sampler = undefined;
    }
  }

  function startSampling(): void {
    sampler ??= setInterval(sampleMemory, MEMORY_SAMPLE_MS);
    sampler.unref();
  }

  async function start(key: string, script: IntegrationScript): Promise<Instance> {
    const { Miniflare } = await loadMiniflare();
    const { dir } = launcher();
    const pidFile = join(dir, `workerd-${process.pid}-${++instanceSeq}.pid`);
    const name = script.name;
    const instance = {
      key,
      name,
      version: String(script.version),
      pidFile,
      pid: null,
      inFlight: 0,
      lastUsed: Date.now(),
      stderrTail: '',
      stoppedFor: null,
      stoppedDetail: undefined,
      stopped: false,
      halt: new AbortController(),
    } as Omit<Instance, 'mf' | 'ready'> as Instance;
    instance.mf = new Miniflare({
      workers: [
        {
          name: 'integration',
          modules: true,
          script: script.code,
          compatibilityDate: COMPATIBILITY_DATE,
          compatibilityFlags: COMPATIBILITY_FLAGS,
          outboundService: OUTBOUND_WORKER,
          cache: false,
        },
        {
          // Every request of the script reaches this process through this worker. Unlike Miniflare's
          // own services it does not pass raw sockets (connect()) on to the network: they fail.
          name: OUTBOUND_WORKER,
          modules: true,
          script: 'export default { fetch(request, env) { return env.GUARD.fetch(request); } };',
          compatibilityDate: COMPATIBILITY_DATE,
          serviceBindings: { GUARD: outbound },
          outboundService: { network: { allow: [], deny: [] } },
          cache: false,
        },
      ],
      cf: false,
      telemetry: { enabled: false },
      host: '127.0.0.1',
      handleRuntimeStdio: (stdout: Readable, stderr: Readable) => {
        drain(stdout, (text) => log(name, 'stdout', text));
        drain(
          stderr,
          (text) => log(name, 'stderr', text),
          (chunk) => {
            instance.stderrTail = (instance.stderrTail + chunk).slice(-4096);
          },
        );
      },
      unsafeRuntimeEnv: {
        SANDBOX_PID_FILE: pidFile,
        SANDBOX_DATA_KIB: String(Math.ceil((RUNTIME_DATA_RESERVE_BYTES + limits.memoryLimitBytes) / 1024)),
        SANDBOX_WORKERD: workerdBinary(),
      },
    });
    instance.ready = instance.mf.ready.then(() => {
      instance.pid = readPid(pidFile);
    });
    const startTimeoutMs = options.startTimeoutMs ?? Math.max(limits.timeoutMs, 30_000);
    let timer: NodeJS.Timeout | undefined;
    const tooLong = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`it did not start within ${startTimeoutMs} ms`)), startTimeoutMs);
    });
    try {
      await Promise.race([instance.ready, tooLong]);
    } catch (error) {
      // Kills workerd, even when the script's top-level code never ends.
      await stop(instance, 'START_FAILED');
      const reason = error instanceof Error ? error.message : String(error);
      const detail = (reason.startsWith('it did not start') ? reason : instance.stderrTail.trim() || reason).slice(-2000);
      throw new IntegrationSandboxError('START_FAILED', failureMessage('START_FAILED', name, limits, detail), { cause: error });
    } finally {
      clearTimeout(timer);
    }
    return instance;
  }

  async function acquire(script: IntegrationScript): Promise<Instance> {
    const hash = createHash('sha256').update(script.code).digest('hex').slice(0, 16);
    const key = `${script.name}@${String(script.version)}#${hash}`;
    for (;;) {
      if (closed) throw new IntegrationSandboxError('CLOSED', failureMessage('CLOSED', script.name, limits));
      const existing = instances.get(key);
      if (existing !== undefined && !existing.stopped) return existing;
      const pending = starting.get(key);
      if (pending !== undefined) {
        await pending.catch(() => undefined);
        if (starting.get(key) === pending) starting.delete(key);
        const started = await pending;
        if (!started.stopped) return started;
        continue;
      }
      const entries = [...instances.values()].map((i) => ({ key: i.key, name: i.name, lastUsed: i.lastUsed, inFlight: i.inFlight }));
      for (const victim of evictions(entries, { key, name: script.name }, options.maxInstances)) {
        const instance = instances.get(victim);
        if (instance !== undefined) void stop(instance, null);
      }
      const promise = start(key, script).then((instance) => {
        if (closed) {
          void stop(instance, 'CLOSED');
        } else {
          instances.set(key, instance);
        }
        return instance;
      });
      starting.set(key, promise);
      try {
        return await promise;
      } finally {
        if (starting.get(key) === promise) starting.delete(key);
      }
    }
  }

  /** Why an event failed that did not answer (the instance was stopped, or the runtime went away). */
  function failure(instance: Instance, error: unknown): IntegrationSandboxError {
    if (error instanceof IntegrationSandboxError) return error;
    let code: SandboxErrorCode = instance.stoppedFor ?? 'CRASHED';
    if (code === 'CRASHED' && ranOutOfMemory(instance.stderrTail)) code = 'MEMORY_LIMIT';
    const detail = code === 'CRASHED' || code === 'MEMORY_LIMIT' ? (instance.stoppedDetail ?? lastLine(instance.stderrTail)) : undefined;
    return new IntegrationSandboxError(code, failureMessage(code, instance.name, limits, detail), { cause: error });
  }

  async function dispatch(
    script: IntegrationScript,
    event: Record<string, unknown>,
    environment: Record<string, unknown>,
    fetchRequest?: SandboxFetchRequest,
  ): Promise<SandboxResponse> {
    if (script.tunnelUrl !== undefined) return dispatchToTunnel(script, script.tunnelUrl, event, environment, fetchRequest);
    const instance = await acquire(script);
    instance.inFlight++;
    instance.lastUsed = Date.now();
    startSampling();
    const before = processUsage(instance.pid).cpuMs;
    const form = eventForm(new (await loadMiniflare()).FormData(), event, environment, script, fetchRequest);
    const abort = new AbortController();
    // Past the deadline the instance is stopped, which ends the event (and any other running in it).
    const timer = setTimeout(() => void stop(instance, 'TIMEOUT'), limits.timeoutMs);
    const halted = new Promise<never>((_, reject) => {
      const onHalt = () => reject(new Error('The instance was stopped'));
      if (instance.halt.signal.aborted) onHalt();
      else instance.halt.signal.addEventListener('abort', onHalt, { once: true });
      abort.signal.addEventListener('abort', () => instance.halt.signal.removeEventListener('abort', onHalt), { once: true });
    });
    halted.catch(() => undefined);
    try {
      const run = (async () => {
        const response = await instance.mf.dispatchFetch('https://integration.invalid/v1', {
          method: 'POST',
          body: form,
          signal: abort.signal,
          // A redirect the script answers is its answer (an OAuth callback sending the visitor on), never followed here.
          redirect: 'manual',
        });
        const body = await readCapped(response, limits.maxResponseBytes);
        if (body === null) {
          throw new IntegrationSandboxError('RESPONSE_TOO_LARGE', failureMessage('RESPONSE_TOO_LARGE', instance.name, limits));
        }
        const headers: Record<string, string> = {};
        for (const [name, value] of response.headers) headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
        return { status: response.status, headers, body };
      })();
      run.catch(() => undefined);
      const answer = await Promise.race([run, halted]);
      const after = processUsage(instance.pid);
      if (after.rss !== null && after.rss > limits.memoryLimitBytes) {
        instance.stoppedDetail ??= residentDetail(after.rss);
        void stop(instance, 'MEMORY_LIMIT');
      }
      return { ...answer, cpuMs: before !== null && after.cpuMs !== null ? after.cpuMs - before : null };
    } catch (error) {
      if (!instance.stopped && !(error instanceof IntegrationSandboxError)) {
        // The runtime went away by itself: give its last words a moment to arrive.
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const failed = failure(instance, error);
      // A runtime that failed an event without answering is not trusted with the next one.
      if (failed.code !== 'RESPONSE_TOO_LARGE') void stop(instance, failed.code);
      throw failed;
    } finally {
      clearTimeout(timer);
      abort.abort();
      instance.inFlight--;
      instance.lastUsed = Date.now();
    }
  }

  /** GitBook's dispatch form: `event`, `environment` and a fetch event's `fetch-body`, filled into `form`. */
  function eventForm<F extends { set(name: string, value: string | Blob): void }>(
    form: F,
    event: Record<string, unknown>,
    environment: Record<string, unknown>,
    script: IntegrationScript,
    fetchRequest?: SandboxFetchRequest,
  ): F {
    const fields = eventFields(event, environment, script.secrets, options.api?.endpoint, fetchRequest);
    form.set('event', fields.event);
    form.set('environment', fields.environment);
    if (fetchRequest?.body !== undefined) {
      const body = fetchRequest.body;
      form.set('fetch-body', typeof body === 'string' ? body : new Blob([new Uint8Array(body)]));
    }
    return form;
  }

  /**
   * An event sent to an integration in development mode: the same form data POSTed to its tunnel
   * (GitBook's dispatcher is not versioned there, and the runtime does not ask it to be), which is
   * a URL the integrator gave, so it goes through the fetch guard like any other.
   */
  async function dispatchToTunnel(
    script: IntegrationScript,
    tunnelUrl: string,
    event: Record<string, unknown>,
    environment: Record<string, unknown>,
    fetchRequest?: SandboxFetchRequest,
  ): Promise<SandboxResponse> {
    if (closed) throw new IntegrationSandboxError('CLOSED', failureMessage('CLOSED', script.name, limits));
    const form = eventForm(new FormData(), event, environment, script, fetchRequest);
    const encoded = new Request('http://tunnel.invalid/', { method: 'POST', body: form });
    const body = new Uint8Array(await encoded.arrayBuffer());
    const policy = { ...options.fetchPolicy, timeoutMs: limits.timeoutMs, maxBytes: limits.maxResponseBytes, maxRedirects: 0 };
    try {
      const answer = await guardedRequest(tunnelUrl, policy, {
        method: 'POST',
        headers: [['content-type', encoded.headers.get('content-type') ?? 'multipart/form-data']],
        body,
      });
      return { status: answer.status, headers: answer.headers, body: answer.body, cpuMs: null };
    } catch (error) {
      if (!(error instanceof FetchError)) throw error;
      const code = error.code === 'FETCH_TIMEOUT' ? 'TIMEOUT' : error.code === 'TOO_LARGE' ? 'RESPONSE_TOO_LARGE' : 'TUNNEL_FAILED';
      throw new IntegrationSandboxError(code, failureMessage(code, script.name, limits, error.message), { cause: error });
    }
  }

  function stats(): SandboxInstanceStats[] {
    return [...instances.values()].map((instance) => {
      instance.pid ??= readPid(instance.pidFile);
      return {
        integration: instance.name,
        version: instance.version,
        pid: instance.pid,
        rssBytes: processUsage(instance.pid).rss,
        inFlight: instance.inFlight,
      };
    });
  }

  async function close(): Promise<void> {
    closed = true;
    if (sampler !== undefined) clearInterval(sampler);
    await Promise.allSettled([...starting.values()]);
    await Promise.all([...instances.values()].map((instance) => stop(instance, 'CLOSED')));
  }

  return { dispatch, stats, close };
}

function residentDetail(rss: number): string {
  return `its resident memory reached ${Math.round(rss / 2 ** 20)} MiB`;
}

function lastLine(text: string): string {
  const lines = text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('stack:') && !line.startsWith('***'));
  return (lines.at(-1) ?? '').slice(0, 500);
}

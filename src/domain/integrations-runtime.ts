/**
 * The pure part of running integration scripts (src/lib/integration-sandbox.ts): what the script is
 * given for an event, where a request it makes goes, which instances leave the pool, and how a
 * stopped instance is explained.
 */

/** The limits one event of a script runs under. */
export interface SandboxLimits {
  /** Wall-clock deadline of one event, from dispatch to the last byte of the answer. */
  timeoutMs: number;
  /** Resident memory of one script's instance (the runtime and the script together). */
  memoryLimitBytes: number;
  /** Largest answer body of one event. */
  maxResponseBytes: number;
}

export const SANDBOX_ERROR_CODES = [
  /** The event ran past its deadline; the instance was stopped (an endless loop is stopped this way). */
  'TIMEOUT',
  /** The instance grew past its memory limit; it was stopped. */
  'MEMORY_LIMIT',
  /** The answer's body is larger than allowed. */
  'RESPONSE_TOO_LARGE',
  /** The instance stopped by itself (the runtime aborted) while the event ran. */
  'CRASHED',
  /** The script could not be loaded (a syntax error, no default export with fetch, …). */
  'START_FAILED',
  /** The sandbox was closed. */
  'CLOSED',
  /** In development mode: the integrator's tunnel refused by the fetch guard, or unreachable. */
  'TUNNEL_FAILED',
] as const;
export type SandboxErrorCode = (typeof SANDBOX_ERROR_CODES)[number];

/** The request of a `fetch` event: what GitBook's dispatcher sends as the event's `request` and `fetch-body`. */
export interface SandboxFetchRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
}

/**
 * The `event` and `environment` form fields of one dispatch, as @gitbook/runtime reads them: the
 * integration's secrets are the environment's `secrets` (whatever the caller put there), the API
 * endpoint defaults to the service's own, and a `fetch` event carries its request's method, URL
 * and headers (its body goes in `fetch-body`).
 */
export function eventFields(
  event: Record<string, unknown>,
  environment: Record<string, unknown>,
  secrets: Record<string, string>,
  apiEndpoint: string | undefined,
  fetchRequest: SandboxFetchRequest | undefined,
): { event: string; environment: string } {
  const withRequest =
    fetchRequest !== undefined && event.request === undefined
      ? { ...event, request: { method: fetchRequest.method, url: fetchRequest.url, headers: fetchRequest.headers } }
      : event;
  const env: Record<string, unknown> = { ...environment, secrets: { ...secrets } };
  if (env.apiEndpoint === undefined && apiEndpoint !== undefined) env.apiEndpoint = apiEndpoint;
  return { event: JSON.stringify(withRequest), environment: JSON.stringify(env) };
}

function originOf(url: string): string | null {
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return null;
    return parsed.origin;
  } catch {
    return null;
  }
}

/**
 * Where a request a script makes goes: to the service's own API (`api`) when its origin is the
 * API endpoint's (scheme, host and port alike), otherwise through the fetch guard (`guarded`).
 */
export function routeSubrequest(url: string, apiEndpoint: string | undefined): 'api' | 'guarded' {
  if (apiEndpoint === undefined) return 'guarded';
  const origin = originOf(url);
  return origin !== null && origin === originOf(apiEndpoint) ? 'api' : 'guarded';
}

/** `url` with the origin of `upstream` in place of its own (path, query kept). */
export function toUpstream(url: string, upstream: string): string {
  const target = new URL(url);
  const base = new URL(upstream);
  target.protocol = base.protocol;
  target.host = base.host;
  return target.href;
}

export interface PoolEntry {
  key: string;
  /** The integration the instance runs a version of. */
  name: string;
  lastUsed: number;
  inFlight: number;
}

/**
 * The instances to stop so that `wanted` (an instance of integration `name`) fits in a pool of
 * `max`: every other version of the same integration, then the least recently used idle ones.
 * Busy instances are never chosen: the pool goes over its bound until they finish.
 */
export function evictions(entries: readonly PoolEntry[], wanted: { key: string; name: string }, max: number): string[] {
  const out = entries.filter((e) => e.name === wanted.name && e.key !== wanted.key && e.inFlight === 0).map((e) => e.key);
  const kept = entries.filter((e) => e.key !== wanted.key && !out.includes(e.key));
  const room = Math.max(0, max - 1);
  const idle = kept.filter((e) => e.inFlight === 0).sort((a, b) => a.lastUsed - b.lastUsed);
  for (let excess = kept.length - room; excess > 0 && idle.length > 0; excess--) out.push(idle.shift()!.key);
  return out;
}

/** Whether the last lines a runtime wrote say that it ran out of memory. */
export function ranOutOfMemory(stderrTail: string): boolean {
  return /heap out of memory|Reached heap limit|allocation failed|Cannot allocate memory|Array buffer allocation failed/i.test(stderrTail);
}

const MIB = 2 ** 20;
const mib = (bytes: number) => `${Math.round((bytes / MIB) * 10) / 10} MiB`;

/** The message of a failed event, for the integration's owner. */
export function failureMessage(code: SandboxErrorCode, integration: string, limits: SandboxLimits, detail?: string): string {
  const suffix = detail === undefined || detail === '' ? '' : `: ${detail}`;
  switch (code) {
    case 'TIMEOUT':
      return `The integration ${integration} did not answer within ${limits.timeoutMs} ms; its script was stopped`;
    case 'MEMORY_LIMIT':
      return `The integration ${integration} used more than its memory limit of ${mib(limits.memoryLimitBytes)}; its script was stopped${suffix}`;
    case 'RESPONSE_TOO_LARGE':
      return `The integration ${integration} answered more than ${limits.maxResponseBytes} bytes`;
    case 'CRASHED':
      return `The script of the integration ${integration} stopped while handling the event${suffix}`;
    case 'START_FAILED':
      return `The script of the integration ${integration} could not be started${suffix}`;
    case 'CLOSED':
      return `The integration sandbox is closed`;
    case 'TUNNEL_FAILED':
      return `The development tunnel of the integration ${integration} could not be reached${suffix}`;
  }
}

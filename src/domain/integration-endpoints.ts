/**
 * What passes between a caller of an integration's public endpoint and its script. Pure.
 *
 * The script is third-party code: the caller's credentials for this service never reach it, and
 * its answer is served under this service's origin, so it cannot set cookies there nor act as that
 * origin in a browser (`content-security-policy: sandbox allow-scripts`: its pages run in an opaque
 * origin of their own, as an integration's webframe needs, without this origin's cookies, storage
 * or same-origin requests; redirects, JSON and plain answers are unaffected).
 */

/** Request headers never passed to a script: credentials, and what describes the connection rather than the request. */
const DROPPED_REQUEST = new Set([
  'authorization',
  'cookie',
  'proxy-authorization',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'upgrade',
  'te',
  'trailer',
  'host',
  'content-length',
]);

/** The headers a script's fetch event carries: the caller's, lowercase, repeated values joined, without DROPPED_REQUEST. */
export function publicEndpointRequestHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const key = name.toLowerCase();
    if (value === undefined || DROPPED_REQUEST.has(key)) continue;
    kept[key] = Array.isArray(value) ? value.join(', ') : value;
  }
  return kept;
}

/** Scripts run, in an opaque origin: never as this service's origin. */
const SANDBOX = 'sandbox allow-scripts';

/** Answer headers never passed on: cookies for this origin, and what the service's own HTTP layer sets. */
const DROPPED_ANSWER = new Set([
  'set-cookie',
  'set-cookie2',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-length',
  'content-encoding',
  'trailer',
  'upgrade',
  'strict-transport-security',
]);

/** The headers of a script's answer as the caller gets them: without DROPPED_ANSWER, sandboxed and not sniffed. */
export function publicEndpointAnswerHeaders(headers: Record<string, string>): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const key = name.toLowerCase();
    if (!DROPPED_ANSWER.has(key)) kept[key] = value;
  }
  const csp = kept['content-security-policy'];
  kept['content-security-policy'] = csp ? `${csp}; ${SANDBOX}` : SANDBOX;
  kept['x-content-type-options'] = 'nosniff';
  return kept;
}

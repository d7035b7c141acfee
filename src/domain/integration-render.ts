import LZString from 'lz-string';

/**
 * Rendering an integration's component (GitBook's `renderIntegrationUI`): the GET form's request,
 * and what a script's answer means. Pure.
 */

/** The longest request decompressed (characters): a render request is a component's props and state. */
export const MAX_RENDER_REQUEST_CHARS = 256 * 1024;

export class RenderRequestError extends Error {}

/**
 * The GET form's `request`: JSON compressed with lz-string's `compressToEncodedURIComponent`, as
 * GitBook's clients send it. Its length is bounded by the query's schema (8 KiB), which bounds the
 * work; past MAX_RENDER_REQUEST_CHARS decompressed it is refused.
 */
export function decompressRenderRequest(compressed: string): unknown {
  let text: string | null;
  try {
    text = LZString.decompressFromEncodedURIComponent(compressed);
  } catch {
    text = null;
  }
  if (!text) throw new RenderRequestError('not lz-string compressed JSON (compressToEncodedURIComponent)');
  if (text.length > MAX_RENDER_REQUEST_CHARS)
    throw new RenderRequestError(`more than ${MAX_RENDER_REQUEST_CHARS} characters once decompressed`);
  try {
    return JSON.parse(text);
  } catch {
    throw new RenderRequestError('not JSON once decompressed');
  }
}

export type RenderVerdict =
  { kind: 'ok'; body: string } | { kind: 'refused'; status: number; message: string } | { kind: 'failed'; message: string };

/**
 * What a script's answer to `ui_render` means: a 2xx with ContentKit output (`type` `element` or
 * `complete`) is the answer; a 4xx is the script refusing (its `error` or text as the message); a
 * 5xx, or a 2xx that is not ContentKit output, is the script failing.
 */
export function renderVerdict(status: number, contentType: string | undefined, body: Buffer): RenderVerdict {
  const text = body.toString('utf8');
  if (status >= 400 && status < 500) return { kind: 'refused', status, message: answerMessage(text, status) };
  if (status < 200 || status >= 300) return { kind: 'failed', message: `it answered ${status}: ${answerMessage(text, status)}` };
  let output: unknown;
  try {
    output = JSON.parse(text);
  } catch {
    return { kind: 'failed', message: `its answer is not JSON (${contentType ?? 'no content type'})` };
  }
  const type = typeof output === 'object' && output !== null && !Array.isArray(output) ? (output as { type?: unknown }).type : undefined;
  if (type !== 'element' && type !== 'complete') {
    return { kind: 'failed', message: 'its answer is not ContentKit output (an object of type "element" or "complete")' };
  }
  return { kind: 'ok', body: text };
}

/** The message of an error answer: its JSON `error` (a string or `{message}`), or its first 200 characters. */
function answerMessage(text: string, status: number): string {
  try {
    const parsed = JSON.parse(text) as { error?: unknown };
    const error = parsed?.error;
    if (typeof error === 'string') return error;
    if (typeof error === 'object' && error !== null && typeof (error as { message?: unknown }).message === 'string') {
      return (error as { message: string }).message;
    }
  } catch {
    // not JSON: the text itself
  }
  const trimmed = text.trim().slice(0, 200);
  return trimmed || `status ${status}`;
}

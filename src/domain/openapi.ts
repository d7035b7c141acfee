/**
 * Pure pieces of OpenAPI processing: reading a document (JSON or YAML), finding the other
 * documents its `$ref`s point to, bundling a filesystem into one document for validation,
 * hashing a filesystem so unchanged content is recognised, and the processing error codes.
 *
 * A version's `filesystem` maps a key to a parsed document. Documents fetched from a URL are
 * keyed by that URL (credentials and fragment removed); `$ref`s inside documents are kept as
 * written, so a relative `$ref` resolves against the key of the document that holds it, as JSON
 * Reference says. A spec given as text is keyed `openapi.json` or `openapi.yaml`; it can only
 * point at other documents by absolute URL. The API answers these documents as the list of files
 * GitBook's renderer reads (./openapi-filesystem.ts).
 */
import { createHash } from 'node:crypto';
import { isAlias, isCollection, isPair, isScalar, parseDocument as parseYamlDocument, YAMLParseError } from 'yaml';

export const OPENAPI_SLUG_PATTERN = '^[a-z0-9]+(?:-[a-z0-9]+)*$';

export const PROCESSING_STATES = ['pending', 'progress', 'complete'] as const;
export type ProcessingState = (typeof PROCESSING_STATES)[number];

/** `lastProcessErrorCode` values, as GitBook lists them. */
export const PROCESS_ERROR_CODES = ['FETCH_TIMEOUT', 'FETCH_ERROR', 'PARSE_ERROR'] as const;
export type ProcessErrorCode = (typeof PROCESS_ERROR_CODES)[number];

/**
 * The precise reason of a failed processing, given in `lastProcessedErrors[].code`. The fetch
 * reasons are those of the guarded fetcher; the others are about the documents themselves.
 */
export const PROCESS_ERROR_DETAILS = {
  FETCH_TIMEOUT: 'FETCH_TIMEOUT',
  INVALID_URL: 'FETCH_ERROR',
  PROTOCOL_NOT_ALLOWED: 'FETCH_ERROR',
  ADDRESS_NOT_ALLOWED: 'FETCH_ERROR',
  DNS_FAILURE: 'FETCH_ERROR',
  TOO_LARGE: 'FETCH_ERROR',
  TOO_MANY_REDIRECTS: 'FETCH_ERROR',
  HTTP_ERROR: 'FETCH_ERROR',
  NETWORK_ERROR: 'FETCH_ERROR',
  /** A document is neither JSON nor YAML. */
  SYNTAX_ERROR: 'PARSE_ERROR',
  /** The documents parse but are not a valid Swagger 2.0 / OpenAPI 3.0 / 3.1 definition. */
  INVALID_SPEC: 'PARSE_ERROR',
  /** A `$ref` cannot be followed (relative in a text source, or not http/https). */
  UNRESOLVABLE_REF: 'PARSE_ERROR',
  /** More referenced documents than MAX_SPEC_FILES. */
  TOO_MANY_FILES: 'PARSE_ERROR',
  /**
   * Validating the definition would cost more than it may: its `$ref`s expand past
   * MAX_EXPANDED_NODES (./openapi-validation.ts), or validation ran out of time or memory.
   */
  TOO_COMPLEX: 'PARSE_ERROR',
} as const satisfies Record<string, ProcessErrorCode>;
export type ProcessErrorDetail = keyof typeof PROCESS_ERROR_DETAILS;

export function isProcessErrorDetail(value: string): value is ProcessErrorDetail {
  return Object.hasOwn(PROCESS_ERROR_DETAILS, value);
}

/** The GitBook error code for a precise reason (unknown reasons count as fetch errors). */
export function processErrorCode(detail: string): ProcessErrorCode {
  return isProcessErrorDetail(detail) ? PROCESS_ERROR_DETAILS[detail] : 'FETCH_ERROR';
}

/**
 * Whether trying again may help: timeouts, network and DNS trouble and 5xx/429 answers may pass;
 * a refused address, an invalid document or a 4xx answer will not.
 */
export function isRetryableFailure(detail: string, httpStatus?: number): boolean {
  if (detail === 'FETCH_TIMEOUT' || detail === 'NETWORK_ERROR' || detail === 'DNS_FAILURE') return true;
  if (detail === 'HTTP_ERROR') return httpStatus === undefined || httpStatus >= 500 || httpStatus === 429 || httpStatus === 408;
  return false;
}

/** Most documents one spec may be made of (the entry document included). */
export const MAX_SPEC_FILES = 50;

export class SpecProcessingError extends Error {
  readonly detail: ProcessErrorDetail;
  constructor(detail: ProcessErrorDetail, message: string) {
    super(message);
    this.name = 'SpecProcessingError';
    this.detail = detail;
  }

  /** The detail under the name errors crossing threads carry (lib/bounded-parse.ts). */
  get code(): ProcessErrorDetail {
    return this.detail;
  }
}

export type SpecFormat = 'json' | 'yaml';

/**
 * The most a YAML document may expand to through its aliases, in characters of the data it
 * stands for (about the bytes of its JSON): ten times its text, and never less than 16 MiB. An
 * alias costs a few bytes of text but stands for a whole copy of its anchored node, so 400 aliases
 * of one 500 KB string make 200 MB out of a 500 KB text; real definitions that share schemas
 * through anchors stay far below ten times their size. (`maxAliasCount` counts aliases, not what
 * they expand to, so it stops neither that nor the classic nested "billion laughs" on its own.)
 */
export const YAML_EXPANSION_FACTOR = 10;
export const YAML_EXPANSION_MIN_BYTES = 16 * 1024 * 1024;

export function yamlExpansionLimit(textLength: number): number {
  return Math.max(YAML_EXPANSION_MIN_BYTES, YAML_EXPANSION_FACTOR * textLength);
}

const mebibytes = (bytes: number) => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MiB`;

/**
 * What a parsed YAML document expands to (see yamlExpansionLimit), computed on the node tree
 * before anything is expanded: one walk in document order, where an alias adds the size of the
 * node its anchor names, each anchored node measured once. Stops (SYNTAX_ERROR) as soon as the
 * total passes `limit`, or at an alias inside the very node it names (a cycle).
 */
export function yamlExpandedSize(document: ReturnType<typeof parseYamlDocument>, limit: number, where = 'The document'): number {
  const anchors = new Map<string, unknown>();
  const measured = new Map<unknown, number>();
  const open = new Set<unknown>();
  const tooLarge = () =>
    new SpecProcessingError(
      'SYNTAX_ERROR',
      `${where} expands to more than ${mebibytes(limit)} through its YAML aliases (anchors and *references); ` +
        `a document may expand to ${YAML_EXPANSION_FACTOR} times its size, or ${mebibytes(YAML_EXPANSION_MIN_BYTES)}, whichever is more`,
    );
  const size = (node: unknown): number => {
    if (node === null || node === undefined) return 4;
    if (isAlias(node)) {
      const target = anchors.get(node.source);
      if (target === undefined)
        throw new SpecProcessingError('SYNTAX_ERROR', `${where} refers to an undefined YAML anchor "${node.source}"`);
      if (open.has(target))
        throw new SpecProcessingError('SYNTAX_ERROR', `${where} has a YAML alias "*${node.source}" inside the node it names`);
      return measured.get(target) ?? 0;
    }
    const anchor = (node as { anchor?: string }).anchor;
    if (anchor) {
      anchors.set(anchor, node);
      open.add(node);
    }
    let bytes: number;
    if (isScalar(node)) {
      const value = node.value;
      bytes =
        typeof value === 'string'
          ? value.length + 2
          : value instanceof Uint8Array
            ? Math.ceil(value.byteLength / 3) * 4 + 2
            : String(value).length;
    } else if (isCollection(node)) {
      bytes = 2;
      for (const item of node.items) {
        bytes += isPair(item) ? size(item.key) + size(item.value) + 2 : size(item) + 1;
        if (bytes > limit) throw tooLarge();
      }
    } else {
      bytes = 0;
    }
    if (anchor) {
      open.delete(node);
      measured.set(node, bytes);
    }
    if (bytes > limit) throw tooLarge();
    return bytes;
  };
  return size(document.contents);
}

/** A YAML text as data: parsed to a node tree, its expansion measured (yamlExpandedSize), then converted. */
function parseYaml(text: string, where: string): unknown {
  const document = parseYamlDocument(text);
  if (document.errors.length > 0) throw document.errors[0];
  yamlExpandedSize(document, yamlExpansionLimit(text.length), where);
  return document.toJS({ maxAliasCount: 1000 });
}

/**
 * Parses one document. JSON is tried first when the text looks like JSON (or the content type
 * says so); YAML (a superset of JSON) otherwise, its alias expansion bounded (yamlExpansionLimit).
 * Throws SpecProcessingError SYNTAX_ERROR.
 */
export function parseDocument(text: string, where: string, contentType?: string | null): { document: unknown; format: SpecFormat } {
  const trimmed = text.replace(/^\uFEFF/, '').trim();
  if (trimmed === '') throw new SpecProcessingError('SYNTAX_ERROR', `${where} is empty`);
  const looksJson = /^[[{]/.test(trimmed) || /\bjson\b/i.test(contentType ?? '');
  if (looksJson) {
    try {
      return { document: JSON.parse(trimmed), format: 'json' };
    } catch (error) {
      if (/^[[{]/.test(trimmed) && !/\byaml\b/i.test(contentType ?? '')) {
        // Flow-style YAML also starts with { or [: give YAML a chance before failing.
        try {
          return { document: parseYaml(trimmed, where), format: 'yaml' };
        } catch (yamlError) {
          if (yamlError instanceof SpecProcessingError) throw yamlError;
          throw new SpecProcessingError('SYNTAX_ERROR', `${where} is not valid JSON: ${(error as Error).message}`);
        }
      }
    }
  }
  try {
    return { document: parseYaml(trimmed, where), format: 'yaml' };
  } catch (error) {
    if (error instanceof SpecProcessingError) throw error;
    const message = error instanceof YAMLParseError ? error.message.split('\n')[0] : String((error as Error).message ?? error);
    throw new SpecProcessingError('SYNTAX_ERROR', `${where} is neither valid JSON nor valid YAML: ${message}`);
  }
}

/** A document as a version stores it: parsed (parseDocument), then made JSON (toJsonValue). Runs in a bounded thread. */
export function readSpecDocument(text: string, where: string, contentType?: string | null): { document: unknown; format: SpecFormat } {
  const { document, format } = parseDocument(text, where, contentType);
  return { document: toJsonValue(document), format };
}

/** A URL as a filesystem key: no credentials, no fragment. */
export function documentKey(url: string | URL): string {
  const copy = new URL(typeof url === 'string' ? url : url.href);
  copy.username = '';
  copy.password = '';
  copy.hash = '';
  return copy.href;
}

/** Every `$ref` string in a document, in document order, each once. */
export function refsIn(document: unknown): string[] {
  const seen = new Set<string>();
  const stack: unknown[] = [document];
  const visited = new Set<object>();
  const out: string[] = [];
  while (stack.length > 0) {
    const value = stack.pop();
    if (value === null || typeof value !== 'object' || visited.has(value)) continue;
    visited.add(value);
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push(value[i]);
      continue;
    }
    const record = value as Record<string, unknown>;
    const ref = record.$ref;
    if (typeof ref === 'string' && !seen.has(ref)) {
      seen.add(ref);
      out.push(ref);
    }
    const keys = Object.keys(record);
    for (let i = keys.length - 1; i >= 0; i--) stack.push(record[keys[i]]);
  }
  return out;
}

/**
 * Where a `$ref` of a document points: `null` for a reference inside the same document, or the
 * absolute URL (with credentials, to fetch with; without fragment) of another document.
 * `base` is the URL the document was fetched from, or null for a text source.
 */
export function refTarget(ref: string, base: string | null): string | null {
  if (ref.startsWith('#')) return null;
  let target: URL;
  try {
    target = base === null ? new URL(ref) : new URL(ref, base);
  } catch {
    throw new SpecProcessingError(
      'UNRESOLVABLE_REF',
      base === null
        ? `$ref "${ref}" is relative, but a spec given as text has no location to resolve it against; use an absolute URL or a URL source`
        : `$ref "${ref}" is not a valid reference`,
    );
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') {
    throw new SpecProcessingError(
      'UNRESOLVABLE_REF',
      `$ref "${ref}" points at ${target.protocol} URLs, which are not fetched; use http or https`,
    );
  }
  target.hash = '';
  if (base !== null) {
    const self = new URL(base);
    self.hash = '';
    if (self.href === target.href) return null;
  }
  return target.href;
}

/**
 * The documents a document refers to that still have to be fetched: absolute URLs, without
 * fragment, in document order, leaving out those already `known` (by key).
 */
export function planRefFetches(document: unknown, base: string | null, known: ReadonlySet<string>): string[] {
  const out: string[] = [];
  const planned = new Set<string>();
  for (const ref of refsIn(document)) {
    const target = refTarget(ref, base);
    if (target === null) continue;
    const key = documentKey(target);
    if (known.has(key) || planned.has(key)) continue;
    planned.add(key);
    out.push(target);
  }
  return out;
}

/** JSON with object keys sorted at every level: the same data always gives the same text. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'number' && !Number.isFinite(value)) return 'null';
    return JSON.stringify(value) ?? 'null';
  }
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item === undefined ? null : item)).join(',')}]`;
  if (value instanceof Date) return JSON.stringify(value.toISOString());
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record)
    .filter((key) => record[key] !== undefined)
    .sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`).join(',')}}`;
}

/**
 * Hash of a filesystem's content: independent of key order, whitespace, comments and of JSON
 * versus YAML, so a refresh that fetches the same definition is recognised as unchanged.
 */
export function contentHash(filesystem: Record<string, unknown>): string {
  return createHash('sha256').update(canonicalJson(filesystem)).digest('hex');
}

/**
 * Turns JSON values YAML may produce that JSON cannot carry (dates, binary, maps with non-string
 * keys, non-finite numbers) into JSON ones, so what is stored is what is hashed.
 */
export function toJsonValue(value: unknown): unknown {
  return JSON.parse(
    JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? Number(v) : v instanceof Map ? Object.fromEntries(v) : v)) ??
      'null',
  );
}

const BUNDLE_KEY = 'x-docs-bundle';

/** The URL relative `$ref`s of a document resolve against: its key when that is a URL. */
export function baseOf(key: string): string | null {
  return /^https?:\/\//i.test(key) ? key : null;
}

/**
 * One self-contained document for validation: the entry document, with every other document of
 * the filesystem placed under `x-docs-bundle` and every `$ref` rewritten to point inside it, so
 * the validator resolves everything without fetching anything. Relative `$ref`s resolve against
 * the key of the document holding them (text sources have no base). Inputs are not changed.
 */
export function bundleForValidation(filesystem: Record<string, unknown>, entryKey: string): Record<string, unknown> {
  const others = Object.keys(filesystem).filter((key) => key !== entryKey);
  const index = new Map(others.map((key, i) => [key, i]));
  const pointerTo = (key: string, fragment: string) => {
    const pointer = fragment.startsWith('#') ? fragment.slice(1) : '';
    return key === entryKey ? `#${pointer}` : `#/${BUNDLE_KEY}/${index.get(key)}${pointer}`;
  };
  const rewrite = (value: unknown, holder: string): unknown => {
    if (value === null || typeof value !== 'object') return value;
    if (Array.isArray(value)) return value.map((item) => rewrite(item, holder));
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value as Record<string, unknown>)) {
      if (key === '$ref' && typeof inner === 'string') {
        const hashAt = inner.indexOf('#');
        const fragment = hashAt >= 0 ? inner.slice(hashAt) : '';
        const target = refTarget(inner, baseOf(holder));
        if (target === null) {
          out[key] = pointerTo(holder, fragment);
        } else {
          const targetKey = documentKey(target);
          if (targetKey !== entryKey && !index.has(targetKey)) {
            throw new SpecProcessingError('UNRESOLVABLE_REF', `$ref "${inner}" points at ${targetKey}, which was not fetched`);
          }
          out[key] = pointerTo(targetKey, fragment);
        }
      } else {
        out[key] = rewrite(inner, holder);
      }
    }
    return out;
  };
  const entry = rewrite(filesystem[entryKey], entryKey);
  if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) {
    throw new SpecProcessingError('INVALID_SPEC', 'The definition must be an object with `openapi` or `swagger` at its top level');
  }
  if (others.length === 0) return entry as Record<string, unknown>;
  return { ...(entry as Record<string, unknown>), [BUNDLE_KEY]: others.map((key) => rewrite(filesystem[key], key)) };
}

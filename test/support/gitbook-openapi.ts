/**
 * Validates response bodies against the schemas of GitBook's public OpenAPI document
 * (the copy bundled with `@gitbook/api`), so tests can assert wire compatibility.
 *
 * The whole document is registered with Ajv under DOCUMENT_ID and every validator is compiled
 * from `{ $ref: '<DOCUMENT_ID>#/paths/...' }`, so `#/components/...` references inside the
 * document resolve exactly as they do in the original.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Ajv2020 } from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { CONTRACT_DIFFERENCES, ERRATA } from './gitbook-exceptions.ts';

type Json = Record<string, unknown>;

interface OpenApiOperation {
  operationId?: string;
  responses?: Record<string, Json>;
}

interface OpenApiDocument {
  openapi: string;
  servers?: Array<{ url: string }>;
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: Record<string, Record<string, Json>>;
}

export interface ValidationResult {
  valid: boolean;
  errors: string[];
}

const DOCUMENT_ID = 'https://gitbook.test/openapi.json';
const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);
/** OpenAPI-only schema keywords and vendor extensions used in the document; validation ignores them. */
const OPENAPI_KEYWORDS = ['discriminator', 'example', 'xml', 'externalDocs', 'x-typescript', 'x-internal'];
/** Non-standard string formats used by the document that carry no checkable syntax. */
const FREE_FORMATS = ['emoji', 'icon'];

const require = createRequire(import.meta.url);
const specPath = require.resolve('@gitbook/api/spec/openapi.json');
const document = JSON.parse(readFileSync(specPath, 'utf8')) as OpenApiDocument;

if (!/^3\.1\./.test(document.openapi)) {
  throw new Error(`${specPath} is OpenAPI ${document.openapi}; this helper validates with JSON Schema 2020-12 and expects OpenAPI 3.1`);
}

// The corrections of GitBook's schemas and the contract's differences, each with its reason, are listed in one place.
for (const erratum of [...ERRATA, ...CONTRACT_DIFFERENCES]) erratum.apply(document.components.schemas as Record<string, Json>);

/** Path prefix of the API base URL (`{host}/v1` → `/v1`); concrete request paths carry it, templates do not. */
const basePath = (() => {
  const url = document.servers?.[0]?.url ?? '';
  const path = url.replace(/^(\{[^}]+\}|[a-z]+:\/\/[^/]+)/i, '');
  return path.replace(/\/+$/, '');
})();

export const operations: Map<string, { method: string; path: string; responses: string[] }> = new Map();
const operationObjects = new Map<string, OpenApiOperation>();

for (const [path, item] of Object.entries(document.paths)) {
  for (const [method, operation] of Object.entries(item)) {
    if (!HTTP_METHODS.has(method) || !operation?.operationId) continue;
    operations.set(operation.operationId, {
      method: method.toUpperCase(),
      path,
      responses: Object.keys(operation.responses ?? {}),
    });
    operationObjects.set(operation.operationId, operation);
  }
}

// ajv-formats is CommonJS: the default import is `module.exports`, which carries the plugin as `.default`.
const addFormats = ajvFormats.default;

const ajvs = new Map<boolean, Ajv2020>();

/**
 * The document's Ajv: one that stops at the first error (fast, even on GitBook's nested `oneOf`s of
 * document nodes), and one that lists them all, compiled only to explain a failure.
 */
function getAjv(allErrors = true): Ajv2020 {
  const known = ajvs.get(allErrors);
  if (known) return known;
  const instance = new Ajv2020({ strict: false, allErrors, validateFormats: true });
  addFormats(instance);
  for (const keyword of OPENAPI_KEYWORDS) instance.addKeyword(keyword);
  for (const format of FREE_FORMATS) instance.addFormat(format, true);
  instance.addSchema(document as unknown as Json, DOCUMENT_ID);
  ajvs.set(allErrors, instance);
  return instance;
}

function pointerSegment(segment: string): string {
  return encodeURIComponent(segment.replace(/~/g, '~0').replace(/\//g, '~1'));
}

function pointer(segments: string[]): string {
  return '#/' + segments.map(pointerSegment).join('/');
}

/** Follows a `#/components/...` reference inside the document, returning the target and its pointer segments. */
function followLocalRef(ref: string): { value: Json; segments: string[] } {
  if (!ref.startsWith('#/')) throw new Error(`Unsupported reference ${ref}`);
  const segments = ref
    .slice(2)
    .split('/')
    .map((part) => decodeURIComponent(part).replace(/~1/g, '/').replace(/~0/g, '~'));
  let value: unknown = document;
  for (const segment of segments) {
    value = (value as Json | undefined)?.[segment];
    if (value === undefined) throw new Error(`Dangling reference ${ref} in the GitBook OpenAPI document`);
  }
  return { value: value as Json, segments };
}

function requireOperation(operationId: string): OpenApiOperation {
  const operation = operationObjects.get(operationId);
  if (!operation) {
    throw new Error(`Unknown GitBook operationId "${operationId}" (not in ${specPath})`);
  }
  return operation;
}

function defaultStatus(operationId: string): number {
  const declared = operations.get(operationId)!.responses;
  const success = declared.find((code) => /^2\d\d$/.test(code));
  if (!success) {
    throw new Error(`GitBook operation ${operationId} declares no 2xx response (it declares ${declared.join(', ')})`);
  }
  return Number(success);
}

/** Pointer (from the document root) to the JSON schema of a response, or undefined when it has no JSON body. */
function responseSchemaPointer(operationId: string, status: number): string | undefined {
  const operation = requireOperation(operationId);
  const info = operations.get(operationId)!;
  const responses = operation.responses ?? {};
  const key = [String(status), `${String(status)[0]}XX`, 'default'].find((candidate) => candidate in responses);
  if (key === undefined) {
    throw new Error(`GitBook operation ${operationId} declares no ${status} response (it declares ${info.responses.join(', ')})`);
  }
  let response = responses[key];
  let segments = ['paths', info.path, info.method.toLowerCase(), 'responses', key];
  while (typeof response.$ref === 'string') {
    ({ value: response, segments } = followLocalRef(response.$ref));
  }
  const content = response.content as Record<string, Json> | undefined;
  if (!content?.['application/json']?.schema) return undefined;
  return pointer([...segments, 'content', 'application/json', 'schema']);
}

const validators = new Map<string, ValidateFunction>();

/** The validator of the schema at `target` (a pointer from the document root); cached per instance. */
function compiledAt(target: string, allErrors: boolean): ValidateFunction {
  const cacheKey = `${allErrors} ${target}`;
  let validate = validators.get(cacheKey);
  if (!validate) {
    validate = getAjv(allErrors).compile({ $ref: DOCUMENT_ID + target });
    validators.set(cacheKey, validate);
  }
  return validate;
}

/** The errors of `value` against the schema at `target`: none when it is valid. */
function errorsAt(target: string, value: unknown): string[] {
  if (compiledAt(target, false)(value)) return [];
  const explain = compiledAt(target, true);
  explain(value);
  const errors = [...new Set((explain.errors ?? []).map(formatError))];
  if (errors.length < 40) return errors;
  // Nested `oneOf`s report every branch of every level: the deepest paths say what is wrong.
  const depth = (e: string) => e.split(' ')[0].split('/').length;
  const deepest = Math.max(...errors.map(depth));
  return errors.filter((e) => depth(e) >= deepest - 1).slice(0, 40);
}

function formatError(error: ErrorObject): string {
  let message = error.message ?? error.keyword;
  if (error.keyword === 'enum') {
    const allowed = (error.params as { allowedValues: unknown[] }).allowedValues;
    message += ': ' + allowed.map((value) => JSON.stringify(value)).join(', ');
  } else if (error.keyword === 'additionalProperties') {
    message += ` (${JSON.stringify((error.params as { additionalProperty: string }).additionalProperty)})`;
  }
  return `${error.instancePath || '/'} ${message}`;
}

/**
 * Returns a validator for the JSON body GitBook documents for `operationId` answering `status`
 * (default: the first 2xx response the operation declares). Responses without a JSON body
 * (204, 205...) only accept an empty body (`undefined`, `null` or `''`).
 */
export function responseValidator(operationId: string, status?: number): (body: unknown) => ValidationResult {
  requireOperation(operationId);
  const code = status ?? defaultStatus(operationId);
  const target = responseSchemaPointer(operationId, code);
  return (body: unknown): ValidationResult => {
    if (target === undefined) {
      const empty = body === undefined || body === null || body === '';
      return { valid: empty, errors: empty ? [] : [`/ must be empty: ${operationId} ${code} has no JSON body`] };
    }
    const errors = errorsAt(target, body);
    return { valid: errors.length === 0, errors };
  };
}

/** Jest-friendly assertion: throws with every validation error when `body` does not match GitBook's schema. */
export function expectMatchesGitBook(operationId: string, body: unknown, status?: number): void {
  const { valid, errors } = responseValidator(operationId, status)(body);
  if (valid) return;
  const code = status ?? defaultStatus(operationId);
  const { method, path } = operations.get(operationId)!;
  throw new Error(
    `Response body does not match GitBook's ${operationId} (${method} ${path}) ${code} schema:\n` +
      errors.map((e) => `  - ${e}`).join('\n') +
      `\nbody: ${JSON.stringify(body, null, 2)?.slice(0, 4000)}`,
  );
}

/**
 * Throws with every validation error when `value` does not match the component schema `name` of
 * GitBook's document (`#/components/schemas/<name>`): for parts of a body whose operation schema
 * cannot be met as written, such as a `oneOf` whose branches all accept the same objects.
 */
export function expectMatchesGitBookSchema(name: string, value: unknown): void {
  const errors = schemaErrors(name, value);
  if (errors.length === 0) return;
  throw new Error(
    `Value does not match GitBook's ${name} schema:\n` +
      errors.map((e) => `  - ${e}`).join('\n') +
      `\nvalue: ${JSON.stringify(value, null, 2)?.slice(0, 4000)}`,
  );
}

/** The errors of `value` against the component schema `name` of GitBook's document: none when it is valid. */
export function schemaErrors(name: string, value: unknown): string[] {
  if (!document.components.schemas?.[name]) throw new Error(`Unknown GitBook schema "${name}"`);
  return errorsAt(pointer(['components', 'schemas', name]), value);
}

const templates = [...operations].map(([operationId, { method, path }]) => {
  const segments = path.split('/').filter(Boolean);
  return {
    operationId,
    method,
    segments,
    // Literal segments first: `/spaces/{spaceId}/content` beats `/spaces/{spaceId}/{other}`.
    score: segments.map((s) => (/^\{.+\}$/.test(s) ? '0' : '1')).join(''),
  };
});
templates.sort((a, b) => (a.score < b.score ? 1 : a.score > b.score ? -1 : 0));

/**
 * The operationId GitBook's document gives to `method` on a concrete path such as `/v1/spaces/abc123`
 * (the `/v1` base path and any query string are optional).
 */
export function operationFor(method: string, path: string): string | undefined {
  let bare = path.replace(/[?#].*$/, '');
  if (basePath && (bare === basePath || bare.startsWith(basePath + '/'))) bare = bare.slice(basePath.length);
  const segments = bare
    .split('/')
    .filter(Boolean)
    .map((s) => {
      try {
        return decodeURIComponent(s);
      } catch {
        return s;
      }
    });
  const verb = method.toUpperCase();
  const match = templates.find(
    (t) =>
      t.method === verb && t.segments.length === segments.length && t.segments.every((s, i) => /^\{.+\}$/.test(s) || s === segments[i]),
  );
  return match?.operationId;
}

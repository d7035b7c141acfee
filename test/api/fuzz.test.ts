/**
 * Hostile input, driven by the service's own OpenAPI document: for every operation, requests with
 * wrong types, missing required fields, values just past each documented bound, unknown enum values,
 * malformed and foreign ids, U+0000 in strings, oversized bodies and bad JSON, sent as an admin.
 * Every answer must be a 4xx in the error shape, and the data present before must be unchanged.
 * Generation is deterministic (a seeded PRNG); every case is meant to be refused, and a body case is
 * only sent when Ajv (without coercion) says the body breaks its schema, so nothing is ever written.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Ajv } from 'ajv';
import ajvFormats from 'ajv-formats';
import { createTestOrg, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { edit, newChangeRequest, newSpace } from '../support/fixtures.ts';

type Schema = Record<string, any>;
interface Case {
  op: string;
  kind: string;
  method: string;
  url: string;
  body?: string;
}

const BODY_LIMIT = 64 * 1024;
const MAX_CASES_PER_OPERATION = 40;
const BATCH = 8;

let t: TestApp;
let org: TestOrg;
let other: TestOrg;
const own: Record<string, string> = {};
const foreign: Record<string, string> = {};

/** mulberry32: the same sequence on every run. */
function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = a;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

async function fixtures(o: TestOrg, ids: Record<string, string>, label: string) {
  const api = o.members.admin.api;
  ids.organizationId = o.id;
  ids.userId = o.members.read.userId;
  const collection = await api.post(`/v1/orgs/${o.id}/collections`, { title: `${label} collection` });
  expect(collection.status).toBe(201);
  ids.collectionId = collection.body.id;
  const space = await newSpace(api, o.id, { title: `${label} space` });
  ids.spaceId = space.id;
  const cr = await newChangeRequest(api, space.id, `${label} edit`);
  const edited = await edit(api, space.id, cr.id, [
    { operation: 'insert_page', title: `${label} page`, document: { markdown: 'Hello\n' } },
  ]);
  ids.pageId = edited.changes[0].page.id;
  ids.changeRequestId = cr.id;
}

beforeAll(async () => {
  t = await startTestApp({ BODY_LIMIT: String(BODY_LIMIT) });
  org = await createTestOrg(t, 'Fuzz org');
  other = await createTestOrg(t, 'Fuzz other org');
  await fixtures(org, own, 'Own');
  await fixtures(other, foreign, 'Foreign');
});
afterAll(() => t.close());

/** Representative reads whose answers must be identical before and after the run. */
async function snapshot() {
  const a = org.members.admin.api;
  const b = other.members.admin.api;
  const urls = [
    [a, `/v1/orgs/${own.organizationId}/spaces`],
    [a, `/v1/spaces/${own.spaceId}`],
    [a, `/v1/spaces/${own.spaceId}/content/pages`],
    [a, `/v1/spaces/${own.spaceId}/change-requests/${own.changeRequestId}`],
    [a, `/v1/spaces/${own.spaceId}/change-requests/${own.changeRequestId}/content/pages`],
    [a, `/v1/orgs/${own.organizationId}/members`],
    [a, `/v1/collections/${own.collectionId}`],
    [a, `/v1/orgs/${own.organizationId}/custom-fields`],
    [b, `/v1/orgs/${foreign.organizationId}/spaces`],
    [b, `/v1/spaces/${foreign.spaceId}/change-requests/${foreign.changeRequestId}/content/pages`],
    [b, `/v1/collections/${foreign.collectionId}`],
  ] as const;
  const out: Record<string, unknown> = {};
  for (const [api, url] of urls) {
    const res = await api.get(url);
    expect(res.status).toBe(200);
    out[url] = res.body;
  }
  return out;
}

// ---- schema helpers ----

function resolve(schema: Schema | undefined, doc: Schema): Schema {
  let s = schema ?? {};
  for (let i = 0; i < 10 && typeof s.$ref === 'string'; i++) {
    s =
      s.$ref
        .split('/')
        .slice(1)
        .reduce((node: any, key: string) => node?.[key], doc) ?? {};
  }
  return s;
}

function typeOf(s: Schema): string | undefined {
  if (Array.isArray(s.type)) return s.type.find((x: string) => x !== 'null');
  return s.type;
}

/** A small value the schema (probably) accepts: required properties only. */
function sample(schema: Schema | undefined, doc: Schema, depth = 0): unknown {
  const s = resolve(schema, doc);
  if (depth > 6) return null;
  if ('const' in s) return s.const;
  if (Array.isArray(s.enum)) return s.enum[0];
  if ('default' in s) return s.default;
  const variants = s.anyOf ?? s.oneOf;
  if (Array.isArray(variants)) return sample(variants.find((v: Schema) => resolve(v, doc).type !== 'null') ?? variants[0], doc, depth + 1);
  switch (typeOf(s)) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const key of s.required ?? []) out[key] = sample(s.properties?.[key], doc, depth + 1);
      return out;
    }
    case 'array':
      return Array.from({ length: s.minItems ?? 0 }, () => sample(s.items, doc, depth + 1));
    case 'string':
      if (s.format === 'uri' || s.format === 'url') return 'https://example.com/x';
      if (s.format === 'date-time') return '2024-01-01T00:00:00Z';
      if (s.format === 'email') return 'a@example.com';
      return 'a'.repeat(Math.max(s.minLength ?? 1, 1));
    case 'integer':
    case 'number':
      return s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : 1);
    case 'boolean':
      return false;
    case 'null':
      return null;
    default:
      return 'a';
  }
}

/** `base` with the value at `path` replaced (or removed when `value` is REMOVE), building parents from their schemas. */
const REMOVE = Symbol('remove');
function setAt(schema: Schema, doc: Schema, base: unknown, path: (string | number)[], value: unknown): unknown {
  if (path.length === 0) return value;
  const s = resolve(schema, doc);
  const [head, ...rest] = path;
  if (typeof head === 'number') {
    const arr = Array.isArray(base) ? [...base] : [];
    const current = arr.length > 0 ? arr[0] : sample(s.items, doc);
    const next = setAt(s.items ?? {}, doc, current, rest, value);
    if (next === REMOVE) return arr.slice(1);
    arr[0] = next;
    return arr;
  }
  const obj: Record<string, unknown> = base && typeof base === 'object' && !Array.isArray(base) ? { ...(base as object) } : {};
  const childSchema = s.properties?.[head] ?? (typeof s.additionalProperties === 'object' ? s.additionalProperties : {});
  const current = head in obj ? obj[head] : sample(childSchema, doc);
  const next = setAt(childSchema, doc, current, rest, value);
  if (next === REMOVE) delete obj[head];
  else obj[head] = next;
  return obj;
}

interface Mutation {
  kind: string;
  path: (string | number)[];
  value: unknown;
}

const WRONG: Record<string, unknown[]> = {
  string: [12, true, { a: 1 }],
  integer: ['12', 1.5, true],
  number: ['12', true, [1]],
  boolean: ['true', 1, null],
  object: ['x', 12, [1]],
  array: ['x', 12, { a: 1 }],
};

/** Invalid variations of every node of a schema, with the bounds they cross (for the report). */
function mutations(
  schema: Schema,
  doc: Schema,
  rnd: () => number,
  path: (string | number)[] = [],
  depth = 0,
  out: Mutation[] = [],
): Mutation[] {
  const s = resolve(schema, doc);
  if (depth > 4) return out;
  const type = typeOf(s);
  const where = path.join('.') || '(body)';
  if (type && WRONG[type] && !(Array.isArray(s.type) && s.type.length > 2)) {
    const wrong = WRONG[type];
    out.push({ kind: `wrong type ${type}`, path, value: wrong[Math.floor(rnd() * wrong.length)] });
  }
  const variants: Schema[] = (s.anyOf ?? s.oneOf ?? []).map((v: Schema) => resolve(v, doc));
  const literals = variants.filter((v) => typeof v.const === 'string' || Array.isArray(v.enum));
  if (literals.length > 0 && literals.length === variants.filter((v) => v.type !== 'null').length) {
    // A union of string literals (TypeBox's way of writing an enum).
    out.push({ kind: 'unknown enum', path, value: 'not-a-documented-value' });
    out.push({ kind: 'wrong type enum', path, value: 12 });
  }
  if (Array.isArray(s.enum) && s.enum.every((v: unknown) => typeof v === 'string')) {
    out.push({ kind: 'unknown enum', path, value: 'not-a-documented-value' });
  }
  if (type === 'string') {
    if (s.maxLength !== undefined) out.push({ kind: `maxLength+1 (${where} ${s.maxLength})`, path, value: 'a'.repeat(s.maxLength + 1) });
    if (s.minLength) out.push({ kind: `minLength-1 (${where} ${s.minLength})`, path, value: 'a'.repeat(s.minLength - 1) });
    if (s.format) out.push({ kind: `bad format ${s.format}`, path, value: 'not a ' + s.format + ' \u0001' });
    if (s.pattern) out.push({ kind: 'pattern mismatch', path, value: '\u0001 !' });
    out.push({ kind: 'U+0000 in a string', path, value: 'a\u0000b' });
  }
  if (type === 'integer' || type === 'number') {
    if (s.maximum !== undefined) out.push({ kind: `maximum+1 (${where} ${s.maximum})`, path, value: s.maximum + 1 });
    if (s.exclusiveMaximum !== undefined) out.push({ kind: `exclusiveMaximum (${where})`, path, value: s.exclusiveMaximum });
    if (s.minimum !== undefined) out.push({ kind: `minimum-1 (${where} ${s.minimum})`, path, value: s.minimum - 1 });
    if (s.exclusiveMinimum !== undefined) out.push({ kind: `exclusiveMinimum (${where})`, path, value: s.exclusiveMinimum });
    out.push({ kind: 'huge number', path, value: 1e308 });
  }
  if (type === 'array') {
    const item = sample(s.items, doc);
    if (s.maxItems !== undefined && s.maxItems < 2000) {
      out.push({ kind: `maxItems+1 (${where} ${s.maxItems})`, path, value: Array.from({ length: s.maxItems + 1 }, () => item) });
    }
    if (s.minItems)
      out.push({ kind: `minItems-1 (${where} ${s.minItems})`, path, value: Array.from({ length: s.minItems - 1 }, () => item) });
    if (s.items) mutations(s.items, doc, rnd, [...path, 0], depth + 1, out);
  }
  if (type === 'object') {
    for (const key of s.required ?? []) out.push({ kind: 'missing required', path: [...path, key], value: REMOVE });
    for (const [key, child] of Object.entries<Schema>(s.properties ?? {})) mutations(child, doc, rnd, [...path, key], depth + 1, out);
    if (typeof s.additionalProperties === 'object' && Object.keys(s.additionalProperties).length > 0) {
      mutations(s.additionalProperties, doc, rnd, [...path, 'fuzzKey'], depth + 1, out);
    }
  }
  return out;
}

// ---- cases ----

interface Operation {
  method: string;
  path: string;
  params: { name: string; in: string; required?: boolean; schema?: Schema }[];
  body?: Schema;
}

function operations(doc: Schema): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries<Schema>(doc.paths)) {
    for (const [method, op] of Object.entries<Schema>(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      ops.push({
        method: method.toUpperCase(),
        path,
        params: [...(item.parameters ?? []), ...(op.parameters ?? [])].map((p) => resolve(p, doc)) as Operation['params'],
        body: op.requestBody?.content?.['application/json']?.schema,
      });
    }
  }
  return ops;
}

const MALFORMED_IDS = ['x', 'not an id', '%00', '..%2F..%2Fetc', '%E2%98%83%F0%9F%92%A9', 'a'.repeat(300), '-1', '0'];

function buildCases(doc: Schema, ajv: Ajv): Case[] {
  const rnd = prng(20261123);
  const cases: Case[] = [];
  for (const op of operations(doc)) {
    const name = `${op.method} ${op.path}`;
    const pathParams = op.params.filter((p) => p.in === 'path').map((p) => p.name);
    const query = op.params.filter((p) => p.in === 'query');
    const url = (ids: Record<string, string>, q = '') =>
      op.path.replace(/\{(\w+)\}/g, (_, key: string) => encodeURIComponent(ids[key] ?? `fuzz-missing-${key}`)) + q;
    const bodySchema = op.body ? resolve(op.body, doc) : undefined;
    const baseBody = bodySchema ? sample(bodySchema, doc) : undefined;
    const baseJson = baseBody === undefined ? undefined : JSON.stringify(baseBody);
    const mine: Case[] = [];
    const push = (kind: string, method: string, u: string, body?: string) => mine.push({ op: name, kind, method, url: u, body });

    // Malformed and foreign ids, one parameter at a time; the rest are this organization's own.
    for (const param of pathParams) {
      for (const bad of MALFORMED_IDS.slice(0, 3 + Math.floor(rnd() * (MALFORMED_IDS.length - 3)))) {
        const u = op.path.replace(/\{(\w+)\}/g, (_, key: string) =>
          key === param ? bad : encodeURIComponent(own[key] ?? `fuzz-missing-${key}`),
        );
        push(`malformed id ${param}`, op.method, u, baseJson);
      }
      if (foreign[param]) push(`foreign id ${param}`, op.method, url({ ...own, [param]: foreign[param] }), baseJson);
    }
    if (pathParams.length > 0 && pathParams.every((p) => foreign[p])) push('all foreign ids', op.method, url(foreign), baseJson);

    // Query parameters: wrong types, bounds, unknown enums, U+0000, and missing required ones.
    const baseQuery: Record<string, string> = {};
    for (const p of query) if (p.required) baseQuery[p.name] = String(sample(p.schema, doc));
    const qs = (values: Record<string, string>) => {
      const s = new URLSearchParams(values).toString();
      return s ? `?${s}` : '';
    };
    for (const p of query) {
      const s = resolve(p.schema, doc);
      const type = typeOf(s);
      const bad: [string, string][] = [];
      if (type === 'integer' || type === 'number') bad.push([`query ${p.name} wrong type`, 'abc'], [`query ${p.name} fraction`, '1.5']);
      if (type === 'boolean') bad.push([`query ${p.name} wrong type`, 'maybe']);
      if (s.maximum !== undefined) bad.push([`query maximum+1 (${p.name} ${s.maximum})`, String(s.maximum + 1)]);
      if (s.minimum !== undefined) bad.push([`query minimum-1 (${p.name} ${s.minimum})`, String(s.minimum - 1)]);
      if (s.maxLength !== undefined) bad.push([`query maxLength+1 (${p.name} ${s.maxLength})`, 'a'.repeat(s.maxLength + 1)]);
      if (s.minLength) bad.push([`query minLength-1 (${p.name} ${s.minLength})`, 'a'.repeat(s.minLength - 1)]);
      if (Array.isArray(s.enum)) bad.push([`query ${p.name} unknown enum`, 'not-a-documented-value']);
      if (type === 'string' && !s.enum) bad.push([`query ${p.name} U+0000`, 'a\u0000b']);
      for (const [kind, value] of bad) push(kind, op.method, url(own, qs({ ...baseQuery, [p.name]: value })), baseJson);
      if (p.required) {
        const { [p.name]: _dropped, ...rest } = baseQuery;
        push(`query missing required ${p.name}`, op.method, url(own, qs(rest)), baseJson);
      }
    }

    // Bodies: every mutation Ajv confirms invalid, the wrong top-level types, bad JSON, oversized.
    if (bodySchema) {
      const validate = ajv.compile(bodySchema);
      const bodyCases: Case[] = [];
      for (const m of mutations(bodySchema, doc, rnd)) {
        const body = setAt(bodySchema, doc, baseBody, m.path, m.value);
        // U+0000 is schema-valid but must still be refused (PostgreSQL cannot store it): sent regardless.
        if (body === REMOVE || (m.kind !== 'U+0000 in a string' && validate(body))) continue;
        const json = JSON.stringify(body);
        if (json === undefined || json.length > BODY_LIMIT) continue;
        bodyCases.push({ op: name, kind: m.kind, method: op.method, url: url(own), body: json });
      }
      for (const c of bodyCases.filter((c) => c.kind === 'U+0000 in a string').slice(0, 1)) mine.push(c);
      const rest = bodyCases.filter((c) => c.kind !== 'U+0000 in a string');
      // Keep the operation bounded: every kind once first, then others in a seeded order.
      const seen = new Set<string>();
      const firsts = rest.filter((c) => !seen.has(c.kind) && seen.add(c.kind));
      const others = rest.filter((c) => !firsts.includes(c)).sort(() => rnd() - 0.5);
      mine.push(...firsts, ...others.slice(0, Math.max(0, MAX_CASES_PER_OPERATION - mine.length - firsts.length)));
      for (const [kind, body] of [
        ['body top-level array', '[]'],
        ['body top-level string', '"x"'],
        ['body null', 'null'],
        ['bad JSON', '{"title": '],
        ['bad JSON', '{"a":1}}'],
        ['oversized body', JSON.stringify({ padding: 'x'.repeat(BODY_LIMIT + 10) })],
      ] as const) {
        if (kind === 'body null' && validate(null)) continue;
        if (kind === 'body top-level array' && validate([])) continue;
        if (kind === 'body top-level string' && validate('x')) continue;
        push(kind, op.method, url(own), body);
      }
    }
    cases.push(...mine);
  }
  return cases;
}

describe('U+0000', () => {
  it('is refused with a 400 naming the field in a custom-field text value (PostgreSQL jsonb cannot hold it)', async () => {
    const api = org.members.admin.api;
    const name = 'fuzz-text';
    expect((await api.post(`/v1/orgs/${own.organizationId}/custom-fields`, { name, type: 'text' })).status).toBe(201);
    const res = await api.patch(`/v1/spaces/${own.spaceId}/custom-fields`, { values: { [name]: { value: 'a\u0000b' } } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: { code: 400, message: `body.values.${name}.value must not contain the character U+0000` } });
    const title = await api.patch(`/v1/spaces/${own.spaceId}`, { title: 'nul\u0000' });
    expect(title.status).toBe(400);
    expect(title.body.error.message).toBe('body.title must not contain the character U+0000');
    const query = await api.get(`/v1/orgs/${own.organizationId}/spaces?title=a%00`);
    expect(query.body).toEqual({ error: { code: 400, message: 'The request URL must not contain the character U+0000 (%00)' } });
  });
});

describe('fuzzing every operation of /openapi.json', () => {
  it('answers every hostile request with a 4xx in the error shape and changes nothing', async () => {
    const started = Date.now();
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const ajv = new Ajv({ strict: false, allErrors: false, coerceTypes: false, validateFormats: true });
    (ajvFormats as unknown as (ajv: Ajv) => Ajv)(ajv);
    const cases = buildCases(doc, ajv);
    const before = await snapshot();

    const token = org.members.admin.token;
    const failures: string[] = [];
    const statusCounts: Record<string, number> = {};
    const noOpDeletes = new Set<string>();
    for (let i = 0; i < cases.length; i += BATCH) {
      await Promise.all(
        cases.slice(i, i + BATCH).map(async (c) => {
          const res = await t.app.inject({
            method: c.method as 'GET',
            url: c.url,
            headers: { authorization: `Bearer ${token}`, ...(c.body !== undefined ? { 'content-type': 'application/json' } : {}) },
            payload: c.body,
          });
          statusCounts[res.statusCode] = (statusCounts[res.statusCode] ?? 0) + 1;
          let body: any;
          try {
            body = res.json();
          } catch {
            body = res.body;
          }
          const shaped =
            body &&
            typeof body === 'object' &&
            body.error?.code === res.statusCode &&
            typeof body.error?.message === 'string' &&
            Object.keys(body).length === 1;
          // Removing what is not there is a no-op answered 204 (idempotent DELETE); the snapshot shows nothing changed.
          if (c.method === 'DELETE' && res.statusCode === 204 && /id/.test(c.kind)) {
            noOpDeletes.add(c.op);
            return;
          }
          if (res.statusCode < 400 || res.statusCode >= 500 || !shaped) {
            failures.push(
              `${c.op} [${c.kind}] ${c.method} ${c.url.slice(0, 160)} ${c.body?.slice(0, 160) ?? ''} -> ${res.statusCode} ${res.body.slice(0, 200)}`,
            );
          }
        }),
      );
    }
    const after = await snapshot();

    const ops = new Set(cases.map((c) => c.op));
    const kinds: Record<string, number> = {};
    for (const c of cases) {
      const k = c.kind.replace(/ \(.*\)$/, '').replace(/ (wrong type|unknown enum|fraction|U\+0000)$/, ' $1');
      kinds[k] = (kinds[k] ?? 0) + 1;
    }
    const bounds = [...new Set(cases.map((c) => /\((.*)\)$/.exec(c.kind)?.[1]).filter(Boolean))];
    console.log(
      [
        `fuzz: ${cases.length} requests over ${ops.size} operations in ${Date.now() - started} ms`,
        `statuses: ${JSON.stringify(statusCounts)}`,
        `case kinds: ${JSON.stringify(kinds)}`,
        `documented bounds crossed (${bounds.length}): ${bounds.join(', ')}`,
        `idempotent DELETEs answering 204 for an absent id: ${[...noOpDeletes].join(' | ')}`,
        `operations: ${[...ops].join(' | ')}`,
      ].join('\n'),
    );

    expect(failures).toEqual([]);
    expect(after).toEqual(before);
    expect(ops.size).toBeGreaterThan(100);
  });
});

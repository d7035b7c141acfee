import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestApp, type TestApp } from '../support/harness.ts';
import { ContentByUrl } from '../../src/api/urls/schemas.ts';
import { ChangeRequestList, ChangeRequestSchema, ContentChangesAnswer, MergeResult } from '../../src/api/change-requests/schemas.ts';
import {
  JsonDocument,
  RevisionFile,
  RevisionFileList,
  RevisionPage,
  RevisionPageMetaLinks,
  RevisionPages,
  RevisionReusableContent,
  RevisionSchema,
  RevisionSemanticChanges,
} from '../../src/api/revisions/schemas.ts';

/**
 * Every operation of the API document says what it answers when it succeeds: a route answering
 * JSON declares its 2xx schema (so the document shows it and tests can check it), a download its
 * content type, a redirect its 3xx. And the answer schemas of content, revisions and change
 * requests can only document an answer, never cut it (Fastify writes only the fields an object
 * schema declares).
 */

type Json = Record<string, any>;

/**
 * Operations left without a declared success answer, each with the reason. Only what truly cannot
 * declare one belongs here.
 */
const UNDECLARED: Record<string, string> = {};

let t: TestApp;
let operations: { key: string; responses: Record<string, Json> }[];

beforeAll(async () => {
  t = await startTestApp();
  const doc = t.app.swagger() as { paths: Record<string, Record<string, { responses?: Record<string, Json> }>> };
  operations = Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, responses: op.responses ?? {} })),
  );
});
afterAll(() => t.close());

describe('the API document', () => {
  it('has the operations it is checked on', () => {
    // A document that lost its routes would pass every check below.
    expect(operations.length).toBeGreaterThan(200);
    expect(operations.map((o) => o.key)).toEqual(
      expect.arrayContaining(['GET /v1/spaces/{spaceId}/content', 'GET /files/{spaceId}/{fileId}/download', 'GET /pdf/{sha256}']),
    );
  });

  it('declares a success answer (2xx or 3xx) for every operation', () => {
    const missing = operations.filter((o) => !Object.keys(o.responses).some((code) => /^[23]/.test(code))).map((o) => o.key);
    expect(missing).toEqual([]);
  });

  it('declares the body of every 2xx answer but 204 and 205, which have none', () => {
    const bodiless = operations
      .filter((o) => !(o.key in UNDECLARED))
      .flatMap((o) =>
        Object.entries(o.responses)
          .filter(([code, response]) => /^2/.test(code) && code !== '204' && code !== '205' && !response.content)
          .map(([code]) => `${o.key} ${code}`),
      );
    expect(bodiless).toEqual([]);
  });

  it('lists in UNDECLARED only operations that are still without a 2xx body', () => {
    for (const key of Object.keys(UNDECLARED)) {
      const operation = operations.find((o) => o.key === key);
      expect(operation).toBeDefined();
      expect(Object.entries(operation!.responses).filter(([code, r]) => /^2/.test(code) && r.content)).toEqual([]);
    }
  });

  it('declares redirects without a body', () => {
    const withBody = operations.flatMap((o) =>
      Object.entries(o.responses)
        .filter(([code, response]) => /^3/.test(code) && response.content)
        .map(([code]) => `${o.key} ${code}`),
    );
    expect(withBody).toEqual([]);
  });

  it('declares downloads as their bytes, and their redirect to a temporary link', () => {
    const responses = (key: string) => operations.find((o) => o.key === key)!.responses;
    const binary = { schema: { type: 'string', format: 'binary' } };
    for (const key of [
      'GET /files/{spaceId}/{fileId}/download',
      'GET /v1/spaces/{spaceId}/content/files/{fileId}/download',
      'GET /v1/spaces/{spaceId}/change-requests/{changeRequestId}/content/files/{fileId}/download',
    ]) {
      expect(responses(key)['200'].content).toEqual({ '*/*': binary });
      expect(responses(key)['302']).toBeDefined();
    }
    expect(responses('GET /pdf/{sha256}')['200'].content).toEqual({ 'application/pdf': binary });
    expect(responses('GET /v1/integrations/{integrationName}/assets/{asset}')['200'].content).toEqual({ 'image/*': binary });
    expect(Object.keys(responses('GET /sso/saml/{samlProviderId}')['200'].content)).toEqual(['application/samlmetadata+xml']);
  });

  it("documents GitBook's fields of a revision and a change request", () => {
    const schema = (key: string, code = '200') => operations.find((o) => o.key === key)!.responses[code].content['application/json'].schema;
    const revision = schema('GET /v1/spaces/{spaceId}/revisions/{revisionId}');
    expect(revision.required).toEqual(expect.arrayContaining(['object', 'id', 'parents', 'createdAt', 'type', 'urls', 'pages', 'files']));
    expect(revision.properties.type.enum).toEqual(['edits', 'merge', 'rollback', 'update']);
    const changeRequest = schema('POST /v1/spaces/{spaceId}/change-requests', '201');
    expect(changeRequest.required).toEqual(
      expect.arrayContaining([
        'object',
        'id',
        'number',
        'status',
        'subject',
        'createdBy',
        'createdAt',
        'space',
        'revision',
        'outdated',
        'urls',
      ]),
    );
    expect(changeRequest.properties.status.enum).toEqual(['draft', 'open', 'archived', 'merged']);
  });
});

/**
 * Every object of an answer schema lets undeclared fields through, and no schema pins a value
 * (`const`, which the serializer writes whatever the value is) or picks among shapes (a union,
 * which the serializer resolves by validating each answer), except where `unions` allows.
 */
function cuttingNodes(schema: Json, at: string, unions: Set<string>, out: string[] = []): string[] {
  if (schema.type === 'object' && schema.additionalProperties !== true) out.push(`${at}: closed object`);
  if ('const' in schema) out.push(`${at}: const`);
  if ((schema.anyOf || schema.oneOf) && !unions.has(at)) out.push(`${at}: union`);
  for (const [key, child] of Object.entries(schema.properties ?? {})) cuttingNodes(child as Json, `${at}.${key}`, unions, out);
  if (schema.items) cuttingNodes(schema.items, `${at}[]`, unions, out);
  for (const [i, branch] of [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])].entries()) cuttingNodes(branch, `${at}|${i}`, unions, out);
  return out;
}

describe('answer schemas of content, revisions and change requests', () => {
  const schemas: Record<string, Json> = {
    RevisionSchema,
    RevisionPages,
    RevisionPage,
    RevisionFile,
    RevisionFileList,
    RevisionReusableContent,
    RevisionPageMetaLinks,
    RevisionSemanticChanges,
    JsonDocument,
    ChangeRequestSchema,
    ChangeRequestList,
    ContentChangesAnswer,
    MergeResult: MergeResult('merge'),
    // `collection` and `space` are the collections' and spaces' own answers, as their routes send them.
    ContentByUrl: { ...ContentByUrl, properties: { page: ContentByUrl.properties.page } },
  };

  it.each(Object.keys(schemas))('%s cannot cut an answer', (name) => {
    // The content batch's answer is a write's: its serializer may tell its two shapes apart.
    expect(cuttingNodes(schemas[name], name, new Set(['ContentChangesAnswer']))).toEqual([]);
  });

  it('finds what would cut an answer', () => {
    const closed = { type: 'object', properties: { a: { const: 'x' }, b: { anyOf: [{ type: 'string' }, { type: 'null' }] } } };
    expect(cuttingNodes(closed, 'X', new Set())).toEqual(['X: closed object', 'X.a: const', 'X.b: union']);
  });
});

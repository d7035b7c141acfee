import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** OpenAPI specs, their versions and the texts the versions share. */

export const OpenapiSpec = defineEntity({
  name: 'OpenapiSpec',
  tableName: 'openapi_spec',
  properties: {
    id: p.string().primary(),
    organizationId: p.string(),
    slug: p.string(),
    sourceUrl: p.string().nullable(),
    sourceTextId: p.string().nullable(),
    sourceGeneration: p.integer().defaultRaw('1'),
    processingState: p.string().defaultRaw("'pending'::text"),
    lastVersionId: p.string().nullable(),
    lastProcessedAt: p.datetime().nullable(),
    lastProcessErrorCode: p.string().nullable(),
    /** The errors of the last processing run, as the API shows them. */
    lastProcessErrors: p.json<{ code: string; message: string }[]>().nullable(),
    createdAt: p.datetime().defaultRaw('now()'),
    updatedAt: p.datetime().defaultRaw('now()'),
  },
});
export type OpenapiSpec = InferEntity<typeof OpenapiSpec>;

export const OpenapiSpecVersion = defineEntity({
  name: 'OpenapiSpecVersion',
  tableName: 'openapi_spec_version',
  properties: {
    id: p.string().primary(),
    specId: p.string(),
    contentHash: p.string(),
    url: p.string().nullable(),
    entryKey: p.string(),
    filesystem: p.string(),
    createdAt: p.datetime().defaultRaw('now()'),
  },
});
export type OpenapiSpecVersion = InferEntity<typeof OpenapiSpecVersion>;

export const OpenapiSpecText = defineEntity({
  name: 'OpenapiSpecText',
  tableName: 'openapi_spec_text',
  properties: {
    id: p.string().primary(),
    specId: p.string(),
    text: p.string(),
    createdAt: p.datetime().defaultRaw('now()'),
  },
});
export type OpenapiSpecText = InferEntity<typeof OpenapiSpecText>;

export const entities = [OpenapiSpec, OpenapiSpecVersion, OpenapiSpecText];

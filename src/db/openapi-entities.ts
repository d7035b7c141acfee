import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** OpenAPI specs, the text of text-sourced specs, and processed versions (see Migration0005OpenApi). */

export const OpenApiSpec = defineEntity({
  name: 'OpenApiSpec',
  tableName: 'openapi_spec',
  properties: {
    id: p.string().primary(),
    organizationId: p.string(),
    slug: p.string(),
    /** Set for URL sources (credentials included: never shown, never put in workflow history). */
    sourceUrl: p.string().nullable(),
    /** Set for text sources: the row of openapi_spec_text holding the text. */
    sourceTextId: p.string().nullable(),
    /** Bumped on every change of source; a processing run of an older source records nothing. */
    sourceGeneration: p.integer(),
    processingState: p.string(),
    lastVersionId: p.string().nullable(),
    lastProcessedAt: p.datetime().nullable(),
    lastProcessErrorCode: p.string().nullable(),
    lastProcessErrors: p.json<{ code: string; message: string }[]>().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type OpenApiSpec = InferEntity<typeof OpenApiSpec>;

export const OpenApiSpecText = defineEntity({
  name: 'OpenApiSpecText',
  tableName: 'openapi_spec_text',
  properties: {
    id: p.string().primary(),
    specId: p.string(),
    text: p.text(),
    createdAt: p.datetime(),
  },
});
export type OpenApiSpecText = InferEntity<typeof OpenApiSpecText>;

export const OpenApiSpecVersion = defineEntity({
  name: 'OpenApiSpecVersion',
  tableName: 'openapi_spec_version',
  properties: {
    id: p.string().primary(),
    specId: p.string(),
    contentHash: p.string(),
    /** The source URL without credentials; null for text sources. */
    url: p.string().nullable(),
    /** The filesystem key of the entry document. */
    entryKey: p.string(),
    /** JSON text of the filesystem: key → parsed document, with the documents' own key order. */
    filesystem: p.text().lazy(),
    createdAt: p.datetime(),
  },
});
export type OpenApiSpecVersion = InferEntity<typeof OpenApiSpecVersion>;

export const entities = [OpenApiSpec, OpenApiSpecText, OpenApiSpecVersion];

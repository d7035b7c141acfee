import { sql } from 'kysely';
import { db } from './kysely.ts';
import type { Listing } from './listing.ts';
import type { Em } from './orm.ts';

/**
 * OpenAPI specs (`openapi_spec`), the text of text-sourced specs (`openapi_spec_text`) and the
 * processed versions (`openapi_spec_version`). These tables are read and written only here, with
 * typed queries: the API and the processing activities share the same functions, and the
 * processing's writes are guarded by the source generation in the statement itself.
 */

export interface ProcessError {
  code: string;
  message: string;
}

export type OpenApiSpec = {
  id: string;
  organizationId: string;
  slug: string;
  /** Set for URL sources (credentials included: never shown, never put in workflow history). */
  sourceUrl: string | null;
  /** Set for text sources: the row of openapi_spec_text holding the text. */
  sourceTextId: string | null;
  /** Bumped on every change of source; a processing run of an older source records nothing. */
  sourceGeneration: number;
  processingState: string;
  lastVersionId: string | null;
  lastProcessedAt: Date | null;
  lastProcessErrorCode: string | null;
  lastProcessErrors: ProcessError[] | null;
  createdAt: Date;
  updatedAt: Date;
};

export type OpenApiSpecVersion = {
  id: string;
  specId: string;
  contentHash: string;
  /** The source URL without credentials; null for text sources. */
  url: string | null;
  /** The filesystem key of the entry document. */
  entryKey: string;
  createdAt: Date;
};

const SPEC_COLUMNS = [
  'id',
  'organization_id as organizationId',
  'slug',
  'source_url as sourceUrl',
  'source_text_id as sourceTextId',
  'source_generation as sourceGeneration',
  'processing_state as processingState',
  'last_version_id as lastVersionId',
  'last_processed_at as lastProcessedAt',
  'last_process_error_code as lastProcessErrorCode',
  'last_process_errors as lastProcessErrors',
  'created_at as createdAt',
  'updated_at as updatedAt',
] as const;

const VERSION_COLUMNS = [
  'id',
  'spec_id as specId',
  'content_hash as contentHash',
  'url',
  'entry_key as entryKey',
  'created_at as createdAt',
] as const;

/** A timestamptz value as read: text (the ORM's type parsers keep timestamps as the server writes them). */
type Timestamp = Date | string;

/** A spec as read, before its timestamps are Dates (`toSpec`). */
export type SpecRow = Omit<OpenApiSpec, 'lastProcessedAt' | 'createdAt' | 'updatedAt'> & {
  lastProcessedAt: Timestamp | null;
  createdAt: Timestamp;
  updatedAt: Timestamp;
};

/** A version as read, before its timestamp is a Date (`toVersion`). */
export type VersionRow = Omit<OpenApiSpecVersion, 'createdAt'> & { createdAt: Timestamp };

const date = (value: Timestamp) => (value instanceof Date ? value : new Date(value));

/** A spec row with its timestamps as Dates. */
export function toSpec(row: SpecRow): OpenApiSpec {
  return {
    ...row,
    lastProcessedAt: row.lastProcessedAt === null ? null : date(row.lastProcessedAt),
    createdAt: date(row.createdAt),
    updatedAt: date(row.updatedAt),
  };
}

/** A version row with its timestamp as a Date. */
export function toVersion<R extends VersionRow>(row: R): Omit<R, 'createdAt'> & { createdAt: Date } {
  return { ...row, createdAt: date(row.createdAt) };
}

const specs = (em: Em) => db(em).selectFrom('openapi_spec').select(SPEC_COLUMNS).$castTo<SpecRow>();
const versions = (em: Em) => db(em).selectFrom('openapi_spec_version').select(VERSION_COLUMNS);

// --- What the API reads and writes ---------------------------------------------------------

/** The specs of an organization, oldest first, as a keyset listing (rows to pass through `toSpec`). */
export function specListing(em: Em, organizationId: string): Listing<SpecRow> {
  return {
    query: specs(em).where('organization_id', '=', organizationId),
    keys: [
      { field: 'createdAt', kind: 'date' },
      { field: 'id', kind: 'string' },
    ],
  };
}

/** The versions of a spec, oldest first, as a keyset listing (rows to pass through `toVersion`). */
export function versionListing(em: Em, specId: string): Listing<VersionRow> {
  return {
    query: versions(em).where('spec_id', '=', specId),
    keys: [
      { field: 'createdAt', kind: 'date' },
      { field: 'id', kind: 'string' },
    ],
  };
}

export async function findSpec(em: Em, organizationId: string, slug: string): Promise<OpenApiSpec | undefined> {
  const row = await specs(em).where('organization_id', '=', organizationId).where('slug', '=', slug).executeTakeFirst();
  return row && toSpec(row);
}

/** The spec of this slug, locked until the end of the transaction of `tx`. */
export async function lockSpec(tx: Em, organizationId: string, slug: string): Promise<OpenApiSpec | undefined> {
  const row = await specs(tx).where('organization_id', '=', organizationId).where('slug', '=', slug).forUpdate().executeTakeFirst();
  return row && toSpec(row);
}

export interface NewSpec {
  id: string;
  organizationId: string;
  slug: string;
  sourceUrl: string | null;
  sourceTextId: string | null;
  at: Date;
}

/** Inserts a `pending` spec of generation 1; undefined when the slug was taken meanwhile. */
export async function insertSpec(tx: Em, spec: NewSpec): Promise<OpenApiSpec | undefined> {
  const row = await db(tx)
    .insertInto('openapi_spec')
    .values({
      id: spec.id,
      organization_id: spec.organizationId,
      slug: spec.slug,
      source_url: spec.sourceUrl,
      source_text_id: spec.sourceTextId,
      source_generation: 1,
      processing_state: 'pending',
      created_at: spec.at,
      updated_at: spec.at,
    })
    .onConflict((oc) => oc.columns(['organization_id', 'slug']).doNothing())
    .returning(SPEC_COLUMNS)
    .executeTakeFirst();
  return row && toSpec(row);
}

/** Gives a spec a new source (its text, if any, is removed): the next generation, `pending`. */
export async function replaceSpecSource(
  tx: Em,
  specId: string,
  source: { sourceUrl: string | null; sourceTextId: string | null },
  at: Date,
): Promise<OpenApiSpec> {
  await db(tx).deleteFrom('openapi_spec_text').where('spec_id', '=', specId).execute();
  const row = await db(tx)
    .updateTable('openapi_spec')
    .set((eb) => ({
      source_url: source.sourceUrl,
      source_text_id: source.sourceTextId,
      source_generation: eb('source_generation', '+', 1),
      processing_state: 'pending',
      updated_at: at,
    }))
    .where('id', '=', specId)
    .returning(SPEC_COLUMNS)
    .executeTakeFirstOrThrow();
  return toSpec(row);
}

export async function insertSpecText(tx: Em, text: { id: string; specId: string; text: string; at: Date }): Promise<void> {
  await db(tx)
    .insertInto('openapi_spec_text')
    .values({ id: text.id, spec_id: text.specId, text: text.text, created_at: text.at })
    .execute();
}

/** Deletes a spec with its texts and versions (foreign keys cascade); its id, or undefined when there was none. */
export async function deleteSpecBySlug(em: Em, organizationId: string, slug: string): Promise<string | undefined> {
  const row = await db(em)
    .deleteFrom('openapi_spec')
    .where('organization_id', '=', organizationId)
    .where('slug', '=', slug)
    .returning('id')
    .executeTakeFirst();
  return row?.id;
}

/** A version of a spec, with the JSON text of its filesystem when `withContent`. */
export async function findVersion(em: Em, specId: string, versionId: string, withContent: false): Promise<OpenApiSpecVersion | undefined>;
export async function findVersion(
  em: Em,
  specId: string,
  versionId: string,
  withContent: true,
): Promise<(OpenApiSpecVersion & { filesystem: string }) | undefined>;
export async function findVersion(em: Em, specId: string, versionId: string, withContent: boolean) {
  const query = versions(em).where('id', '=', versionId).where('spec_id', '=', specId);
  const row = withContent ? await query.select('filesystem').executeTakeFirst() : await query.executeTakeFirst();
  return row && toVersion(row);
}

// --- What the processing activities read and write (src/activities/openapi-processing.ts) ----

/**
 * The processing state of OpenAPI specs and the versions processing records. Every change is
 * guarded by the spec's source generation, so a run for an older source changes nothing.
 */

export interface ProcessedSpecRow {
  id: string;
  source_url: string | null;
  source_text_id: string | null;
  source_generation: number;
  last_version_id: string | null;
}

/**
 * Marks the spec `progress` when its source is still `generation` (any generation when null).
 * Returns the source it is processed from; undefined when the spec is gone or its source changed.
 */
export async function markSpecProcessing(
  em: Em,
  specId: string,
  generation: number | null,
): Promise<{ generation: number; kind: 'url' | 'text' } | undefined> {
  let query = db(em).updateTable('openapi_spec').set({ processing_state: 'progress' }).where('id', '=', specId);
  if (generation !== null) query = query.where('source_generation', '=', generation);
  const row = await query.returning(['source_generation', 'source_url']).executeTakeFirst();
  return row && { generation: row.source_generation, kind: row.source_url === null ? 'text' : 'url' };
}

export async function specExists(em: Em, specId: string): Promise<boolean> {
  return (await db(em).selectFrom('openapi_spec').select('id').where('id', '=', specId).executeTakeFirst()) !== undefined;
}

export async function loadProcessedSpec(em: Em, specId: string): Promise<ProcessedSpecRow | undefined> {
  return db(em)
    .selectFrom('openapi_spec')
    .select(['id', 'source_url', 'source_text_id', 'source_generation', 'last_version_id'])
    .where('id', '=', specId)
    .executeTakeFirst();
}

/** The text of a text-sourced spec. */
export async function loadSpecText(em: Em, textId: string | null): Promise<string | undefined> {
  if (textId === null) return undefined;
  const row = await db(em).selectFrom('openapi_spec_text').select('text').where('id', '=', textId).executeTakeFirst();
  return row?.text;
}

/** Locks the spec row (for recording a version) and reads the content hash of its last version. */
export async function lockSpecForRecording(
  em: Em,
  specId: string,
): Promise<
  | (Pick<ProcessedSpecRow, 'id' | 'source_generation' | 'last_version_id'> & {
      last_hash: string | null;
      organization_id: string;
      slug: string;
    })
  | undefined
> {
  return db(em)
    .selectFrom('openapi_spec as s')
    .leftJoin('openapi_spec_version as v', 'v.id', 's.last_version_id')
    .select(['s.id', 's.organization_id', 's.slug', 's.source_generation', 's.last_version_id', 'v.content_hash as last_hash'])
    .where('s.id', '=', specId)
    .forUpdate('s')
    .executeTakeFirst();
}

/** Marks the spec `complete` without error, its last version unchanged. */
export async function markSpecProcessed(em: Em, specId: string, at: Date): Promise<void> {
  await db(em)
    .updateTable('openapi_spec')
    .set({ processing_state: 'complete', last_processed_at: at, last_process_error_code: null, last_process_errors: null })
    .where('id', '=', specId)
    .execute();
}

export interface SpecVersionInput {
  id: string;
  specId: string;
  contentHash: string;
  url: string | null;
  entryKey: string;
  /** The documents, serialized as JSON. */
  filesystem: string;
  at: Date;
}

/** Records a version (at most once under its id) and makes it the spec's last, marking the spec `complete`. */
export async function recordSpecVersion(em: Em, version: SpecVersionInput): Promise<void> {
  await db(em)
    .insertInto('openapi_spec_version')
    .values({
      id: version.id,
      spec_id: version.specId,
      content_hash: version.contentHash,
      url: version.url,
      entry_key: version.entryKey,
      filesystem: version.filesystem,
      created_at: version.at,
    })
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();
  await db(em)
    .updateTable('openapi_spec')
    .set({
      processing_state: 'complete',
      last_version_id: version.id,
      last_processed_at: version.at,
      last_process_error_code: null,
      last_process_errors: null,
    })
    .where('id', '=', version.specId)
    .execute();
}

/** Marks the spec `complete` with an error, if its source is still `generation`. Returns whether it was. */
export async function recordSpecFailure(
  em: Em,
  input: { specId: string; generation: number; errorCode: string; errors: ProcessError[] },
): Promise<boolean> {
  const rows = await db(em)
    .updateTable('openapi_spec')
    .set({
      processing_state: 'complete',
      last_processed_at: new Date(),
      last_process_error_code: input.errorCode,
      // jsonb from its JSON text: Kysely binds an array as a PostgreSQL array otherwise.
      last_process_errors: sql<ProcessError[]>`${JSON.stringify(input.errors)}::jsonb`,
    })
    .where('id', '=', input.specId)
    .where('source_generation', '=', input.generation)
    .returning('id')
    .execute();
  return rows.length > 0;
}

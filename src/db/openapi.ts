import type { Em } from './orm.ts';
import { sql } from './sql.ts';

/**
 * OpenAPI specs (`openapi_spec`), the text of text-sourced specs (`openapi_spec_text`) and the
 * processed versions (`openapi_spec_version`). These tables are read and written only here, with
 * SQL (no ORM entities): the API and the processing activities share the same functions, and the
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

const SPEC_COLUMNS = `id, organization_id as "organizationId", slug, source_url as "sourceUrl", source_text_id as "sourceTextId",
  source_generation as "sourceGeneration", processing_state as "processingState", last_version_id as "lastVersionId",
  last_processed_at as "lastProcessedAt", last_process_error_code as "lastProcessErrorCode",
  last_process_errors as "lastProcessErrors", created_at as "createdAt", updated_at as "updatedAt"`;

const VERSION_COLUMNS = `id, spec_id as "specId", content_hash as "contentHash", url, entry_key as "entryKey", created_at as "createdAt"`;

const date = (value: unknown) => (value instanceof Date ? value : new Date(value as string));
const dateOrNull = (value: unknown) => (value === null || value === undefined ? null : date(value));

/** A spec row as the driver returns it, with dates as Date and the errors parsed. */
export function toSpec(raw: Record<string, unknown>): OpenApiSpec {
  const errors = raw.lastProcessErrors;
  return {
    ...(raw as unknown as OpenApiSpec),
    sourceGeneration: Number(raw.sourceGeneration),
    lastProcessedAt: dateOrNull(raw.lastProcessedAt),
    lastProcessErrors: typeof errors === 'string' ? (JSON.parse(errors) as ProcessError[]) : ((errors ?? null) as ProcessError[] | null),
    createdAt: date(raw.createdAt),
    updatedAt: date(raw.updatedAt),
  };
}

export function toVersion(raw: Record<string, unknown>): OpenApiSpecVersion {
  return { ...(raw as unknown as OpenApiSpecVersion), createdAt: date(raw.createdAt) };
}

const first = <T>(rows: T[]): T | undefined => rows[0];

// --- What the API reads and writes ---------------------------------------------------------

/** The specs of an organization, as a keyset listing (src/api/pagination.ts `paginateSql`). */
export function specListing(organizationId: string) {
  return {
    sql: `select ${SPEC_COLUMNS} from openapi_spec where organization_id = ?`,
    params: [organizationId],
    keys: [
      { field: 'createdAt', kind: 'date' as const },
      { field: 'id', kind: 'string' as const },
    ],
    row: toSpec,
  };
}

/** The versions of a spec, oldest first, as a keyset listing. */
export function versionListing(specId: string) {
  return {
    sql: `select ${VERSION_COLUMNS} from openapi_spec_version where spec_id = ?`,
    params: [specId],
    keys: [
      { field: 'createdAt', kind: 'date' as const },
      { field: 'id', kind: 'string' as const },
    ],
    row: toVersion,
  };
}

export async function findSpec(em: Em, organizationId: string, slug: string): Promise<OpenApiSpec | undefined> {
  const row = first(
    await sql(em, `select ${SPEC_COLUMNS} from openapi_spec where organization_id = ? and slug = ?`, [organizationId, slug]),
  );
  return row && toSpec(row);
}

/** The spec of this slug, locked until the end of the transaction of `tx`. */
export async function lockSpec(tx: Em, organizationId: string, slug: string): Promise<OpenApiSpec | undefined> {
  const row = first(
    await sql(tx, `select ${SPEC_COLUMNS} from openapi_spec where organization_id = ? and slug = ? for update`, [organizationId, slug]),
  );
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
  const row = first(
    await sql(
      tx,
      `insert into openapi_spec (id, organization_id, slug, source_url, source_text_id, source_generation, processing_state, created_at, updated_at)
       values (?, ?, ?, ?, ?, 1, 'pending', ?, ?)
       on conflict (organization_id, slug) do nothing
       returning ${SPEC_COLUMNS}`,
      [spec.id, spec.organizationId, spec.slug, spec.sourceUrl, spec.sourceTextId, spec.at, spec.at],
    ),
  );
  return row && toSpec(row);
}

/** Gives a spec a new source (its text, if any, is removed): the next generation, `pending`. */
export async function replaceSpecSource(
  tx: Em,
  specId: string,
  source: { sourceUrl: string | null; sourceTextId: string | null },
  at: Date,
): Promise<OpenApiSpec> {
  await sql(tx, 'delete from openapi_spec_text where spec_id = ?', [specId]);
  const [row] = await sql(
    tx,
    `update openapi_spec
        set source_url = ?, source_text_id = ?, source_generation = source_generation + 1, processing_state = 'pending', updated_at = ?
      where id = ?
      returning ${SPEC_COLUMNS}`,
    [source.sourceUrl, source.sourceTextId, at, specId],
  );
  return toSpec(row);
}

export async function insertSpecText(tx: Em, text: { id: string; specId: string; text: string; at: Date }): Promise<void> {
  await sql(tx, 'insert into openapi_spec_text (id, spec_id, text, created_at) values (?, ?, ?, ?)', [
    text.id,
    text.specId,
    text.text,
    text.at,
  ]);
}

/** Deletes a spec with its texts and versions (foreign keys cascade); its id, or undefined when there was none. */
export async function deleteSpecBySlug(em: Em, organizationId: string, slug: string): Promise<string | undefined> {
  return first(
    await sql<{ id: string }>(em, 'delete from openapi_spec where organization_id = ? and slug = ? returning id', [organizationId, slug]),
  )?.id;
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
  const row = first(
    await sql(em, `select ${VERSION_COLUMNS}${withContent ? ', filesystem' : ''} from openapi_spec_version where id = ? and spec_id = ?`, [
      versionId,
      specId,
    ]),
  );
  return row && toVersion(row);
}

// --- What the processing activities read and write (src/activities/openapi.ts) ---------------

/* Processing (the openapi-processing activities). */

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
  const rows = await sql<{ source_generation: number; source_url: string | null }>(
    em,
    `update openapi_spec set processing_state = 'progress'
      where id = ? and (?::integer is null or source_generation = ?::integer)
      returning source_generation, source_url`,
    [specId, generation, generation],
  );
  return rows[0] && { generation: rows[0].source_generation, kind: rows[0].source_url === null ? 'text' : 'url' };
}

export async function specExists(em: Em, specId: string): Promise<boolean> {
  return (await sql(em, 'select 1 from openapi_spec where id = ?', [specId])).length > 0;
}

export async function loadProcessedSpec(em: Em, specId: string): Promise<ProcessedSpecRow | undefined> {
  const rows = await sql<ProcessedSpecRow>(
    em,
    'select id, source_url, source_text_id, source_generation, last_version_id from openapi_spec where id = ?',
    [specId],
  );
  return rows[0];
}

/** The text of a text-sourced spec. */
export async function loadSpecText(em: Em, textId: string | null): Promise<string | undefined> {
  const rows = await sql<{ text: string }>(em, 'select text from openapi_spec_text where id = ?', [textId]);
  return rows[0]?.text;
}

/** Locks the spec row (for recording a version) and reads the content hash of its last version. */
export async function lockSpecForRecording(
  em: Em,
  specId: string,
): Promise<(Pick<ProcessedSpecRow, 'id' | 'source_generation' | 'last_version_id'> & { last_hash: string | null }) | undefined> {
  const rows = await sql<Pick<ProcessedSpecRow, 'id' | 'source_generation' | 'last_version_id'> & { last_hash: string | null }>(
    em,
    `select s.id, s.source_generation, s.last_version_id, v.content_hash as last_hash
       from openapi_spec s left join openapi_spec_version v on v.id = s.last_version_id
      where s.id = ? for update of s`,
    [specId],
  );
  return rows[0];
}

/** Marks the spec `complete` without error, its last version unchanged. */
export async function markSpecProcessed(em: Em, specId: string, at: Date): Promise<void> {
  await sql(
    em,
    `update openapi_spec set processing_state = 'complete', last_processed_at = ?, last_process_error_code = null,
            last_process_errors = null where id = ?`,
    [at, specId],
  );
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
  await sql(
    em,
    `insert into openapi_spec_version (id, spec_id, content_hash, url, entry_key, filesystem, created_at)
     values (?, ?, ?, ?, ?, ?, ?) on conflict (id) do nothing`,
    [version.id, version.specId, version.contentHash, version.url, version.entryKey, version.filesystem, version.at],
  );
  await sql(
    em,
    `update openapi_spec set processing_state = 'complete', last_version_id = ?, last_processed_at = ?,
            last_process_error_code = null, last_process_errors = null where id = ?`,
    [version.id, version.at, version.specId],
  );
}

/** Marks the spec `complete` with an error, if its source is still `generation`. Returns whether it was. */
export async function recordSpecFailure(
  em: Em,
  input: { specId: string; generation: number; errorCode: string; errors: { code: string; message: string }[] },
): Promise<boolean> {
  const rows = await sql(
    em,
    `update openapi_spec set processing_state = 'complete', last_processed_at = ?, last_process_error_code = ?,
            last_process_errors = ?::jsonb where id = ? and source_generation = ? returning id`,
    [new Date(), input.errorCode, JSON.stringify(input.errors), input.specId, input.generation],
  );
  return rows.length > 0;
}

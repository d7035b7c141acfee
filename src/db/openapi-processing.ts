import type { Em } from './orm.ts';
import { sql } from './sql.ts';

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
export async function markSpecProcessing(em: Em, specId: string, generation: number | null): Promise<{ generation: number; kind: 'url' | 'text' } | undefined> {
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
  const rows = await sql<ProcessedSpecRow>(em, 'select id, source_url, source_text_id, source_generation, last_version_id from openapi_spec where id = ?', [specId]);
  return rows[0];
}

/** The text of a text-sourced spec. */
export async function loadSpecText(em: Em, textId: string | null): Promise<string | undefined> {
  const rows = await sql<{ text: string }>(em, 'select text from openapi_spec_text where id = ?', [textId]);
  return rows[0]?.text;
}

/** Locks the spec row (for recording a version) and reads the content hash of its last version. */
export async function lockSpecForRecording(em: Em, specId: string): Promise<(Pick<ProcessedSpecRow, 'id' | 'source_generation' | 'last_version_id'> & { last_hash: string | null }) | undefined> {
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
export async function recordSpecFailure(em: Em, input: { specId: string; generation: number; errorCode: string; errors: { code: string; message: string }[] }): Promise<boolean> {
  const rows = await sql(
    em,
    `update openapi_spec set processing_state = 'complete', last_processed_at = ?, last_process_error_code = ?,
            last_process_errors = ?::jsonb where id = ? and source_generation = ? returning id`,
    [new Date(), input.errorCode, JSON.stringify(input.errors), input.specId, input.generation],
  );
  return rows.length > 0;
}

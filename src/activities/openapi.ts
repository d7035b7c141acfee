import { ApplicationFailure, Context, heartbeat, log } from '@temporalio/activity';
import { validate as validateSpec } from '@readme/openapi-parser';
import type { Orm, Em } from '../db/orm.ts';
import {
  MAX_SPEC_FILES, SpecProcessingError, baseOf, bundleForValidation, contentHash, documentKey, isRetryableFailure, parseDocument,
  planRefFetches, processErrorCode, toJsonValue,
} from '../domain/openapi.ts';
import { FetchError, fetchPolicyFromEnv, guardedFetch, redactUrl, type FetchPolicy } from '../lib/guarded-fetch.ts';
import { deleteRefreshSchedule } from '../temporal/openapi-jobs.ts';

export interface BeginInput {
  specId: string;
  /** Absent for scheduled refreshes: the current source is processed. */
  generation?: number;
}

export type BeginResult =
  | { status: 'gone' }
  | { status: 'stale' }
  | { status: 'ready'; generation: number; kind: 'url' | 'text' };

export interface FetchInput {
  specId: string;
  generation: number;
  /** Chosen by the workflow, so a retried activity records the same version at most once. */
  versionId: string;
}

export interface FetchResult {
  outcome: 'created' | 'unchanged' | 'stale' | 'gone';
  versionId?: string;
}

export interface FailureInput {
  specId: string;
  generation: number;
  detail: string;
  message: string;
}

interface SpecRow {
  id: string;
  source_url: string | null;
  source_text_id: string | null;
  source_generation: number;
  last_version_id: string | null;
}

const ACCEPT = 'application/json, application/yaml, application/x-yaml, text/yaml, text/plain;q=0.9, */*;q=0.8';

/** Reports progress to Temporal; a no-op when the function is called directly rather than as an activity. */
function beat(details: unknown): void {
  try {
    heartbeat(details);
  } catch {
    // not running inside an activity
  }
}

function execute<T>(em: Em, query: string, params: unknown[] = []): Promise<T[]> {
  return em.getConnection().execute<T[]>(query, params, 'all', em.getTransactionContext());
}

/** Turns the processing failures into Temporal failures that say why and whether to try again. */
function asFailure(error: unknown): unknown {
  if (error instanceof FetchError) {
    return ApplicationFailure.create({
      type: error.code,
      message: error.message,
      nonRetryable: !isRetryableFailure(error.code, error.status),
      details: error.status === undefined ? [] : [{ status: error.status }],
    });
  }
  if (error instanceof SpecProcessingError) {
    return ApplicationFailure.create({ type: error.detail, message: error.message, nonRetryable: true });
  }
  return error;
}

interface Fetched {
  filesystem: Record<string, unknown>;
  entryKey: string;
  url: string | null;
}

/** Fetches the entry document and, breadth first, every document its `$ref`s reach. */
async function collectDocuments(source: { url: string } | { text: string }, policy: FetchPolicy): Promise<Fetched> {
  const filesystem: Record<string, unknown> = {};
  const queue: string[] = [];
  let entryKey: string;
  let url: string | null = null;

  if ('url' in source) {
    const response = await guardedFetch(source.url, policy, { accept: ACCEPT });
    entryKey = documentKey(source.url);
    url = entryKey;
    const { document } = parseDocument(response.body.toString('utf8'), redactUrl(source.url), response.contentType);
    filesystem[entryKey] = toJsonValue(document);
    // Relative references resolve against the URL given (credentials kept for fetching).
    queue.push(...planRefFetches(filesystem[entryKey], source.url, new Set([entryKey])));
  } else {
    const { document, format } = parseDocument(source.text, 'The spec text');
    entryKey = format === 'json' ? 'openapi.json' : 'openapi.yaml';
    filesystem[entryKey] = toJsonValue(document);
    queue.push(...planRefFetches(filesystem[entryKey], null, new Set([entryKey])));
  }

  const planned = new Set([entryKey, ...queue.map(documentKey)]);
  while (queue.length > 0) {
    const next = queue.shift()!;
    const key = documentKey(next);
    if (Object.keys(filesystem).length >= MAX_SPEC_FILES) {
      throw new SpecProcessingError('TOO_MANY_FILES', `The spec refers to more than ${MAX_SPEC_FILES} documents`);
    }
    beat({ fetched: Object.keys(filesystem).length });
    const response = await guardedFetch(next, policy, { accept: ACCEPT });
    const { document } = parseDocument(response.body.toString('utf8'), redactUrl(next), response.contentType);
    filesystem[key] = toJsonValue(document);
    for (const target of planRefFetches(filesystem[key], next, planned)) {
      planned.add(documentKey(target));
      queue.push(target);
    }
  }
  return { filesystem, entryKey, url };
}

/** Validates the whole definition (every document bundled in) as Swagger 2.0 or OpenAPI 3.0/3.1. */
async function validateDefinition(filesystem: Record<string, unknown>, entryKey: string): Promise<void> {
  const entry = filesystem[entryKey] as Record<string, unknown> | null;
  if (entry === null || typeof entry !== 'object' || Array.isArray(entry) || !('openapi' in entry || 'swagger' in entry)) {
    throw new SpecProcessingError('INVALID_SPEC', 'Not an OpenAPI definition: the entry document has no `openapi` or `swagger` field');
  }
  const bundled = structuredClone(bundleForValidation(filesystem, entryKey));
  let result;
  try {
    result = await validateSpec(bundled as never, { resolve: { external: false }, timeoutMs: 60_000 });
  } catch (error) {
    throw new SpecProcessingError('INVALID_SPEC', `The definition could not be validated: ${(error as Error).message}`);
  }
  if (!result.valid) {
    const messages = result.errors.slice(0, 5).map((e) => e.message.replace(/\s+/g, ' ').trim());
    const more = result.errors.length + result.additionalErrors - messages.length;
    throw new SpecProcessingError('INVALID_SPEC', `Invalid ${result.specification ?? 'API'} definition: ${messages.join('; ')}${more > 0 ? ` (and ${more} more)` : ''}`);
  }
}

/**
 * Activities of OpenAPI processing. Each is idempotent: processing state changes are guarded by
 * the source generation, and a version is recorded under the id the workflow chose, at most once.
 */
export function openapiActivities(orm: Orm, policy: FetchPolicy = fetchPolicyFromEnv()) {
  return {
    /** Marks the spec `progress` unless it is gone or its source changed since the run started. */
    async beginOpenApiProcessing(input: BeginInput): Promise<BeginResult> {
      const em = orm.em.fork();
      const rows = await execute<{ source_generation: number; source_url: string | null }>(
        em,
        `update openapi_spec set processing_state = 'progress'
          where id = ? and (?::integer is null or source_generation = ?::integer)
          returning source_generation, source_url`,
        [input.specId, input.generation ?? null, input.generation ?? null],
      );
      if (rows.length > 0) return { status: 'ready', generation: rows[0].source_generation, kind: rows[0].source_url === null ? 'text' : 'url' };
      const exists = await execute(em, 'select 1 from openapi_spec where id = ?', [input.specId]);
      return exists.length > 0 ? { status: 'stale' } : { status: 'gone' };
    },

    /**
     * Fetches, parses, validates and records. A new version is recorded only when the content
     * hash differs from the last version's; either way the spec ends `complete` without error.
     * Throws an ApplicationFailure whose type is the precise reason when processing fails.
     */
    async fetchOpenApiSpec(input: FetchInput): Promise<FetchResult> {
      const em = orm.em.fork();
      const [spec] = await execute<SpecRow>(em, 'select id, source_url, source_text_id, source_generation, last_version_id from openapi_spec where id = ?', [input.specId]);
      if (!spec) return { outcome: 'gone' };
      if (spec.source_generation !== input.generation) return { outcome: 'stale' };

      let fetched: Fetched;
      try {
        let source: { url: string } | { text: string };
        if (spec.source_url !== null) {
          source = { url: spec.source_url };
        } else {
          const [row] = await execute<{ text: string }>(em, 'select text from openapi_spec_text where id = ?', [spec.source_text_id]);
          if (!row) return { outcome: 'stale' };
          source = { text: row.text };
        }
        fetched = await collectDocuments(source, policy);
        beat({ validating: Object.keys(fetched.filesystem).length });
        await validateDefinition(fetched.filesystem, fetched.entryKey);
      } catch (error) {
        throw asFailure(error);
      }
      const hash = contentHash(fetched.filesystem);
      const serialized = JSON.stringify(fetched.filesystem);

      return em.transactional(async (tx) => {
        const [current] = await execute<SpecRow & { last_hash: string | null }>(
          tx,
          `select s.id, s.source_generation, s.last_version_id, v.content_hash as last_hash
             from openapi_spec s left join openapi_spec_version v on v.id = s.last_version_id
            where s.id = ? for update of s`,
          [input.specId],
        );
        if (!current) return { outcome: 'gone' as const };
        if (current.source_generation !== input.generation) return { outcome: 'stale' as const };
        const now = new Date();
        if (current.last_version_id === input.versionId || current.last_hash === hash) {
          await execute(
            tx,
            `update openapi_spec set processing_state = 'complete', last_processed_at = ?, last_process_error_code = null,
                    last_process_errors = null where id = ?`,
            [now, input.specId],
          );
          return current.last_version_id === input.versionId
            ? { outcome: 'created' as const, versionId: input.versionId }
            : { outcome: 'unchanged' as const, versionId: current.last_version_id ?? undefined };
        }
        await execute(
          tx,
          `insert into openapi_spec_version (id, spec_id, content_hash, url, entry_key, filesystem, created_at)
           values (?, ?, ?, ?, ?, ?, ?) on conflict (id) do nothing`,
          [input.versionId, input.specId, hash, fetched.url, fetched.entryKey, serialized, now],
        );
        await execute(
          tx,
          `update openapi_spec set processing_state = 'complete', last_version_id = ?, last_processed_at = ?,
                  last_process_error_code = null, last_process_errors = null where id = ?`,
          [input.versionId, now, input.specId],
        );
        return { outcome: 'created' as const, versionId: input.versionId };
      });
    },

    /** Marks the spec `complete` with the failure's error code; the last version stays. */
    async recordOpenApiFailure(input: FailureInput): Promise<boolean> {
      const em = orm.em.fork();
      const errors = JSON.stringify([{ code: input.detail, message: input.message.slice(0, 2000) }]);
      const rows = await execute(
        em,
        `update openapi_spec set processing_state = 'complete', last_processed_at = ?, last_process_error_code = ?,
                last_process_errors = ?::jsonb where id = ? and source_generation = ? returning id`,
        [new Date(), processErrorCode(input.detail), errors, input.specId, input.generation],
      );
      return rows.length > 0;
    },

    /** Removes the refresh schedule of a spec that is gone or no longer has a URL source. */
    async removeOpenApiRefreshSchedule(input: { specId: string }): Promise<void> {
      await deleteRefreshSchedule(Context.current().client, input.specId);
      log.info('Removed the refresh schedule of an OpenAPI spec', { specId: input.specId });
    },
  };
}

export type OpenApiActivities = ReturnType<typeof openapiActivities>;

import { jobIntent, recordAudit } from '../db/audit.ts';
import { JOB_ACTIONS } from '../domain/audit.ts';
import { ApplicationFailure, Context, log } from '@temporalio/activity';
import { forkEm, transaction, type Orm } from '../db/orm.ts';
import {
  loadProcessedSpec,
  loadSpecText,
  lockSpecForRecording,
  markSpecProcessed,
  markSpecProcessing,
  recordSpecFailure,
  recordSpecVersion,
  specExists,
} from '../db/openapi.ts';
import {
  MAX_SPEC_FILES,
  SpecProcessingError,
  contentHash,
  documentKey,
  isProcessErrorDetail,
  isRetryableFailure,
  planRefFetches,
  processErrorCode,
  type readSpecDocument,
} from '../domain/openapi.ts';
import { MAX_EXPANDED_NODES, type validateOpenApiDefinition } from '../domain/openapi-validation.ts';
import { BoundedParseError, boundedTask, runBounded } from '../lib/bounded-parse.ts';
import { FetchError, guardedFetch, redactUrl, type FetchPolicy } from '../lib/guarded-fetch.ts';
import { beat, cancellationSignal, heartbeating } from '../lib/heartbeat.ts';
import { deleteRefreshSchedule } from '../temporal/openapi-refresh-schedule.ts';

export interface BeginInput {
  specId: string;
  /** Absent for scheduled refreshes: the current source is processed. */
  generation?: number;
}

export type BeginResult = { status: 'gone' } | { status: 'stale' } | { status: 'ready'; generation: number; kind: 'url' | 'text' };

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

const ACCEPT = 'application/json, application/yaml, application/x-yaml, text/yaml, text/plain;q=0.9, */*;q=0.8';

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

/**
 * Documents are parsed (JSON or YAML, alias expansion bounded: domain/openapi.ts) in a bounded
 * thread: 512 MiB of heap, SPEC_PARSE_TIMEOUT_MS of wall clock. What the document causes there (a
 * syntax error, too much expansion, running out of memory or time) is a SYNTAX_ERROR, not retried.
 */
const READ_DOCUMENT = boundedTask<typeof readSpecDocument>(new URL('../domain/openapi.ts', import.meta.url), 'readSpecDocument');
export const SPEC_PARSE_TIMEOUT_MS = 60_000;

async function readDocument(text: string, where: string, contentType?: string | null) {
  try {
    return await runBounded(READ_DOCUMENT, [text, where, contentType], { timeoutMs: SPEC_PARSE_TIMEOUT_MS, signal: cancellationSignal() });
  } catch (error) {
    if (!(error instanceof BoundedParseError)) throw error;
    switch (error.reason) {
      case 'rejected':
        throw new SpecProcessingError(isProcessErrorDetail(error.code) ? error.code : 'SYNTAX_ERROR', error.message);
      case 'out-of-memory':
        throw new SpecProcessingError('SYNTAX_ERROR', `${where} needs more memory to parse than a document may use`);
      case 'timeout':
        throw new SpecProcessingError('SYNTAX_ERROR', `${where} could not be parsed within ${SPEC_PARSE_TIMEOUT_MS / 1000} s`);
      case 'aborted':
        throw cancellationSignal()?.reason ?? error;
      default:
        throw error;
    }
  }
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
    const { document } = await readDocument(response.body.toString('utf8'), redactUrl(source.url), response.contentType);
    filesystem[entryKey] = document;
    // Relative references resolve against the URL given (credentials kept for fetching).
    queue.push(...planRefFetches(filesystem[entryKey], source.url, new Set([entryKey])));
  } else {
    const { document, format } = await readDocument(source.text, 'The spec text');
    entryKey = format === 'json' ? 'openapi.json' : 'openapi.yaml';
    filesystem[entryKey] = document;
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
    const { document } = await readDocument(response.body.toString('utf8'), redactUrl(next), response.contentType);
    filesystem[key] = document;
    for (const target of planRefFetches(filesystem[key], next, planned)) {
      planned.add(documentKey(target));
      queue.push(target);
    }
  }
  return { filesystem, entryKey, url };
}

/**
 * What validating one definition may cost. The validator dereferences the definition and walks the
 * result as a tree, so a few KB of schemas that each refer to the previous one twice stand for
 * trillions of nodes; it runs in a bounded thread (domain/openapi-validation.ts), where the
 * expansion is measured first and refused past `maxExpandedNodes`, and the thread is stopped past
 * `timeoutMs` or `maxOldGenerationSizeMb`. Each is a TOO_COMPLEX failure, not retried: the same
 * definition would cost the same again. The worker's own thread stays free meanwhile (heartbeats
 * go on; a cancelled activity stops the thread).
 */
export interface ValidationBudget {
  /** Wall clock of the validation thread. */
  timeoutMs: number;
  /** Heap (old generation) of the validation thread, in MiB. */
  maxOldGenerationSizeMb: number;
  /** Most nodes the definition may expand to through its `$ref`s (MAX_EXPANDED_NODES). */
  maxExpandedNodes: number;
}

export const SPEC_VALIDATION_BUDGET: ValidationBudget = {
  timeoutMs: 20_000,
  maxOldGenerationSizeMb: 512,
  maxExpandedNodes: MAX_EXPANDED_NODES,
};

const VALIDATE = boundedTask<typeof validateOpenApiDefinition>(
  new URL('../domain/openapi-validation.ts', import.meta.url),
  'validateOpenApiDefinition',
);

/** Validates the whole definition (every document bundled in) as Swagger 2.0 or OpenAPI 3.0/3.1, within `budget`. */
async function validateDefinition(filesystem: Record<string, unknown>, entryKey: string, budget: ValidationBudget): Promise<void> {
  let result;
  try {
    result = await runBounded(VALIDATE, [filesystem, entryKey, budget.maxExpandedNodes], {
      timeoutMs: budget.timeoutMs,
      maxOldGenerationSizeMb: budget.maxOldGenerationSizeMb,
      signal: cancellationSignal(),
    });
  } catch (error) {
    if (!(error instanceof BoundedParseError)) throw error;
    switch (error.reason) {
      case 'rejected':
        if (isProcessErrorDetail(error.code)) throw new SpecProcessingError(error.code, error.message);
        throw new SpecProcessingError('INVALID_SPEC', `The definition could not be validated: ${error.message}`);
      case 'out-of-memory':
        throw new SpecProcessingError(
          'TOO_COMPLEX',
          `Validating the definition needs more than the ${budget.maxOldGenerationSizeMb} MiB of memory it may use`,
        );
      case 'timeout':
        throw new SpecProcessingError('TOO_COMPLEX', `The definition could not be validated within ${budget.timeoutMs / 1000} s`);
      case 'aborted':
        throw cancellationSignal()?.reason ?? error;
      default:
        // The thread could not start or died: not the definition's fault, so it may be retried.
        throw error;
    }
  }
  if (!result.ok) throw new SpecProcessingError(result.code, result.message);
}

/**
 * Activities of the `openapi-processing` workflow; the fetch policy comes from the factory (and
 * the validation budget: SPEC_VALIDATION_BUDGET unless the caller, a test, gives another). Each
 * is idempotent: processing state changes are guarded by the source generation, and a version is
 * recorded under the id the workflow chose, at most once.
 */
export function openapiActivities(orm: Orm, policy: FetchPolicy, validation: Partial<ValidationBudget> = {}) {
  const budget: ValidationBudget = { ...SPEC_VALIDATION_BUDGET, ...validation };
  return {
    /** Marks the spec `progress` unless it is gone or its source changed since the run started. */
    async beginOpenApiProcessing(input: BeginInput): Promise<BeginResult> {
      const em = forkEm(orm);
      const begun = await markSpecProcessing(em, input.specId, input.generation ?? null);
      if (begun) return { status: 'ready', ...begun };
      return (await specExists(em, input.specId)) ? { status: 'stale' } : { status: 'gone' };
    },

    /**
     * Fetches, parses, validates and records. A new version is recorded only when the content
     * hash differs from the last version's; either way the spec ends `complete` without error.
     * Throws an ApplicationFailure whose type is the precise reason when processing fails.
     * Heartbeats every few seconds throughout, so a worker that dies mid-fetch is noticed soon.
     */
    async fetchOpenApiSpec(input: FetchInput): Promise<FetchResult> {
      return heartbeating(async () => {
        const em = forkEm(orm);
        const spec = await loadProcessedSpec(em, input.specId);
        if (!spec) return { outcome: 'gone' };
        if (spec.source_generation !== input.generation) return { outcome: 'stale' };

        let fetched: Fetched;
        try {
          let source: { url: string } | { text: string };
          if (spec.source_url !== null) {
            source = { url: spec.source_url };
          } else {
            const text = await loadSpecText(em, spec.source_text_id);
            if (text === undefined) return { outcome: 'stale' };
            source = { text };
          }
          fetched = await collectDocuments(source, policy);
          beat({ validating: Object.keys(fetched.filesystem).length });
          await validateDefinition(fetched.filesystem, fetched.entryKey, budget);
        } catch (error) {
          throw asFailure(error);
        }
        const hash = contentHash(fetched.filesystem);
        const serialized = JSON.stringify(fetched.filesystem);

        return transaction(em, async (tx) => {
          const current = await lockSpecForRecording(tx, input.specId);
          if (!current) return { outcome: 'gone' as const };
          if (current.source_generation !== input.generation) return { outcome: 'stale' as const };
          const now = new Date();
          if (current.last_version_id === input.versionId || current.last_hash === hash) {
            await markSpecProcessed(tx, input.specId, now);
            return current.last_version_id === input.versionId
              ? { outcome: 'created' as const, versionId: input.versionId }
              : { outcome: 'unchanged' as const, versionId: current.last_version_id ?? undefined };
          }
          await recordSpecVersion(tx, {
            id: input.versionId,
            specId: input.specId,
            contentHash: hash,
            url: fetched.url,
            entryKey: fetched.entryKey,
            filesystem: serialized,
            at: now,
          });
          // The audit event of the version the job recorded, in its transaction (once, whatever the
          // retries: the version id is the workflow's). By the system: a request's own event
          // (`openapi_spec.updated`, …) names who asked, a scheduled refresh has nobody.
          await recordAudit(
            tx,
            jobIntent({
              action: JOB_ACTIONS.openapiVersion.action,
              organizationId: current.organization_id,
              target: { type: 'openapi-spec', id: current.slug },
              fallbackCorrelationId: `openapi-version/${input.versionId}`,
              payload: { specSlug: current.slug, version: input.versionId, contentHash: hash },
            }),
          );
          return { outcome: 'created' as const, versionId: input.versionId };
        });
      });
    },

    /** Marks the spec `complete` with the failure's error code; the last version stays. */
    async recordOpenApiFailure(input: FailureInput): Promise<boolean> {
      return recordSpecFailure(forkEm(orm), {
        specId: input.specId,
        generation: input.generation,
        errorCode: processErrorCode(input.detail),
        errors: [{ code: input.detail, message: input.message.slice(0, 2000) }],
      });
    },

    /** Removes the refresh schedule of a spec that is gone or no longer has a URL source. */
    async removeOpenApiRefreshSchedule(input: { specId: string }): Promise<void> {
      await deleteRefreshSchedule(Context.current().client, input.specId);
      log.info('Removed the refresh schedule of an OpenAPI spec', { specId: input.specId });
    },
  };
}

export type OpenApiActivities = ReturnType<typeof openapiActivities>;

import { ActivityFailure, ApplicationFailure, TimeoutFailure, log, proxyActivities, uuid4, workflowInfo } from '@temporalio/workflow';
import type { OpenApiActivities } from '../activities/openapi-processing.ts';

export interface OpenApiProcessingInput {
  specId: string;
  organizationId: string;
  /**
   * The source generation this run was started for. A run for an older source records nothing.
   * Scheduled refreshes leave it out: they process whatever the source is when they run.
   */
  generation?: number;
  trigger: 'api' | 'schedule';
}

export interface OpenApiProcessingResult {
  outcome: 'created' | 'unchanged' | 'failed' | 'stale' | 'gone' | 'not-refreshable';
  versionId?: string;
  /** The precise failure reason (see PROCESS_ERROR_DETAILS). */
  error?: string;
}

/** Bookkeeping: short, retried until the database answers. */
const { beginOpenApiProcessing, recordOpenApiFailure, removeOpenApiRefreshSchedule } = proxyActivities<OpenApiActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/**
 * Fetching (the entry document and every document its `$ref`s reach, each under FETCH_TIMEOUT),
 * validating and recording. Timeouts, network trouble and 5xx answers are tried again a few
 * times; refused addresses, 4xx answers and invalid documents fail at once (non-retryable).
 */
const { fetchOpenApiSpec } = proxyActivities<OpenApiActivities>({
  startToCloseTimeout: '10 minutes',
  // The activity heartbeats every 5 s while it fetches and validates: a dead worker is noticed within this.
  heartbeatTimeout: '30 seconds',
  retry: {
    initialInterval: '1s',
    backoffCoefficient: 2,
    maximumInterval: '30s',
    maximumAttempts: 3,
    nonRetryableErrorTypes: [
      'INVALID_SPEC',
      'SYNTAX_ERROR',
      'UNRESOLVABLE_REF',
      'TOO_MANY_FILES',
      'ADDRESS_NOT_ALLOWED',
      'PROTOCOL_NOT_ALLOWED',
      'INVALID_URL',
      'TOO_LARGE',
      'TOO_MANY_REDIRECTS',
    ],
  },
});

/** The failure reason and message an activity failure carries. */
function describeFailure(error: unknown): { detail: string; message: string } {
  const cause = error instanceof ActivityFailure ? error.cause : error;
  if (cause instanceof ApplicationFailure && cause.type) return { detail: cause.type, message: cause.message };
  if (cause instanceof TimeoutFailure) return { detail: 'FETCH_TIMEOUT', message: 'Processing the OpenAPI spec took too long' };
  return { detail: 'NETWORK_ERROR', message: cause instanceof Error ? cause.message : String(cause) };
}

/**
 * Processes one OpenAPI spec: marks it `progress`, fetches and validates its documents, records
 * a new version when the content changed, and marks it `complete` (with an error code when it
 * failed). Started by the API on every create or source change, and by the spec's refresh
 * schedule (`openapi-refresh/<specId>`) for URL sources.
 */
export async function openapiProcessing(input: OpenApiProcessingInput): Promise<OpenApiProcessingResult> {
  const begun = await beginOpenApiProcessing({ specId: input.specId, generation: input.generation });
  if (begun.status === 'gone') {
    // The spec was deleted: a schedule still firing for it goes too.
    await removeOpenApiRefreshSchedule({ specId: input.specId });
    return { outcome: 'gone' };
  }
  if (begun.status === 'stale') return { outcome: 'stale' };
  if (input.trigger === 'schedule' && begun.kind === 'text') {
    await removeOpenApiRefreshSchedule({ specId: input.specId });
    return { outcome: 'not-refreshable' };
  }

  const versionId = uuid4().replace(/-/g, '');
  try {
    const result = await fetchOpenApiSpec({ specId: input.specId, generation: begun.generation, versionId });
    log.info('OpenAPI spec processed', { specId: input.specId, outcome: result.outcome, workflowId: workflowInfo().workflowId });
    return result;
  } catch (error) {
    const { detail, message } = describeFailure(error);
    await recordOpenApiFailure({ specId: input.specId, generation: begun.generation, detail, message });
    log.warn('OpenAPI spec processing failed', { specId: input.specId, detail });
    return { outcome: 'failed', error: detail };
  }
}

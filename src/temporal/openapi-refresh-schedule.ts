import {
  ScheduleAlreadyRunning,
  ScheduleNotFoundError,
  ScheduleOverlapPolicy,
  type Client,
  type ScheduleOptionsStartWorkflowAction,
} from '@temporalio/client';
import { JOB_KIND, ORGANIZATION_ID } from '../workflows/search-attributes.ts';

/**
 * The refresh schedule of a URL-sourced OpenAPI spec, `openapi-refresh/<specId>`: it starts an
 * `openapi-processing` run every interval. Managed by the API (created, updated, deleted with the
 * spec) and by the processing activities (removed when the spec is gone or has no URL any more).
 * The workflow is named by its type, not imported, so activities can use this module without
 * depending on workflow code (temporal/openapi-processing.ts checks that the input fits).
 */

export const OPENAPI_PROCESSING_KIND = 'openapi-processing';
export const OPENAPI_REFRESH_KIND = 'openapi-refresh';
/** The workflow type the schedule starts (the name of the function in workflows/openapi-processing.ts). */
export const OPENAPI_PROCESSING_WORKFLOW = 'openapiProcessing';

/** The input of a scheduled `openapiProcessing` run (an `OpenApiProcessingInput` without a generation). */
export interface ScheduledProcessingInput {
  specId: string;
  organizationId: string;
  trigger: 'schedule';
}

export const openapiRefreshScheduleId = (specId: string) => `openapi-refresh/${specId}`;

export const openapiSearchAttributes = (organizationId: string, kind: string) => [
  { key: ORGANIZATION_ID, value: organizationId },
  { key: JOB_KIND, value: kind },
];

export interface RefreshScheduleInput {
  specId: string;
  organizationId: string;
  slug: string;
  /** The source URL with credentials redacted (shown to operators only). */
  shownUrl: string;
  intervalMs: number;
  taskQueue: string;
}

function refreshAction(
  input: RefreshScheduleInput,
): ScheduleOptionsStartWorkflowAction<(input: ScheduledProcessingInput) => Promise<unknown>> {
  return {
    type: 'startWorkflow',
    workflowType: OPENAPI_PROCESSING_WORKFLOW,
    taskQueue: input.taskQueue,
    // Temporal appends the scheduled time to this id.
    workflowId: `openapi-processing/${input.specId}/scheduled`,
    args: [{ specId: input.specId, organizationId: input.organizationId, trigger: 'schedule' }],
    typedSearchAttributes: openapiSearchAttributes(input.organizationId, OPENAPI_PROCESSING_KIND),
    memo: { requestedBy: 'schedule' },
  };
}

function refreshSpec(intervalMs: number) {
  return { intervals: [{ every: intervalMs }], jitter: Math.min(Math.floor(intervalMs / 10), 5 * 60_000) };
}

/**
 * Creates the refresh schedule of a URL-sourced spec, or updates it when it exists (a paused
 * schedule stays paused). Idempotent.
 */
export async function upsertRefreshSchedule(client: Client, input: RefreshScheduleInput): Promise<void> {
  const scheduleId = openapiRefreshScheduleId(input.specId);
  const note = `Refreshes OpenAPI spec "${input.slug}" of organization ${input.organizationId} from ${input.shownUrl}`;
  try {
    await client.schedule.create({
      scheduleId,
      spec: refreshSpec(input.intervalMs),
      action: refreshAction(input),
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 minute' },
      typedSearchAttributes: openapiSearchAttributes(input.organizationId, OPENAPI_REFRESH_KIND),
      memo: { specId: input.specId, slug: input.slug },
      state: { note },
    });
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
    await client.schedule.getHandle(scheduleId).update((previous) => ({
      ...previous,
      spec: refreshSpec(input.intervalMs),
      action: refreshAction(input),
      state: { ...previous.state, note: previous.state.paused ? previous.state.note : note },
    }));
  }
}

/** Removes the refresh schedule of a spec; a missing one is fine. */
export async function deleteRefreshSchedule(client: Client, specId: string): Promise<void> {
  try {
    await client.schedule.getHandle(openapiRefreshScheduleId(specId)).delete();
  } catch (error) {
    if (error instanceof ScheduleNotFoundError) return;
    throw error;
  }
}

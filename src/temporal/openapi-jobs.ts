import {
  ScheduleAlreadyRunning, ScheduleNotFoundError, ScheduleOverlapPolicy, WorkflowExecutionAlreadyStartedError, type Client,
  type ScheduleOptionsStartWorkflowAction,
} from '@temporalio/client';
import { openapiProcessing, type OpenApiProcessingInput } from '../workflows/openapi-processing.ts';
import { JOB_KIND, ORGANIZATION_ID } from '../workflows/search-attributes.ts';

/**
 * OpenAPI processing runs and refresh schedules. Ids say what and which: a processing run is
 * `openapi-processing/<specId>/<timestamp>` (scheduled runs: `openapi-processing/<specId>/scheduled-<time>`),
 * the refresh schedule of a URL-sourced spec is `openapi-refresh/<specId>`. Inputs carry ids only:
 * never the source URL (it may hold credentials) nor the spec text.
 */

export const OPENAPI_PROCESSING_KIND = 'openapi-processing';
export const OPENAPI_REFRESH_KIND = 'openapi-refresh';

export const openapiProcessingWorkflowId = (specId: string, at: Date) => `openapi-processing/${specId}/${at.toISOString()}`;
export const openapiRefreshScheduleId = (specId: string) => `openapi-refresh/${specId}`;

const searchAttributes = (organizationId: string, kind: string) => [
  { key: ORGANIZATION_ID, value: organizationId },
  { key: JOB_KIND, value: kind },
];

/** Starts processing the spec's current source; returns the workflow id. */
export async function startOpenApiProcessing(
  client: Client,
  taskQueue: string,
  input: { specId: string; organizationId: string; generation: number },
  requestedBy: string,
): Promise<string> {
  const args: OpenApiProcessingInput = { ...input, trigger: 'api' };
  let at = new Date();
  for (let attempt = 0; ; attempt++) {
    const workflowId = openapiProcessingWorkflowId(input.specId, at);
    try {
      await client.workflow.start(openapiProcessing, {
        taskQueue,
        workflowId,
        args: [args],
        typedSearchAttributes: searchAttributes(input.organizationId, OPENAPI_PROCESSING_KIND),
        memo: { requestedBy, generation: input.generation },
      });
      return workflowId;
    } catch (error) {
      // Two starts in the same millisecond: take the next one.
      if (!(error instanceof WorkflowExecutionAlreadyStartedError) || attempt >= 5) throw error;
      at = new Date(at.getTime() + 1);
    }
  }
}

export interface RefreshScheduleInput {
  specId: string;
  organizationId: string;
  slug: string;
  /** The source URL with credentials redacted (shown to operators only). */
  shownUrl: string;
  intervalMs: number;
  taskQueue: string;
}

function refreshAction(input: RefreshScheduleInput): ScheduleOptionsStartWorkflowAction<typeof openapiProcessing> {
  return {
    type: 'startWorkflow',
    workflowType: openapiProcessing,
    taskQueue: input.taskQueue,
    // Temporal appends the scheduled time to this id.
    workflowId: `openapi-processing/${input.specId}/scheduled`,
    args: [{ specId: input.specId, organizationId: input.organizationId, trigger: 'schedule' }],
    typedSearchAttributes: searchAttributes(input.organizationId, OPENAPI_PROCESSING_KIND),
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
      typedSearchAttributes: searchAttributes(input.organizationId, OPENAPI_REFRESH_KIND),
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

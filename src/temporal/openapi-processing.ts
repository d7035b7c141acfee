import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { openapiProcessing, type OpenApiProcessingInput } from '../workflows/openapi-processing.ts';
import { OPENAPI_PROCESSING_KIND, openapiSearchAttributes, type ScheduledProcessingInput } from './openapi-refresh-schedule.ts';

/**
 * OpenAPI processing runs started by the API. Ids say what and which: a processing run is
 * `openapi-processing/<specId>/<timestamp>` (scheduled runs, see openapi-refresh-schedule.ts:
 * `openapi-processing/<specId>/scheduled-<time>`). Inputs carry ids only: never the source URL
 * (it may hold credentials) nor the spec text.
 */

/** Compile-time check: what the refresh schedule passes is an input of the workflow. */
const scheduledInputFits: ScheduledProcessingInput extends OpenApiProcessingInput ? true : never = true;
void scheduledInputFits;

export const openapiProcessingWorkflowId = (specId: string, at: Date) => `openapi-processing/${specId}/${at.toISOString()}`;

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
        typedSearchAttributes: openapiSearchAttributes(input.organizationId, OPENAPI_PROCESSING_KIND),
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

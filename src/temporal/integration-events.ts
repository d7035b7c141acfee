import { Context } from '@temporalio/activity';
import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client, type ScheduleOptionsStartWorkflowAction } from '@temporalio/client';
import {
  eventsRaisedSignal,
  integrationEvents,
  integrationEventsSweep,
  integrationEventsWorkflowId,
} from '../workflows/integration-events.ts';
import { JOB_KIND, ORGANIZATION_ID } from '../workflows/search-attributes.ts';
import type { RaisedFor } from '../db/integration-events.ts';

/**
 * The `integration-events` job: delivering installations' events to their integrations' scripts.
 * Raising events writes them in the change's transaction (src/db/integration-events.ts); once it
 * has committed, `announceIntegrationEvents` starts the job of each installation concerned, or
 * signals the one running. Operators find an installation's deliveries in the Temporal UI under
 * `WorkflowId = "integration-events/<installationId>"` (every page of events is an activity
 * there; a failed attempt's error names its event), all of them under `DocsJobKind =
 * "integration-events"`, and the
 * sweep's schedule as `integration-events-sweep/<task queue>`.
 */
export { integrationEventsWorkflowId };

export const INTEGRATION_EVENTS_KIND = 'integration-events';

export type { RaisedFor };

/** Starts each installation's delivery job, or tells the running one that events were raised. */
export async function announceIntegrationEvents(client: Client, taskQueue: string, raised: readonly RaisedFor[]): Promise<void> {
  const seen = new Set<string>();
  for (const { installationId, organizationId } of raised) {
    if (seen.has(installationId)) continue;
    seen.add(installationId);
    await client.workflow.signalWithStart(integrationEvents, {
      taskQueue,
      workflowId: integrationEventsWorkflowId(installationId),
      args: [installationId],
      signal: eventsRaisedSignal,
      signalArgs: [],
      typedSearchAttributes: [
        { key: ORGANIZATION_ID, value: organizationId },
        { key: JOB_KIND, value: INTEGRATION_EVENTS_KIND },
      ],
    });
  }
}

/**
 * From an activity (a merge, the sweep): the same, with the worker's client on the activity's
 * queue. Outside an activity (called directly, as in tests) it does nothing: the sweep starts them.
 */
export async function announceIntegrationEventsFromActivity(raised: readonly RaisedFor[]): Promise<void> {
  let context: Context;
  try {
    context = Context.current();
  } catch {
    return;
  }
  await announceIntegrationEvents(context.client, context.info.taskQueue, raised);
}

export const integrationEventsSweepScheduleId = (taskQueue: string) => `integration-events-sweep/${taskQueue}`;

function sweepAction(taskQueue: string): ScheduleOptionsStartWorkflowAction<typeof integrationEventsSweep> {
  return {
    type: 'startWorkflow',
    workflowType: integrationEventsSweep,
    taskQueue,
    // Temporal appends the scheduled time to this id.
    workflowId: `integration-events-sweep/${taskQueue}/scheduled`,
    args: [],
    typedSearchAttributes: [{ key: JOB_KIND, value: INTEGRATION_EVENTS_KIND }],
  };
}

/** Creates the sweep's schedule (every `everyMs`), or updates it when it exists. Idempotent. */
export async function upsertIntegrationEventsSweepSchedule(client: Client, taskQueue: string, everyMs: number): Promise<void> {
  const scheduleId = integrationEventsSweepScheduleId(taskQueue);
  const spec = { intervals: [{ every: everyMs }] };
  try {
    await client.schedule.create({
      scheduleId,
      spec,
      action: sweepAction(taskQueue),
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 minute' },
      typedSearchAttributes: [{ key: JOB_KIND, value: INTEGRATION_EVENTS_KIND }],
      state: { note: `Starts the delivery of integration events whose start was lost (task queue ${taskQueue})` },
    });
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
    await client.schedule.getHandle(scheduleId).update((previous) => ({ ...previous, spec, action: sweepAction(taskQueue) }));
  }
}

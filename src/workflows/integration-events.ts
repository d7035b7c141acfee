import { ActivityFailure, ApplicationFailure } from '@temporalio/common';
import { condition, continueAsNew, defineSignal, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { IntegrationEventsActivities } from '../activities/integration-events.ts';

const { pendingIntegrationEvents, failIntegrationEvent, wakeStaleIntegrationEvents } = proxyActivities<IntegrationEventsActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/**
 * One activity delivers a page of events in order, each recorded as it settles, and stops at the
 * first to try again: its retry (from 1 s, doubling, at most every 15 minutes, 10 attempts, about
 * an hour and a half) resumes at that event, since the settled ones are skipped. Its error names the
 * event. Once the attempts are spent that event is settled as failed and the next ones go.
 */
const { deliverIntegrationEvents } = proxyActivities<IntegrationEventsActivities>({
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '1 minute',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '15 minutes', maximumAttempts: 10 },
});

/** `integration-events/<installationId>`: the one job delivering an installation's events, in order. */
export const integrationEventsWorkflowId = (installationId: string) => `integration-events/${installationId}`;

/** Sent when events were raised for the installation: the job reads its pending events again. */
export const eventsRaisedSignal = defineSignal('eventsRaised');

/** How long a job with nothing left to deliver waits for more before it ends. */
const IDLE = '10 minutes';
/** Events read at a time; deliveries before the job continues as a new run (its history stays small). */
const PAGE = 50;
const RUN_DELIVERIES = 500;

/**
 * Delivers an installation's pending events one at a time, in the order they were raised (their
 * `seq`), a page at a time, each at least once: an event is settled by its delivery (or failed once
 * its attempts are spent) before the next one goes, so an integration never sees them out of order. Started (or
 * signalled) by the API once the change raising events has committed, and by the sweep for events
 * whose start was lost; ends after IDLE without events, continuing as a new run every
 * RUN_DELIVERIES deliveries. `afterSeq`: the last event a previous run went past.
 */
export async function integrationEvents(installationId: string, afterSeq = '0'): Promise<{ delivered: number }> {
  let raised = true;
  setHandler(eventsRaisedSignal, () => {
    raised = true;
  });
  let seq = afterSeq;
  let delivered = 0;
  for (;;) {
    if (!raised && !(await condition(() => raised, IDLE))) return { delivered };
    raised = false;
    for (;;) {
      const pending = await pendingIntegrationEvents(installationId, seq, PAGE);
      if (pending.length === 0) break;
      const ids = pending.map((event) => event.id);
      try {
        await deliverIntegrationEvents(ids);
      } catch (error) {
        // The attempts on the first event still pending are spent: it fails, the page is read again after it.
        const failed = await failIntegrationEvent(ids, failureMessage(error));
        const at = pending.findIndex((event) => event.id === failed);
        seq = at < 0 ? seq : pending[at].seq;
        delivered += at + 1;
        continue;
      }
      seq = pending[pending.length - 1].seq;
      delivered += pending.length;
      if (delivered >= RUN_DELIVERIES || workflowInfo().continueAsNewSuggested) {
        return continueAsNew<typeof integrationEvents>(installationId, seq);
      }
    }
  }
}

/** Why the last attempt failed, as the event keeps it. */
function failureMessage(error: unknown): string {
  const cause = error instanceof ActivityFailure ? error.cause : error;
  if (cause instanceof ApplicationFailure) return cause.message;
  return cause instanceof Error ? cause.message : String(cause);
}

/**
 * The sweep, run by its schedule: starts (or signals) the job of every installation with events
 * pending for longer than a minute, those whose start was lost (the API process stopped between
 * its commit and the start).
 */
export async function integrationEventsSweep(): Promise<{ woken: number }> {
  return { woken: await wakeStaleIntegrationEvents() };
}

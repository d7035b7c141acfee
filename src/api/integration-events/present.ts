import type { IntegrationEventRow } from '../../db/integration-events.ts';
import type { EventLogLine } from '../../domain/integration-events.ts';

/**
 * An event delivered to an integration (GitBook's `IntegrationEvent`); only settled events are
 * presented (GitBook's status is `success` or `failed`).
 */
export function presentIntegrationEvent(row: IntegrationEventRow) {
  return {
    id: row.id,
    integrationId: row.integrationName,
    ...(row.installationId ? { installationId: row.installationId } : {}),
    createdAt: row.createdAt.toISOString(),
    payload: row.payload as { eventId: string; type: string },
    status: row.status === 'success' ? ('success' as const) : ('failed' as const),
  };
}

/** `getIntegrationEvent`: the event and its trace (the lines its script wrote while handling it). */
export function presentIntegrationEventWithTrace(row: IntegrationEventRow) {
  return { event: presentIntegrationEvent(row), trace: { logs: row.logs as EventLogLine[] } };
}

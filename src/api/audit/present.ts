import type { AuditEventRow } from '../../db/audit.ts';

/** Audit events from rows: pure. */

const ACTOR_TYPES = ['user', 'integration', 'installation', 'system', 'support'] as const;
const SOURCES = ['ui', 'api', 'integration', 'webhook', 'workflow', 'script', 'support'] as const;

const oneOf = <T extends string>(values: readonly T[], value: string, fallback: T): T =>
  (values as readonly string[]).includes(value) ? (value as T) : fallback;

export function presentAuditEvent(row: AuditEventRow, publicUrl: string) {
  return {
    object: 'audit-event' as const,
    id: row.id,
    occurredAt: new Date(row.occurred_at).toISOString(),
    action: row.action,
    actor: {
      type: oneOf(ACTOR_TYPES, row.actor_type, 'system'),
      id: row.actor_id,
      ...(row.actor_label != null ? { label: row.actor_label } : {}),
    },
    source: oneOf(SOURCES, row.source, 'api'),
    target: { type: row.target_type, id: row.target_id, ...(row.target_label != null ? { label: row.target_label } : {}) },
    urls: { location: `${publicUrl}/v1/orgs/${encodeURIComponent(row.organization_id)}/audit-events/${row.id}` },
  };
}

export function presentAuditEventDetails(row: AuditEventRow, publicUrl: string) {
  return {
    ...presentAuditEvent(row, publicUrl),
    ...(row.execution_id != null ? { executionId: row.execution_id } : {}),
    correlationId: row.correlation_id,
    ...(row.caused_by_event_id != null ? { causedByEventId: row.caused_by_event_id } : {}),
    schemaVersion: row.schema_version,
    payload: row.payload ?? {},
    origin: {
      ...(row.ip_address != null ? { ipAddress: row.ip_address } : {}),
      ...(row.token_kind != null ? { tokenKind: row.token_kind } : {}),
    },
  };
}

export function presentAuditAction(action: { id: string; label: string }) {
  return { object: 'audit-event-action' as const, id: action.id, label: action.label };
}

import { Type } from 'typebox';
import { Id, Timestamp } from '../schemas.ts';

export const AuditOrgParams = Type.Object({ organizationId: Id });
export const AuditEventParams = Type.Object({
  organizationId: Id,
  auditEventId: Type.String({ minLength: 1, maxLength: 64, description: 'Unique identifier of the audit event.' }),
});

/** GitBook's `listOrganizationAuditEvents` query: up to 100 events a page, 20 by default. */
export const AuditEventsQuery = Type.Object({
  page: Type.Optional(Type.String({ maxLength: 1024, description: 'Cursor from `next.page` of the previous answer' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Number of events to return, up to 100.' })),
  from: Type.Optional(Type.String({ format: 'date-time', description: 'Include events occurring at or after this time.' })),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'Include events occurring at or before this time.' })),
  action: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Filter by an exact audit action name.' })),
  actor: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Filter by an exact stable actor identifier.' })),
  target: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Filter by an exact stable target identifier.' })),
});

const ActorTypes = ['user', 'integration', 'installation', 'system', 'support'] as const;
const Sources = ['ui', 'api', 'integration', 'webhook', 'workflow', 'script', 'support'] as const;

export const AuditEventActor = Type.Object({
  type: Type.Union(
    ActorTypes.map((t) => Type.Literal(t)),
    { description: 'Kind of actor that initiated the change.' },
  ),
  id: Type.String({ description: 'Stable identifier of the actor.' }),
  label: Type.Optional(Type.String({ description: 'Display label captured when the event was recorded.' })),
});

export const AuditEventTarget = Type.Object({
  type: Type.String({ description: 'Kind of resource affected by the change.' }),
  id: Type.String({ description: 'Stable identifier of the affected resource.' }),
  label: Type.Optional(Type.String({ description: 'Display label captured when the event was recorded.' })),
});

const eventFields = {
  object: Type.Literal('audit-event'),
  id: Type.String({ format: 'uuid', description: 'Unique identifier of the audit event.' }),
  occurredAt: Timestamp,
  action: Type.String({ description: 'Stable action name describing the recorded change.' }),
  actor: AuditEventActor,
  source: Type.Union(
    Sources.map((s) => Type.Literal(s)),
    { description: 'Entry point that initiated the change.' },
  ),
  target: AuditEventTarget,
  urls: Type.Object({ location: Type.String({ format: 'uri', description: 'URL of the audit event in the API.' }) }),
};

export const AuditEventSchema = Type.Object(eventFields);

export const AuditEventDetailsSchema = Type.Object({
  ...eventFields,
  executionId: Type.Optional(Type.String({ description: 'Identifier of the operation that recorded the event.' })),
  correlationId: Type.Optional(Type.String({ description: 'Identifier shared by events produced by the same user action.' })),
  causedByEventId: Type.Optional(Type.String({ format: 'uuid', description: 'Audit event that caused this later system effect.' })),
  schemaVersion: Type.Integer({ minimum: 1, description: 'Version of the action payload schema.' }),
  payload: Type.Object({}, { additionalProperties: true, description: 'Allowlisted details specific to the action.' }),
  /** Where the change came from: the client address (as TRUST_PROXY lets it be known) and how the actor authenticated. */
  origin: Type.Optional(
    Type.Object({
      ipAddress: Type.Optional(Type.String()),
      tokenKind: Type.Optional(
        Type.String({ description: '`api` (a token of the user), `sso` (a token an SSO sign-in minted), `saml` (the sign-in itself).' }),
      ),
    }),
  ),
});

export const AuditEventList = Type.Object({
  items: Type.Array(AuditEventSchema),
  count: Type.Integer(),
  next: Type.Optional(Type.Object({ page: Type.String() })),
});

export const AuditEventActionSchema = Type.Object({
  object: Type.Literal('audit-event-action'),
  id: Type.String({ description: 'Stable action identifier stored on audit events.' }),
  label: Type.String({ description: 'Human-readable label for the action.' }),
});

export const AuditEventActionList = Type.Object({ items: Type.Array(AuditEventActionSchema) });

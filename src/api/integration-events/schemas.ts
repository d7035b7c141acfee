import { Type } from 'typebox';
import { ListOf, ListQuery } from '../schemas.ts';
import { IntegrationName } from '../integrations/schemas.ts';

export const EventsParams = Type.Object({ integrationName: IntegrationName });
export const EventParams = Type.Object({ integrationName: IntegrationName, eventId: Type.String({ minLength: 1, maxLength: 64 }) });
export const ListEventsQuery = ListQuery;

/** GitBook's `IntegrationEvent`: `payload` is the event the integration received (GitBook's `Event`). */
export const IntegrationEventSchema = Type.Object({
  id: Type.String(),
  integrationId: Type.String(),
  installationId: Type.Optional(Type.String()),
  createdAt: Type.String({ format: 'date-time' }),
  payload: Type.Object({ eventId: Type.String(), type: Type.String() }, { additionalProperties: true }),
  status: Type.Union([Type.Literal('success'), Type.Literal('failed')]),
});
export const IntegrationEventList = ListOf(IntegrationEventSchema);

/** GitBook's `IntegrationEventLog`: what the script wrote to its console while it handled the event. */
const EventLog = Type.Object({
  message: Type.String(),
  timestamp: Type.String({ format: 'date-time' }),
  level: Type.Union(['debug', 'info', 'warn', 'error'].map((level) => Type.Literal(level))),
});
export const IntegrationEventAnswer = Type.Object({
  event: IntegrationEventSchema,
  trace: Type.Object({ logs: Type.Array(EventLog) }),
});

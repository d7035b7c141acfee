import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** Events delivered to integrations (Migration0038IntegrationEvents); read and written in src/db/integration-events.ts. */
export const IntegrationEvent = defineEntity({
  name: 'IntegrationEvent',
  tableName: 'integration_event',
  properties: {
    id: p.string().primary(),
    // Assigned by the database (identity): the order events are delivered in.
    seq: p.bigint('string').autoincrement(),
    integrationName: p.string(),
    organizationId: p.string(),
    installationId: p.string().nullable(),
    type: p.string(),
    payload: p.json<Record<string, unknown>>(),
    status: p.string().defaultRaw("'pending'"),
    attempts: p.integer().defaultRaw('0'),
    responseStatus: p.integer().nullable(),
    error: p.string().nullable(),
    logs: p.json<unknown[]>().defaultRaw("'[]'"),
    createdAt: p.datetime().defaultRaw('now()'),
    settledAt: p.datetime().nullable(),
  },
});
export type IntegrationEvent = InferEntity<typeof IntegrationEvent>;

export const entities = [IntegrationEvent];

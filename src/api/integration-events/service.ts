import type { Static } from 'typebox';
import { findIntegrationEvent, integrationEventRow, integrationEventsListing } from '../../db/integration-events.ts';
import { integrationAccess } from '../../domain/integrations.ts';
import type { Ctx } from '../context.ts';
import { forbidden, notFound } from '../errors.ts';
import { loadIntegration, membershipsOf } from '../integrations/service.ts';
import { paginate } from '../pagination.ts';
import { presentIntegrationEvent, presentIntegrationEventWithTrace } from './present.ts';
import type { ListEventsQuery } from './schemas.ts';

/**
 * The events delivered to an integration's installations and their outcomes: for admins of the
 * organization that owns the integration (GitBook's rule). Pending events are not listed: the
 * Temporal UI shows them being delivered (`integration-events/<installationId>`).
 */
async function ownedIntegration(ctx: Ctx, name: string) {
  const memberships = await membershipsOf(ctx);
  const integration = await loadIntegration(ctx, name, memberships);
  if (!integrationAccess(integration, memberships).admin) {
    throw forbidden('You need the admin role in the organization that owns this integration to read its events');
  }
  return integration;
}

export async function listIntegrationEvents(ctx: Ctx, name: string, query: Static<typeof ListEventsQuery>) {
  const integration = await ownedIntegration(ctx, name);
  return paginate(ctx.em, integrationEventsListing(ctx.em, integration.name), query, (rows) =>
    rows.map((row) => presentIntegrationEvent(integrationEventRow(row))),
  );
}

export async function getIntegrationEvent(ctx: Ctx, name: string, eventId: string) {
  const integration = await ownedIntegration(ctx, name);
  const event = await findIntegrationEvent(ctx.em, integration.name, eventId);
  if (!event || event.status === 'pending') throw notFound('Integration event');
  return presentIntegrationEventWithTrace(event);
}

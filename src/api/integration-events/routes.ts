import { ctxOf, type RoutePlugin } from '../context.ts';
import { errors } from '../schemas.ts';
import { EventParams, EventsParams, IntegrationEventAnswer, IntegrationEventList, ListEventsQuery } from './schemas.ts';
import { getIntegrationEvent, listIntegrationEvents } from './service.ts';

/** Events delivered to integrations: HTTP only. The rules are in ./service.ts. */
export const integrationEventRoutes: RoutePlugin = async (app) => {
  const tags = ['integrations'];

  app.get(
    '/v1/integrations/:integrationName/events',
    {
      schema: {
        tags,
        summary: "List the events delivered to the integration's installations, newest first, with their outcome",
        params: EventsParams,
        querystring: ListEventsQuery,
        response: { 200: IntegrationEventList, ...errors(403, 404) },
      },
    },
    async (request) => listIntegrationEvents(ctxOf(request), request.params.integrationName, request.query),
  );

  app.get(
    '/v1/integrations/:integrationName/events/:eventId',
    {
      schema: {
        tags,
        summary: 'Get an event delivered to the integration, with what its script wrote while handling it',
        params: EventParams,
        response: { 200: IntegrationEventAnswer, ...errors(403, 404) },
      },
    },
    async (request) => getIntegrationEvent(ctxOf(request), request.params.integrationName, request.params.eventId),
  );
};

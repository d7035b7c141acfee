import { ctxOf, type RoutePlugin } from '../../context.ts';
import { errors, NoContent } from '../../schemas.ts';
import { SiteParams } from '../schemas.ts';
import {
  AgentFeedbackAnswer,
  AgentFeedbackInput,
  AggregateBody,
  AggregateResult,
  LegacyAgentFeedback,
  TrackEventsBody,
  TrackEventsHeaders,
  VisitorSegments,
} from './schemas.ts';
import { aggregateEvents, listVisitorSegments, submitAgentFeedback, submitLegacyAgentFeedback, trackEvents } from './service.ts';

/** Site insights and agent feedback: HTTP only. The rules are in ./service.ts. */
export const siteInsightsRoutes: RoutePlugin = async (app) => {
  const tags = ['site-insights'];
  const site = '/v1/orgs/:organizationId/sites/:siteId';

  app.post(
    `${site}/insights/events`,
    {
      // The renderer's own credential: a site lookup token of the organization.
      config: { siteLookup: true },
      schema: {
        tags,
        summary: "Track events of a site's readers (204 once they are stored)",
        params: SiteParams,
        headers: TrackEventsHeaders,
        body: TrackEventsBody,
        response: { 204: NoContent, ...errors(403, 404) },
      },
    },
    async (request, reply) => {
      const { params, headers } = request;
      await trackEvents(ctxOf(request), params.organizationId, params.siteId, request.body, {
        country: headers['x-location-country'],
        latitude: headers['x-location-latitude'],
        longitude: headers['x-location-longitude'],
      });
      return reply.status(204).send();
    },
  );

  app.post(
    `${site}/insights/events/aggregate`,
    {
      schema: {
        tags,
        summary: "Query a site's insights events",
        params: SiteParams,
        body: AggregateBody,
        response: { 200: AggregateResult, ...errors(403, 404) },
      },
    },
    async (request) => aggregateEvents(ctxOf(request), request.params.organizationId, request.params.siteId, request.body),
  );

  app.get(
    `${site}/insights/visitor-segments`,
    {
      schema: {
        tags,
        summary: 'List the visitor segments of a site (last 30 days)',
        params: SiteParams,
        response: { 200: VisitorSegments, ...errors(403, 404) },
      },
    },
    async (request) => listVisitorSegments(ctxOf(request), request.params.organizationId, request.params.siteId),
  );

  app.post(
    `${site}/agents/feedback`,
    {
      config: { siteLookup: true },
      schema: {
        tags,
        summary: 'Submit feedback of an AI agent',
        params: SiteParams,
        body: AgentFeedbackInput,
        response: { 201: AgentFeedbackAnswer, ...errors(403, 404) },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await submitAgentFeedback(ctxOf(request), request.params.organizationId, request.params.siteId, request.body)),
  );

  app.post(
    `${site}/agent-feedback`,
    {
      config: { siteLookup: true },
      schema: {
        tags,
        summary: 'Submit feedback of an AI agent about the content of a site (deprecated: use agents/feedback)',
        deprecated: true,
        params: SiteParams,
        body: LegacyAgentFeedback,
        response: { 204: NoContent, ...errors(403, 404) },
      },
    },
    async (request, reply) => {
      await submitLegacyAgentFeedback(ctxOf(request), request.params.organizationId, request.params.siteId, request.body);
      return reply.status(204).send();
    },
  );
};

import { ctxOf, type RoutePlugin } from '../context.ts';
import { errors } from '../schemas.ts';
import {
  AuditEventActionList,
  AuditEventDetailsSchema,
  AuditEventList,
  AuditEventParams,
  AuditEventsQuery,
  AuditOrgParams,
} from './schemas.ts';
import { getAuditEvent, listAuditActions, listAuditEvents } from './service.ts';

/** The audit log of an organization (GitBook's audit event operations): HTTP only. The rules are in ./service.ts. */
export const auditRoutes: RoutePlugin = async (app) => {
  const tags = ['organizations'];

  app.get(
    '/v1/orgs/:organizationId/audit-events',
    {
      schema: {
        tags,
        summary: 'List organization audit events, newest first (organization admins)',
        params: AuditOrgParams,
        querystring: AuditEventsQuery,
        response: { 200: AuditEventList, ...errors(403, 404) },
      },
    },
    async (request) => listAuditEvents(ctxOf(request), request.params.organizationId, request.query),
  );

  app.get(
    '/v1/orgs/:organizationId/audit-events/:auditEventId',
    {
      schema: {
        tags,
        summary: 'Get an organization audit event with its allowlisted payload (organization admins)',
        params: AuditEventParams,
        response: { 200: AuditEventDetailsSchema, ...errors(403, 404) },
      },
    },
    async (request) => getAuditEvent(ctxOf(request), request.params.organizationId, request.params.auditEventId),
  );

  app.get(
    '/v1/orgs/:organizationId/audit-event-actions',
    {
      schema: {
        tags,
        summary: 'List the audit event actions and their labels (organization admins)',
        params: AuditOrgParams,
        response: { 200: AuditEventActionList, ...errors(403, 404) },
      },
    },
    async (request) => listAuditActions(ctxOf(request), request.params.organizationId),
  );
};

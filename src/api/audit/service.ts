import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify';
import type { Static } from 'typebox';
import {
  attachAudit,
  auditEventById,
  auditEventsListing,
  prepareAudit,
  recordAudit,
  refineAudit,
  type AuditIntent,
} from '../../db/audit.ts';
import { transaction } from '../../db/orm.ts';
import {
  answerLabel,
  auditActions,
  MUTATING_METHODS,
  requestPayload,
  routeAudit,
  routeTarget,
  type RouteAudit,
} from '../../domain/audit.ts';
import { requireOrganization } from '../access.ts';
import type { Caller, Ctx } from '../context.ts';
import { badRequest, notFound } from '../errors.ts';
import { paginate } from '../pagination.ts';
import { presentAuditAction, presentAuditEvent, presentAuditEventDetails } from './present.ts';
import type { AuditEventsQuery } from './schemas.ts';

/**
 * The audit log: reading it (GitBook's three operations, organization admins only: a member below
 * admin is answered 403, anyone else 404, as every admin-only operation), and recording it: every
 * mutating route of the catalog (domain/audit.ts) carries an audit intent, recorded in the
 * transaction of its change (src/db/audit.ts, src/db/orm.ts).
 */

const ACTION = 'read the audit log of this organization';

export async function listAuditEvents(ctx: Ctx, organizationId: string, query: Static<typeof AuditEventsQuery>) {
  const { organization } = await requireOrganization(ctx, organizationId, 'admin', ACTION);
  if (query.from && query.to && Date.parse(query.from) > Date.parse(query.to)) throw badRequest('from must not be after to');
  const retention = ctx.deps.config.auditRetentionMs;
  const listing = auditEventsListing(ctx.em, organization.id, retention, query);
  return paginate(ctx.em, listing, { page: query.page, limit: query.limit ?? 20 }, (rows) =>
    rows.map((row) => presentAuditEvent(row, ctx.deps.config.publicUrl)),
  );
}

export async function getAuditEvent(ctx: Ctx, organizationId: string, eventId: string) {
  const { organization } = await requireOrganization(ctx, organizationId, 'admin', ACTION);
  const row = await auditEventById(ctx.em, organization.id, eventId, ctx.deps.config.auditRetentionMs);
  if (!row) throw notFound('Audit event');
  return presentAuditEventDetails(row, ctx.deps.config.publicUrl);
}

export async function listAuditActions(ctx: Ctx, organizationId: string) {
  await requireOrganization(ctx, organizationId, 'admin', ACTION);
  return { items: auditActions().map(presentAuditAction) };
}

/** Who a request's caller is, for an event: the user, and how their token was minted. */
function actorOf(caller: Caller | null | undefined): Pick<AuditIntent, 'actor' | 'tokenKind'> {
  if (!caller) return { actor: { type: 'system', id: 'system' } };
  return {
    actor: { type: 'user', id: caller.user.id, label: caller.user.displayName },
    tokenKind: caller.siteLookup ? 'site-lookup' : caller.visitor ? 'site-visitor' : caller.organizationId ? 'sso' : 'api',
  };
}

/** The audit intent of a request of a catalogued route. */
function requestIntent(request: FastifyRequest, url: string, entry: RouteAudit, retentionMs: number): AuditIntent {
  const params = (request.params ?? {}) as Record<string, string | undefined>;
  return {
    action: entry.action,
    ...actorOf(request.caller as Caller | null | undefined),
    // Routes outside /v1 that change something are pushes of other systems (a git host's webhook).
    source: url.startsWith('/hooks/') ? 'webhook' : 'api',
    target: routeTarget(url, entry, params),
    hints: {
      organizationId: params.organizationId,
      spaceId: params.spaceId,
      collectionId: params.collectionId,
      integrationName: params.integrationName,
      installationId: params.installationId,
      inviteId: params.inviteId,
    },
    // The client's address, as Fastify gives it: from X-Forwarded-For of the proxies TRUST_PROXY trusts only.
    ipAddress: request.ip,
    // Unique per request whatever the client sends: a reused X-Request-Id must not make one
    // request's event stand in for another's (events are unique by correlation and action). The
    // request id, the client's or Fastify's, is the execution id.
    correlationId: randomUUID(),
    executionId: request.id,
    payload: requestPayload(url, entry, params, request.body),
    retentionMs,
  };
}

/** A creation's answer names what it created: the event's target becomes it. */
function refineFromAnswer(request: FastifyRequest, reply: FastifyReply, answer: unknown, entry: RouteAudit): void {
  if (reply.statusCode !== 201 || !answer || typeof answer !== 'object') return;
  const id = (answer as { id?: unknown }).id;
  if (typeof id !== 'string') return;
  const type = entry.action.split('.')[0].replace(/_/g, '-');
  refineAudit(request.em, { type, id, label: answerLabel(answer) });
}

/**
 * Makes every catalogued mutating route record its event: an `onRoute` hook, so it must be added
 * before the routes. A route of scope `request` runs its handler in one transaction (the request's
 * unit of work becomes that transaction's while it runs); a route of scope `service` leaves its
 * transactions to its service, and records the event on its own when it succeeded without writing
 * (it handed the change to a job). Either way the answer is sent once the event is committed.
 */
/** What a held `reply.send` gives back to the handler while its answer waits for the commit. */
const HELD = Object.freeze({ held: true });

export function registerAuditRecording(app: FastifyInstance): void {
  const retentionMs = app.deps.config.auditRetentionMs;
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const method = methods.find((m) => MUTATING_METHODS.has(m));
    const entry = method && routeAudit(method, route.url);
    if (!entry) return;
    const url = route.url;
    const handler = route.handler as RouteHandlerMethod;
    route.handler = async function audited(this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) {
      const intent = requestIntent(request, url, entry, retentionMs);
      await prepareAudit(request.em, intent);
      attachAudit(request.em, intent);
      const own = request.em;
      const send = reply.send;
      let sent: { payload: unknown } | undefined;
      // What the handler sends waits for its event: a client never sees an answer whose change may
      // still be lost, nor an answer before the event is there to read.
      // Not the reply itself in return: a reply is a thenable that settles once sent, which would wait for ever.
      reply.send = function held(payload?: unknown) {
        sent = { payload };
        return HELD;
      } as unknown as typeof reply.send;
      let answer: unknown;
      try {
        if (entry.scope === 'service') {
          answer = await handler.call(this, request, reply);
          // Succeeded without writing itself (a job makes the change): the request's event on its own.
          if (!intent.recordedId && reply.statusCode < 400) await transaction(own, (tx) => recordAudit(tx, intent));
        } else {
          answer = await transaction(own, async (tx) => {
            request.em = tx;
            const value = await handler.call(this, request, reply);
            refineFromAnswer(request, reply, sent ? sent.payload : value, entry);
            return value;
          });
        }
      } finally {
        request.em = own;
        reply.send = send;
      }
      if (!sent) return answer;
      reply.send(sent.payload);
      return undefined;
    } as RouteHandlerMethod;
  });
}

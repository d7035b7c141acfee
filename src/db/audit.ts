import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { AuditActorType, AuditSource } from '../domain/audit.ts';
import { db } from './kysely.ts';
import type { Listing } from './listing.ts';
import type { Em } from './orm.ts';

/**
 * The audit log (Migration0032AuditLog): every change made through the API or a job, recorded in
 * the transaction of the change, so a change rolled back leaves no event and a change committed
 * always has one.
 *
 * A request that may change something carries an audit intent on its unit of work (`attachAudit`,
 * src/api/app.ts): who, from where, what (the route's action) and on what (its parameters). The
 * transaction wrapper (src/db/orm.ts `transaction`) records it when the outermost transaction of
 * that unit of work has written (PostgreSQL's `txid_current_if_assigned()` is set once a
 * transaction has written), inside that transaction, at most once per request and action (unique
 * on correlation id and action). Access checks and services refine the intent on the way: the
 * organization (`noteAuditOrganization`), the object a creation made (`refineAudit`).
 */

export interface AuditActor {
  type: AuditActorType;
  id: string;
  label?: string;
}

export interface AuditTarget {
  type: string;
  id: string;
  label?: string;
}

export interface AuditIntent {
  action: string;
  actor: AuditActor;
  /** How the actor authenticated: `api` (a token of the user's own), `sso` (a token an SSO sign-in minted). */
  tokenKind?: string;
  source: AuditSource;
  target: AuditTarget;
  /** The organization the event belongs to, once known (access checks note it; else resolved from the target). */
  organizationId?: string;
  /** Route parameters that may name the organization when nothing else did: organizationId, spaceId, collectionId. */
  hints?: Record<string, string | undefined>;
  ipAddress?: string;
  correlationId: string;
  executionId?: string;
  causedByEventId?: string;
  /** Allowlisted details (ids and names only: domain/audit.ts `requestPayload`). */
  payload: Record<string, unknown>;
  /** How long events are kept (AUDIT_RETENTION), in ms; unset: this recording deletes no expired event. */
  retentionMs?: number;
  /** The id of the event once recorded. */
  recordedId?: string;
}

const intents = new WeakMap<Em, AuditIntent>();

/** Attaches a request's (or a job step's) audit intent to its unit of work. */
export function attachAudit(em: Em, intent: AuditIntent): void {
  intents.set(em, intent);
}

/** The audit intent `em` carries, if any (a transaction started on a unit of work carries its intent). */
export function auditOf(em: Em): AuditIntent | undefined {
  return intents.get(em);
}

/** The organization the intent of `em` acts in, noted by the first access check that resolved one. */
export function noteAuditOrganization(em: Em, organizationId: string): void {
  const intent = intents.get(em);
  if (intent && !intent.organizationId) intent.organizationId = organizationId;
}

/** A service names what its request acted on (a creation: the object created), before its transaction commits. */
export function refineAudit(em: Em, target: Partial<AuditTarget> & { id: string }, payload?: Record<string, unknown>): void {
  const intent = intents.get(em);
  if (!intent || intent.recordedId) return;
  intent.target = { type: target.type ?? intent.target.type, id: target.id, ...(target.label ? { label: target.label } : {}) };
  if (payload) intent.payload = { ...intent.payload, ...payload };
}

/** A request that names its actor itself (a sign-in: the person it signed in, not its anonymous caller). */
export function refineAuditActor(em: Em, actor: AuditActor, tokenKind?: string): void {
  const intent = intents.get(em);
  if (!intent || intent.recordedId) return;
  intent.actor = actor;
  if (tokenKind) intent.tokenKind = tokenKind;
}

/**
 * What a job needs to record its events as effects of the request that started it: the request's
 * correlation id and its event. The request's event is recorded now, in a transaction of its own,
 * when it is not yet (the job, not the request, makes the change).
 */
export interface AuditCause {
  correlationId: string;
  causedByEventId?: string;
}

export async function auditCause(em: Em): Promise<AuditCause | undefined> {
  const intent = intents.get(em);
  if (!intent) return undefined;
  if (!intent.recordedId) await em.transactional((tx) => recordAudit(tx, intent));
  return { correlationId: intent.correlationId, ...(intent.recordedId ? { causedByEventId: intent.recordedId } : {}) };
}

/**
 * The intent of a job's change (source `workflow`): its actor is the user who started it, or
 * `system`; it shares the correlation id of the request that started it (else `fallback`, stable
 * across the job's retries: a retried step records once).
 */
export function jobIntent(job: {
  action: string;
  userId?: string | null;
  /** The organization, or the space it is resolved from. */
  organizationId?: string;
  spaceId?: string;
  target: AuditTarget;
  cause?: AuditCause;
  fallbackCorrelationId: string;
  executionId?: string;
  payload?: Record<string, unknown>;
}): AuditIntent {
  return {
    action: job.action,
    actor: job.userId ? { type: 'user', id: job.userId } : { type: 'system', id: 'system' },
    source: 'workflow',
    target: job.target,
    ...(job.organizationId ? { organizationId: job.organizationId } : {}),
    hints: { spaceId: job.spaceId },
    correlationId: job.cause?.correlationId ?? job.fallbackCorrelationId,
    ...(job.cause?.causedByEventId ? { causedByEventId: job.cause.causedByEventId } : {}),
    ...(job.executionId ? { executionId: job.executionId } : {}),
    payload: job.payload ?? {},
  };
}

/** Whether the current transaction of `em` has written anything. */
export async function transactionWrote(em: Em): Promise<boolean> {
  const { rows } = await sql<{ txid: string | null }>`select txid_current_if_assigned()::text as txid`.execute(db(em));
  return rows[0]?.txid != null;
}

/**
 * Resolves, before its request runs, the organization of an intent whose route names none (nor a
 * space or collection, which access checks note): what the route acts on may be gone by the time
 * the event is recorded (an invitation accepted, an integration deleted).
 */
export async function prepareAudit(em: Em, intent: AuditIntent): Promise<void> {
  const hints = intent.hints ?? {};
  if (intent.organizationId || hints.organizationId || hints.spaceId || hints.collectionId) return;
  let found: { organization_id: string } | undefined;
  if (hints.installationId) {
    found = await db(em)
      .selectFrom('integration_installation')
      .select('organization_id')
      .where('id', '=', hints.installationId)
      .executeTakeFirst();
  } else if (hints.integrationName) {
    found = await db(em)
      .selectFrom('integration')
      .select('owner_id as organization_id')
      .where('name', '=', hints.integrationName)
      .executeTakeFirst();
  } else if (hints.inviteId) {
    found = await db(em)
      .selectFrom('organization_email_invite')
      .select('organization_id')
      .where('id', '=', hints.inviteId)
      .executeTakeFirst();
  }
  if (found) intent.organizationId = found.organization_id;
}

/** The organization of a space (deleted or not); undefined once the space is gone. */
export async function spaceOrganization(em: Em, spaceId: string): Promise<string | undefined> {
  const row = await db(em).selectFrom('space').select('organization_id').where('id', '=', spaceId).executeTakeFirst();
  return row?.organization_id;
}

/** At most this many expired events are deleted by each event recorded: retention at a bounded cost. */
export const RETENTION_BATCH = 100;

/** The organization an intent acts in: noted, or resolved from its hints (a space's, a collection's). */
async function organizationOf(em: Em, intent: AuditIntent): Promise<string | undefined> {
  if (intent.organizationId) return intent.organizationId;
  const hints = intent.hints ?? {};
  if (hints.organizationId) return hints.organizationId;
  if (hints.spaceId) {
    const row = await db(em).selectFrom('space').select('organization_id').where('id', '=', hints.spaceId).executeTakeFirst();
    if (row) return row.organization_id;
  }
  if (hints.collectionId) {
    const row = await db(em).selectFrom('collection').select('organization_id').where('id', '=', hints.collectionId).executeTakeFirst();
    if (row) return row.organization_id;
  }
  return undefined;
}

/**
 * Records `intent` in the current transaction of `em`, once: a second recording of the same
 * request and action is a no-op. An intent whose organization cannot be told records nothing (an
 * event is read per organization). Each recording also deletes up to RETENTION_BATCH events older
 * than the retention, oldest first, skipping rows another transaction holds: events expire at the
 * pace they are written, and no event is ever read past its retention (the reads filter on it).
 */
export async function recordAudit(em: Em, intent: AuditIntent): Promise<string | undefined> {
  if (intent.recordedId) return intent.recordedId;
  const organizationId = await organizationOf(em, intent);
  if (!organizationId) return undefined;
  const id = randomUUID();
  const inserted = await db(em)
    .insertInto('audit_event')
    .values({
      id,
      organization_id: organizationId,
      occurred_at: sql<string>`date_trunc('milliseconds', now())`,
      action: intent.action,
      actor_type: intent.actor.type,
      actor_id: intent.actor.id,
      actor_label: intent.actor.label ?? null,
      token_kind: intent.tokenKind ?? null,
      source: intent.source,
      target_type: intent.target.type,
      target_id: intent.target.id,
      target_label: intent.target.label ?? null,
      ip_address: intent.ipAddress ?? null,
      correlation_id: intent.correlationId,
      execution_id: intent.executionId ?? null,
      caused_by_event_id: intent.causedByEventId ?? null,
      schema_version: 1,
      payload: JSON.stringify(intent.payload) as never,
    })
    .onConflict((oc) => oc.columns(['correlation_id', 'action']).doNothing())
    .returning('id')
    .executeTakeFirst();
  if (intent.retentionMs !== undefined) await purgeExpiredEvents(em, intent.retentionMs, RETENTION_BATCH);
  intent.recordedId = inserted?.id ?? (await eventIdOf(em, intent.correlationId, intent.action));
  return intent.recordedId;
}

async function eventIdOf(em: Em, correlationId: string, action: string): Promise<string | undefined> {
  const row = await db(em)
    .selectFrom('audit_event')
    .select('id')
    .where('correlation_id', '=', correlationId)
    .where('action', '=', action)
    .executeTakeFirst();
  return row?.id;
}

/** Deletes up to `limit` events older than the retention, oldest first; how many it deleted. */
export async function purgeExpiredEvents(em: Em, retentionMs: number, limit: number): Promise<number> {
  // A bounded delete: Kysely's delete has no limit, so the rows are chosen by a locked subselect.
  const result = await sql`
    delete from audit_event where id in (
      select id from audit_event where occurred_at < now() - make_interval(secs => ${retentionMs / 1000})
       order by occurred_at limit ${limit} for update skip locked)`.execute(db(em));
  return Number(result.numAffectedRows ?? 0);
}

/** An event as src/api/audit reads it. */
export interface AuditEventRow {
  id: string;
  organization_id: string;
  occurred_at: string;
  action: string;
  actor_type: string;
  actor_id: string;
  actor_label: string | null;
  token_kind: string | null;
  source: string;
  target_type: string;
  target_id: string;
  target_label: string | null;
  ip_address: string | null;
  correlation_id: string;
  execution_id: string | null;
  caused_by_event_id: string | null;
  schema_version: number;
  payload: Record<string, unknown>;
}

export interface AuditFilter {
  from?: string;
  to?: string;
  action?: string;
  actor?: string;
  target?: string;
}

function events(em: Em, organizationId: string, retentionMs: number) {
  return db(em)
    .selectFrom('audit_event')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('occurred_at', '>=', sql<string>`now() - make_interval(secs => ${retentionMs / 1000})`);
}

/** An organization's events within the retention, newest first, filtered. */
export function auditEventsListing(em: Em, organizationId: string, retentionMs: number, filter: AuditFilter): Listing<AuditEventRow> {
  let query = events(em, organizationId, retentionMs);
  if (filter.from) query = query.where('occurred_at', '>=', filter.from);
  if (filter.to) query = query.where('occurred_at', '<=', filter.to);
  if (filter.action) query = query.where('action', '=', filter.action);
  if (filter.actor) query = query.where('actor_id', '=', filter.actor);
  if (filter.target) query = query.where('target_id', '=', filter.target);
  return {
    query: query as never,
    keys: [
      { field: 'occurred_at', kind: 'date' },
      { field: 'id', kind: 'string' },
    ],
    order: 'desc',
  };
}

export async function auditEventById(em: Em, organizationId: string, id: string, retentionMs: number): Promise<AuditEventRow | undefined> {
  return (await events(em, organizationId, retentionMs).where('id', '=', id).executeTakeFirst()) as AuditEventRow | undefined;
}

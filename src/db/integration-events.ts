import { sql } from 'kysely';
import { db, type Read } from './kysely.ts';
import type { Listing } from './listing.ts';
import type { Em } from './orm.ts';
import type { IntegrationEvent } from './integration-event-entities.ts';
import { activeOnSite } from './integrations.ts';
import { eventPayload, READER_EVENT_SCOPES, receivesEvent, type RaisedEventType } from '../domain/integration-events.ts';
import { newId } from '../domain/ids.ts';
import { bySyntax, codeblockDeclarations, type CodeblockIntegration } from '../domain/content/integration-codeblocks.ts';

/**
 * Events delivered to integrations (`integration_event`, Migration0038IntegrationEvents). Raising an
 * event writes its row in the caller's transaction; the `integration-events` job reads an
 * installation's pending rows in order and settles each one.
 */

export type IntegrationEventRow = IntegrationEvent;

/** An event to raise for one installation: its id, and the payload the integration receives. */
export interface NewIntegrationEvent {
  id: string;
  integrationName: string;
  organizationId: string;
  installationId: string;
  type: string;
  payload: Record<string, unknown>;
}

/** What one delivery attempt answered (or why it failed), and whether the event is settled by it. */
export interface DeliveryOutcome {
  status: 'pending' | 'success' | 'failed';
  responseStatus: number | null;
  error: string | null;
  logs: unknown[];
}

function rows(em: Em) {
  return db(em)
    .selectFrom('integration_event')
    .select([
      'id',
      'seq',
      'integration_name as integrationName',
      'organization_id as organizationId',
      'installation_id as installationId',
      'type',
      'payload',
      'status',
      'attempts',
      'response_status as responseStatus',
      'error',
      'logs',
      'created_at as createdAt',
      'settled_at as settledAt',
    ]);
}

export function integrationEventRow(row: Read<IntegrationEventRow>): IntegrationEventRow {
  return {
    ...row,
    seq: String(row.seq),
    createdAt: new Date(row.createdAt),
    settledAt: row.settledAt == null ? null : new Date(row.settledAt),
  };
}

/** Writes the events in the current transaction: they exist exactly when the change raising them commits. */
export async function insertIntegrationEvents(em: Em, events: NewIntegrationEvent[]): Promise<void> {
  if (events.length === 0) return;
  await db(em)
    .insertInto('integration_event')
    .values(
      events.map((e) => ({
        id: e.id,
        integration_name: e.integrationName,
        organization_id: e.organizationId,
        installation_id: e.installationId,
        type: e.type,
        payload: sql<Record<string, unknown>>`${JSON.stringify(e.payload)}::jsonb`,
      })),
    )
    .execute();
}

/** The ids of an installation's pending events raised after `afterSeq`, in the order they were raised. */
export async function pendingIntegrationEvents(
  em: Em,
  installationId: string,
  afterSeq: string,
  limit: number,
): Promise<{ id: string; seq: string }[]> {
  const found = await db(em)
    .selectFrom('integration_event')
    .select(['id', 'seq'])
    .where('installation_id', '=', installationId)
    .where('status', '=', 'pending')
    .where('seq', '>', afterSeq)
    .orderBy('seq')
    .limit(limit)
    .execute();
  return found.map((r) => ({ id: r.id, seq: String(r.seq) }));
}

export async function findIntegrationEventById(em: Em, id: string): Promise<IntegrationEventRow | undefined> {
  const row = await rows(em).where('id', '=', id).executeTakeFirst();
  return row && integrationEventRow(row);
}

/** An event of an integration, for its owner's API. */
export async function findIntegrationEvent(em: Em, integrationName: string, id: string): Promise<IntegrationEventRow | undefined> {
  const row = await rows(em).where('id', '=', id).where('integration_name', '=', integrationName).executeTakeFirst();
  return row && integrationEventRow(row);
}

/**
 * Records one delivery attempt of a pending event: counted, with what it answered; settled (its
 * time set) unless it stays pending. An event settled already is left as it is (a retried
 * activity, a second sweep): false then.
 */
export async function recordDelivery(em: Em, id: string, outcome: DeliveryOutcome): Promise<boolean> {
  const updated = await db(em)
    .updateTable('integration_event')
    .set((eb) => ({
      attempts: eb('attempts', '+', 1),
      status: outcome.status,
      response_status: outcome.responseStatus,
      error: outcome.error,
      logs: sql<unknown[]>`${JSON.stringify(outcome.logs)}::jsonb`,
      settled_at: outcome.status === 'pending' ? null : sql<Date>`now()`,
    }))
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) > 0;
}

/** Settles a pending event as failed once its attempts are spent; its last error stays. */
export async function failIntegrationEvent(em: Em, id: string, error: string): Promise<void> {
  await db(em)
    .updateTable('integration_event')
    .set({ status: 'failed', error, settled_at: sql<Date>`now()` })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .execute();
}

/** Installations with an event pending since before `before` (and their organizations): those whose delivery job was not told (a lost start). */
export async function installationsWithStalePendingEvents(
  em: Em,
  before: Date,
  limit: number,
): Promise<{ installationId: string; organizationId: string }[]> {
  const found = await db(em)
    .selectFrom('integration_event')
    .select(['installation_id', 'organization_id'])
    .distinct()
    .where('status', '=', 'pending')
    .where('installation_id', 'is not', null)
    .where('created_at', '<', sql<string>`${before.toISOString()}::timestamptz`)
    .limit(limit)
    .execute();
  return found.map((r) => ({ installationId: r.installation_id!, organizationId: r.organization_id }));
}

/** The settled events of an integration, newest first, for `listIntegrationEvents`. */
export function integrationEventsListing(em: Em, integrationName: string): Listing<Read<IntegrationEventRow>> {
  return {
    query: rows(em).where('integration_name', '=', integrationName).where('status', '<>', 'pending'),
    keys: [
      { field: 'createdAt', kind: 'date' },
      { field: 'id', kind: 'string' },
    ],
    order: 'desc',
  };
}

/** What runs an integration's events (never part of an API answer). */
export interface IntegrationScriptRow {
  name: string;
  version: number;
  script: string;
  secretsSealed: string | null;
  scopes: string[];
  /** Development mode: the tunnel events go to instead of the script, and whether for every organization. */
  devTunnelUrl: string | null;
  devAll: boolean;
}

/** What runs an integration's events: its script, version, sealed secrets and development mode. */
export async function integrationScript(em: Em, name: string): Promise<IntegrationScriptRow | undefined> {
  const row = await db(em)
    .selectFrom('integration')
    .select(['name', 'version', 'script', 'secrets_sealed', 'scopes', 'dev_tunnel_url', 'dev_all'])
    .where('name', '=', name)
    .executeTakeFirst();
  return (
    row && {
      name: row.name,
      version: row.version,
      script: row.script,
      secretsSealed: row.secrets_sealed,
      scopes: row.scopes,
      devTunnelUrl: row.dev_tunnel_url,
      devAll: row.dev_all,
    }
  );
}

/**
 * The active installations enabled on a space (for its content events), with their integrations'
 * scopes: those enabled on it by name, and those of its organization enabled on all its spaces.
 */
export async function installationsOnSpace(
  em: Em,
  spaceId: string,
): Promise<{ installationId: string; integrationName: string; organizationId: string; scopes: string[] }[]> {
  const found = await activeOnSpace(em, spaceId).select(['i.id', 'i.integration_name', 'i.organization_id', 'n.scopes']).execute();
  return found.map((r) => ({
    installationId: r.id,
    integrationName: r.integration_name,
    organizationId: r.organization_id,
    scopes: r.scopes,
  }));
}

/**
 * The code-block declarations (`blocks[].markdown`) of the integrations installed and active on a
 * space, one per syntax: what its documents answer as integration blocks.
 */
export async function codeblockIntegrationsOnSpace(em: Em, spaceId: string): Promise<CodeblockIntegration[]> {
  const found = await activeOnSpace(em, spaceId)
    .where(sql<boolean>`jsonb_path_exists(n.blocks, '$[*].markdown.codeblock')`)
    .select(['i.integration_name', 'n.blocks'])
    .execute();
  return bySyntax(found.flatMap((r) => codeblockDeclarations(r.integration_name, r.blocks)));
}

/** Active installations enabled on a space: by name, or of its organization on all its spaces. */
function activeOnSpace(em: Em, spaceId: string) {
  return db(em)
    .selectFrom('integration_installation as i')
    .innerJoin('integration as n', 'n.name', 'i.integration_name')
    .where('i.status', '=', 'active')
    .where((eb) =>
      eb.or([
        eb.exists(
          eb
            .selectFrom('integration_space_installation as si')
            .select('si.space_id')
            .whereRef('si.installation_id', '=', 'i.id')
            .where('si.space_id', '=', spaceId)
            .where('si.status', '=', 'active'),
        ),
        eb.and([
          eb('i.space_selection', '=', 'all'),
          eb('i.organization_id', '=', eb.selectFrom('space').select('organization_id').where('id', '=', spaceId)),
        ]),
      ]),
    );
}

/** An active installation on a site whose integration may hear its readers' events (`site_view`, `page_feedback`). */
export interface ReaderEventReceiver {
  id: string;
  integration_name: string;
  organization_id: string;
  scopes: string[];
}

/** The active installations enabled on the site whose integration has a scope of readers' events. */
export async function readerEventReceivers(em: Em, siteId: string): Promise<ReaderEventReceiver[]> {
  return activeOnSite(em, siteId)
    .select(['i.id', 'i.integration_name', 'i.organization_id', 'n.scopes'])
    .where(sql<boolean>`n.scopes && ${sql.val(READER_EVENT_SCOPES)}::text[]`)
    .execute();
}

/**
 * Raises the events of a site's readers (GitBook's `site_view` and `page_feedback`, from
 * `readerEventsForIntegrations`) for every one of `receivers` (readerEventReceivers) whose
 * integration has the event's scope, in one statement. Answers the installations to announce once
 * the transaction has committed; nothing is written when no receiver hears them.
 */
export async function raiseSiteReaderEvents(
  em: Em,
  receivers: readonly ReaderEventReceiver[],
  events: readonly { type: Extract<RaisedEventType, 'site_view' | 'page_feedback'>; fields: Record<string, unknown> }[],
): Promise<RaisedFor[]> {
  const rows: NewIntegrationEvent[] = [];
  const raised = new Map<string, RaisedFor>();
  for (const event of events) {
    for (const r of receivers) {
      if (!receivesEvent(event.type, r.scopes)) continue;
      const id = newId();
      rows.push({
        id,
        integrationName: r.integration_name,
        organizationId: r.organization_id,
        installationId: r.id,
        type: event.type,
        payload: eventPayload(event.type, id, r.id, event.fields),
      });
      raised.set(r.id, { installationId: r.id, organizationId: r.organization_id });
    }
  }
  if (rows.length > 0) await insertIntegrationEvents(em, rows);
  return [...raised.values()];
}

/** An installation events were raised for: its delivery job is started once the transaction commits. */
export interface RaisedFor {
  installationId: string;
  organizationId: string;
}

/**
 * Raises an event about a space (`space_content_updated`, `space_gitsync_started`,
 * `space_gitsync_completed`, `space_visibility_updated`) in the current transaction, for every
 * active installation enabled on the space whose integration has the event's scope. Answers the
 * installations to announce once the transaction has committed.
 */
export async function raiseSpaceEvent(
  em: Em,
  spaceId: string,
  type: Extract<
    RaisedEventType,
    'space_content_updated' | 'space_gitsync_started' | 'space_gitsync_completed' | 'space_visibility_updated'
  >,
  fields: Record<string, unknown>,
): Promise<RaisedFor[]> {
  const receivers = (await installationsOnSpace(em, spaceId)).filter((i) => receivesEvent(type, i.scopes));
  return raiseFor(em, receivers, type, { ...fields, spaceId });
}

/** Raises an event for the given installations (a setup event goes to the installation set up). */
export async function raiseFor(
  em: Em,
  receivers: readonly { installationId: string; integrationName: string; organizationId: string }[],
  type: RaisedEventType,
  fields: Record<string, unknown>,
): Promise<RaisedFor[]> {
  const events = receivers.map((r) => {
    const id = newId();
    return {
      id,
      integrationName: r.integrationName,
      organizationId: r.organizationId,
      installationId: r.installationId,
      type,
      payload: eventPayload(type, id, r.installationId, fields),
    };
  });
  await insertIntegrationEvents(em, events);
  return receivers.map((r) => ({ installationId: r.installationId, organizationId: r.organizationId }));
}

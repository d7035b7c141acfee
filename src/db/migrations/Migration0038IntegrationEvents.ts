import { Migration } from '@mikro-orm/migrations';

/**
 * Events delivered to integrations (`integration_event`), written in the transaction of the change
 * that raises them (an outbox: an event exists exactly when its change committed) and delivered by
 * the `integration-events` job (src/workflows/integration-events.ts), one installation's events in
 * the order they were raised (`seq`).
 * - `status`: `pending` until delivered, then `success`, or `failed` once its attempts are spent.
 * - `installation_id` has no foreign key: an `installation_deleted` event outlives its installation.
 * - `logs`: what the integration's script wrote to its console while handling the event (the trace
 *   `getIntegrationEvent` answers), bounded by the job.
 */
export class Migration0038IntegrationEvents extends Migration {
  override name = 'Migration0038IntegrationEvents';

  override up(): void {
    this.addSql(`
      create table integration_event (
        id text primary key,
        seq bigint generated always as identity,
        integration_name text not null references integration (name) on delete cascade,
        organization_id text not null references organization (id) on delete cascade,
        installation_id text,
        type text not null,
        payload jsonb not null,
        status text not null default 'pending' check (status in ('pending', 'success', 'failed')),
        attempts integer not null default 0,
        response_status integer,
        error text,
        logs jsonb not null default '[]',
        created_at timestamptz not null default now(),
        settled_at timestamptz
      );
      create unique index integration_event_seq_key on integration_event (seq);
      create index integration_event_pending_idx on integration_event (installation_id, seq) where status = 'pending';
      create index integration_event_list_idx on integration_event (integration_name, created_at, id);
    `);
  }
}

import { Migration } from '@mikro-orm/migrations';

/**
 * The audit log: one row per change made through the API or a job, written in the transaction of
 * the change (src/db/audit.ts). Rows are never changed: a trigger refuses every UPDATE, whoever
 * sends it. Deleting is left to the retention (AUDIT_RETENTION). `(correlation_id, action)` is
 * unique, so a request records its action at most once however many transactions it commits.
 * Listing is newest first per organization, filtered by action, actor or target: one index each.
 */
export class Migration0032AuditLog extends Migration {
  override name = 'Migration0032AuditLog';

  override up(): void {
    this.addSql(`
      create table audit_event (
        id text primary key,
        organization_id text not null,
        occurred_at timestamptz not null default now(),
        action text not null,
        actor_type text not null,
        actor_id text not null,
        actor_label text,
        token_kind text,
        source text not null,
        target_type text not null,
        target_id text not null,
        target_label text,
        ip_address text,
        correlation_id text not null,
        execution_id text,
        caused_by_event_id text,
        schema_version integer not null default 1,
        payload jsonb not null default '{}'::jsonb,
        constraint audit_event_once unique (correlation_id, action)
      );
      create index audit_event_listing on audit_event (organization_id, occurred_at desc, id desc);
      create index audit_event_by_action on audit_event (organization_id, action, occurred_at desc, id desc);
      create index audit_event_by_actor on audit_event (organization_id, actor_id, occurred_at desc, id desc);
      create index audit_event_by_target on audit_event (organization_id, target_id, occurred_at desc, id desc);
      create index audit_event_expiry on audit_event (occurred_at);

      create function audit_event_refuse_update() returns trigger language plpgsql as $$
      begin
        raise exception 'audit events cannot be changed' using errcode = 'insufficient_privilege';
      end
      $$;
      create trigger audit_event_immutable before update on audit_event
        for each row execute function audit_event_refuse_update();
    `);
  }
}

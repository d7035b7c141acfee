import { Migration } from '@mikro-orm/migrations';

/**
 * Git Sync: the repository a space syncs with and the state of its last sync (`git_sync`), every
 * import or export request in the order it came (`git_sync_request`; credentials sealed until the
 * request has run, then erased), and the push deliveries already received (`git_webhook_delivery`).
 */
export class Migration0011GitSync extends Migration {
  override name = 'Migration0011GitSync';

  override up(): void {
    this.addSql(`
      create table git_sync (
        space_id text primary key references space (id) on delete cascade,
        provider text,
        url text,
        ref text,
        repo_name text,
        integration text,
        project_directory text,
        -- The last request applied (its timestamp orders later ones), the commit and the revision it left.
        last_applied_at timestamptz,
        last_commit text,
        last_revision text,
        last_operation text,
        status text not null default 'idle',
        last_sync_error jsonb,
        conflict_change_request text,
        -- Push webhooks: repository and branch to follow, secret and credentials sealed.
        webhook_provider text,
        webhook_repository text,
        webhook_branch text,
        webhook_secret text,
        webhook_credentials text,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      );

      create table git_sync_request (
        id text primary key,
        space_id text not null references space (id) on delete cascade,
        kind text not null check (kind in ('import', 'export')),
        requested_at timestamptz not null,
        params jsonb not null,
        credentials text,
        requested_by text references app_user (id) on delete set null,
        state text not null default 'queued' check (state in ('queued', 'applied', 'unchanged', 'skipped', 'failed', 'conflict')),
        revision_id text,
        commit text,
        detail jsonb,
        created_at timestamptz not null default now(),
        finished_at timestamptz
      );
      create index git_sync_request_space_idx on git_sync_request (space_id, created_at);

      create table git_webhook_delivery (
        space_id text not null references space (id) on delete cascade,
        delivery_id text not null,
        received_at timestamptz not null default now(),
        primary key (space_id, delivery_id)
      );
    `);
  }
}

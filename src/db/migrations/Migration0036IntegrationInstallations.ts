import { Migration } from '@mikro-orm/migrations';

/**
 * Where an organization's installation of an integration is enabled, and the tokens that act as it:
 * - `integration_space_installation` / `integration_site_installation`: an installation enabled on
 *   one space or site of its organization, with the configuration of the integration there. Each
 *   goes with its installation (uninstalling from the organization, unpublishing the integration)
 *   and with its space or site.
 * - `integration_installation_token`: a temporary API token acting as an installation, stored as
 *   the SHA-256 hash of its value (as API tokens are); it goes with its installation.
 * Writes to these tables, to installations and to integrations (their scopes) are announced on the
 * change feed (Migration0028): every API process forgets the installation tokens it verified at once.
 */
export class Migration0036IntegrationInstallations extends Migration {
  override name = 'Migration0036IntegrationInstallations';

  override up(): void {
    const content = (kind: 'space' | 'site') => `
      create table integration_${kind}_installation (
        installation_id text not null references integration_installation (id) on delete cascade,
        ${kind}_id text not null references ${kind} (id) on delete cascade,
        integration_name text not null references integration (name) on delete cascade,
        organization_id text not null references organization (id) on delete cascade,
        status text not null check (status in ('active', 'pending', 'paused')),
        configuration jsonb not null default '{}',
        external_ids text[] not null default '{}' check (cardinality(external_ids) <= 5),
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        primary key (installation_id, ${kind}_id)
      );
      create index integration_${kind}_installation_list_idx
        on integration_${kind}_installation (integration_name, created_at, installation_id, ${kind}_id);
      create index integration_${kind}_installation_target_idx on integration_${kind}_installation (${kind}_id);
      create trigger integration_${kind}_installation_announce after insert or update or delete or truncate
        on integration_${kind}_installation for each statement execute function announce_data_change();`;
    this.addSql(`
      ${content('space')}
      ${content('site')}

      create table integration_installation_token (
        id text primary key,
        installation_id text not null references integration_installation (id) on delete cascade,
        token_hash text not null unique,
        created_by text references app_user (id) on delete set null,
        created_at timestamptz not null default now(),
        expires_at timestamptz not null
      );
      create index integration_installation_token_installation_idx on integration_installation_token (installation_id);
      create trigger integration_installation_token_announce after update or delete or truncate
        on integration_installation_token for each statement execute function announce_data_change();

      create trigger integration_installation_announce after update or delete or truncate
        on integration_installation for each statement execute function announce_data_change();
      create trigger integration_announce after update of scopes, visibility, target or delete or truncate
        on integration for each statement execute function announce_data_change();
    `);
  }
}

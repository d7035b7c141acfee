import { Migration } from '@mikro-orm/migrations';

/**
 * Organization settings: custom field definitions and their values on spaces, translation
 * settings, integrations (with their images and encrypted secrets) and their installations, and
 * the organization subdomain integrations may be published under.
 */
export class Migration0004OrgSettings extends Migration {
  override name = 'Migration0004OrgSettings';

  override up(): void {
    this.addSql(`
      alter table organization add column subdomain text
        check (subdomain is null or (char_length(subdomain) between 3 and 32 and subdomain ~ '^[a-z0-9][a-z0-9-]*[a-z0-9]$'));
      create unique index organization_subdomain_key on organization (subdomain) where subdomain is not null;

      create table custom_field (
        id text primary key,
        organization_id text not null references organization (id) on delete cascade,
        name text not null check (char_length(name) between 1 and 50 and name ~ '^[a-z_\\-0-9]+$'),
        type text not null check (type in ('text', 'number', 'boolean', 'select', 'multi-select')),
        title text not null check (char_length(title) <= 100),
        description text check (char_length(description) <= 200),
        placeholder text check (char_length(placeholder) <= 100),
        options text[] check (options is null or cardinality(options) between 1 and 50),
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        check ((options is not null) = (type in ('select', 'multi-select')))
      );
      create unique index custom_field_org_name_key on custom_field (organization_id, name);
      create index custom_field_org_idx on custom_field (organization_id, created_at, id);

      create table space_custom_field_value (
        space_id text not null references space (id) on delete cascade,
        custom_field_id text not null references custom_field (id) on delete cascade,
        value jsonb not null,
        updated_at timestamptz not null default now(),
        primary key (space_id, custom_field_id)
      );
      create index space_custom_field_value_field_idx on space_custom_field_value (custom_field_id);

      -- Values belong to the definitions of the space's organization: a space leaving it leaves them behind.
      create function space_custom_field_values_follow_org() returns trigger language plpgsql as $$
      begin
        delete from space_custom_field_value where space_id = new.id;
        return new;
      end
      $$;
      create trigger space_custom_field_values_follow_org
        after update of organization_id on space
        for each row when (old.organization_id is distinct from new.organization_id)
        execute function space_custom_field_values_follow_org();

      create table translation_settings (
        id text primary key,
        organization_id text not null references organization (id) on delete cascade,
        title text not null check (char_length(title) between 1 and 100),
        languages text[] not null default '{}',
        source_space_id text references space (id) on delete set null,
        source_language text,
        language text,
        instructions jsonb,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      );
      create index translation_settings_org_idx on translation_settings (organization_id, created_at, id);

      create table integration (
        name text primary key check (char_length(name) between 1 and 100 and name ~ '^[a-zA-Z0-9\\-_.]+$'),
        owner_id text not null references organization (id) on delete cascade,
        version integer not null default 1,
        title text not null check (char_length(title) between 2 and 30),
        description text not null check (char_length(description) <= 100),
        summary text check (char_length(summary) <= 2048),
        visibility text not null check (visibility in ('public', 'private', 'unlisted')),
        target text not null check (target in ('all', 'site', 'space', 'organization')),
        runtime text not null default 'v1',
        verified boolean not null default false,
        scopes text[] not null default '{}',
        categories text[] not null default '{}',
        blocks jsonb not null default '[]',
        content_sources jsonb not null default '[]',
        external_links jsonb not null default '[]',
        configurations jsonb not null default '{}',
        content_security_policy jsonb,
        block_domains text[] not null default '{}',
        has_blocks boolean not null default false,
        has_content_sources boolean not null default false,
        has_icon boolean not null default false,
        preview_image_count integer not null default 0 check (preview_image_count between 0 and 3),
        script text not null,
        secrets_sealed text,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      );
      create index integration_owner_idx on integration (owner_id, name);
      create index integration_block_domains_idx on integration using gin (block_domains);

      create table integration_asset (
        integration_name text not null references integration (name) on delete cascade,
        asset text not null check (asset in ('icon', 'preview-0', 'preview-1', 'preview-2')),
        content_type text not null,
        data bytea not null,
        primary key (integration_name, asset)
      );

      create table integration_installation (
        id text primary key,
        integration_name text not null references integration (name) on delete cascade,
        organization_id text not null references organization (id) on delete cascade,
        status text not null check (status in ('active', 'pending', 'paused')),
        space_selection text not null default 'selected' check (space_selection in ('all', 'selected')),
        site_selection text not null default 'selected' check (site_selection in ('all', 'selected')),
        configuration jsonb not null default '{}',
        external_ids text[] not null default '{}' check (cardinality(external_ids) <= 5),
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      );
      create unique index integration_installation_org_key on integration_installation (integration_name, organization_id);
      create index integration_installation_list_idx on integration_installation (integration_name, created_at, id);
      create index integration_installation_org_idx on integration_installation (organization_id);
    `);
  }
}

import { Migration } from '@mikro-orm/migrations';

/**
 * Published sites: a site of an organization, its sections (optionally in section groups), the
 * site-spaces (a space published at a path, at the root or inside a section) and share links.
 * Sections and section groups share one fractional ordering per site; site-spaces are ordered per
 * (site, section). A site-space references its space with `on delete cascade` (the purge removes
 * it); while the space is only deleted (restorable), readers filter it out.
 * Secrets: share-link keys are stored as SHA-256 hashes, the visitor signing key sealed
 * (src/lib/secrets.ts).
 */
export class Migration0013Sites extends Migration {
  override name = 'Migration0013Sites';

  override up(): void {
    this.addSql(`
      create table site (
        id text primary key,
        organization_id text not null references organization (id) on delete cascade,
        type text not null default 'basic',
        title text not null,
        hostname text,
        basename text,
        proxy text,
        visibility text not null,
        published boolean not null default false,
        adaptive_content boolean not null default false,
        adaptive_schema jsonb,
        adaptive_schema_updated_at timestamptz,
        customization jsonb not null default '{}'::jsonb,
        customization_updated_at timestamptz,
        auth_key_sealed text not null,
        fallback_url text,
        logout_url text,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      );
      create index site_organization on site (organization_id, created_at, id);
      create unique index site_hostname on site (hostname) where hostname is not null;
      create unique index site_proxy on site (proxy) where proxy is not null;
      create unique index site_basename on site (organization_id, basename) where basename is not null;

      create table site_section_group (
        id text primary key,
        site_id text not null references site (id) on delete cascade,
        title text not null,
        icon text,
        position text not null collate "C",
        created_at timestamptz not null default now()
      );
      create index site_section_group_site on site_section_group (site_id, position);

      create table site_section (
        id text primary key,
        site_id text not null references site (id) on delete cascade,
        group_id text references site_section_group (id) on delete set null,
        title text not null,
        description text,
        path text not null,
        condition text,
        icon text,
        is_default boolean not null default false,
        position text not null collate "C",
        created_at timestamptz not null default now()
      );
      create unique index site_section_path on site_section (site_id, path);
      create index site_section_site on site_section (site_id, position);

      create table site_space (
        id text primary key,
        site_id text not null references site (id) on delete cascade,
        section_id text references site_section (id) on delete cascade,
        space_id text not null references space (id) on delete cascade,
        path text not null,
        title text,
        condition text,
        hidden boolean not null default false,
        is_default boolean not null default false,
        position text not null collate "C",
        created_at timestamptz not null default now()
      );
      create index site_space_site on site_space (site_id, section_id, position);
      create index site_space_space on site_space (space_id);

      create table site_share_link (
        id text primary key,
        site_id text not null references site (id) on delete cascade,
        name text not null,
        key_hash text not null unique,
        active boolean not null default true,
        created_at timestamptz not null default now()
      );
      create index site_share_link_site on site_share_link (site_id, created_at, id);
    `);
  }
}

import { Migration } from '@mikro-orm/migrations';

/**
 * Published sites: a site of an organization, its sections (optionally in section groups), the
 * site-spaces (a space published at a path, at the root or inside a section) and share links.
 * Sections and section groups share one fractional ordering per site; site-spaces are ordered per
 * (site, section). A site-space references its space with `on delete cascade` (the purge removes
 * it); while the space is only deleted (restorable), readers filter it out.
 * Secrets: share-link keys are stored as SHA-256 hashes, the visitor signing key sealed
 * (src/lib/secrets.ts).
 * `site.structure_version` is bumped by triggers in the transaction of any change to what URL
 * resolution caches of a site: its sections and site-spaces, and the current revision, deletion
 * or organization of a space it publishes.
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

      alter table site add column structure_version bigint not null default 0;

      create function site_structure_changed() returns trigger language plpgsql as $$
      begin
        if tg_op in ('UPDATE', 'DELETE') then
          update site set structure_version = structure_version + 1 where id = old.site_id;
        end if;
        if tg_op = 'INSERT' or (tg_op = 'UPDATE' and new.site_id is distinct from old.site_id) then
          update site set structure_version = structure_version + 1 where id = new.site_id;
        end if;
        return null;
      end $$;
      create trigger site_section_structure after insert or update or delete on site_section
        for each row execute function site_structure_changed();
      create trigger site_space_structure after insert or update or delete on site_space
        for each row execute function site_structure_changed();

      create function site_space_source_changed() returns trigger language plpgsql as $$
      begin
        update site set structure_version = structure_version + 1
         where id in (select site_id from site_space where space_id = new.id);
        return null;
      end $$;
      create trigger space_published_structure after update of revision_id, deleted_at, organization_id on space
        for each row when (old.revision_id is distinct from new.revision_id or old.deleted_at is distinct from new.deleted_at
                           or old.organization_id is distinct from new.organization_id)
        execute function site_space_source_changed();
    `);
  }
}

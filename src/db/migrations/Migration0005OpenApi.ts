import { Migration } from '@mikro-orm/migrations';

/**
 * OpenAPI specs of an organization, the text of text-sourced specs, and the processed versions.
 * A version is only recorded when the content changed; deleting a spec removes its texts and
 * versions with it.
 */
export class Migration0005OpenApi extends Migration {
  override name = 'Migration0005OpenApi';

  override up(): void {
    this.addSql(`
      create table openapi_spec (
        id text primary key,
        organization_id text not null references organization (id) on delete cascade,
        slug text not null check (slug ~ '^[a-z0-9]+(?:-[a-z0-9]+)*$' and length(slug) <= 100),
        source_url text,
        source_text_id text,
        source_generation integer not null default 1,
        processing_state text not null default 'pending' check (processing_state in ('pending', 'progress', 'complete')),
        last_version_id text,
        last_processed_at timestamptz,
        last_process_error_code text check (last_process_error_code in ('FETCH_TIMEOUT', 'FETCH_ERROR', 'PARSE_ERROR')),
        last_process_errors jsonb,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        check ((source_url is null) <> (source_text_id is null))
      );
      create unique index openapi_spec_org_slug_key on openapi_spec (organization_id, slug);
      create index openapi_spec_org_idx on openapi_spec (organization_id, created_at, id);
      create table openapi_spec_text (
        id text primary key,
        spec_id text not null references openapi_spec (id) on delete cascade,
        text text not null,
        created_at timestamptz not null default now()
      );
      create index openapi_spec_text_spec_idx on openapi_spec_text (spec_id);
      create table openapi_spec_version (
        id text primary key,
        spec_id text not null references openapi_spec (id) on delete cascade,
        content_hash text not null,
        url text,
        entry_key text not null,
        filesystem text not null,
        created_at timestamptz not null default now()
      );
      create index openapi_spec_version_spec_idx on openapi_spec_version (spec_id, created_at, id);
      create index openapi_spec_version_hash_idx on openapi_spec_version (spec_id, content_hash);
    `);
  }
}

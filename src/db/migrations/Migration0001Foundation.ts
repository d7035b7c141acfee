import { Migration } from '@mikro-orm/migrations';

export class Migration0001Foundation extends Migration {
  override name = 'Migration0001Foundation';

  override up(): void {
    this.addSql(`
      create table organization (
        id text primary key,
        title text not null,
        created_at timestamptz not null default now()
      );
      create table app_user (
        id text primary key,
        display_name text not null,
        email text not null,
        photo_url text,
        created_at timestamptz not null default now()
      );
      create unique index app_user_email_key on app_user (lower(email));
      create table member (
        organization_id text not null references organization (id) on delete cascade,
        user_id text not null references app_user (id) on delete cascade,
        role text check (role in ('admin', 'create', 'review', 'edit', 'comment', 'read')),
        disabled boolean not null default false,
        sso boolean not null default false,
        joined_at timestamptz not null default now(),
        last_seen_at timestamptz,
        primary key (organization_id, user_id)
      );
      create index member_user_idx on member (user_id);
      create table api_token (
        id text primary key,
        user_id text not null references app_user (id) on delete cascade,
        token_hash text not null unique,
        label text not null default '',
        created_at timestamptz not null default now(),
        last_used_at timestamptz,
        revoked_at timestamptz
      );
      create index api_token_user_idx on api_token (user_id);
      create table collection (
        id text primary key,
        organization_id text not null references organization (id) on delete cascade,
        parent_id text references collection (id) on delete cascade,
        title text not null,
        description text,
        default_level text check (default_level in ('admin', 'create', 'review', 'edit', 'comment', 'read', 'inherit')),
        position text collate "C" not null,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      );
      create index collection_org_idx on collection (organization_id, created_at, id);
      create index collection_parent_idx on collection (parent_id, position, id);
      create table space (
        id text primary key,
        organization_id text not null references organization (id) on delete cascade,
        parent_id text references collection (id) on delete set null,
        title text not null,
        emoji text not null default '',
        visibility text not null,
        edit_mode text not null default 'live',
        default_level text check (default_level in ('admin', 'create', 'review', 'edit', 'comment', 'read', 'inherit')),
        revision_id text not null,
        position text collate "C" not null,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        deleted_at timestamptz
      );
      create index space_org_live_idx on space (organization_id, created_at, id) where deleted_at is null;
      create index space_parent_live_idx on space (parent_id, position, id) where deleted_at is null;
      create table revision (
        id text primary key,
        space_id text not null references space (id) on delete cascade,
        parents text[] not null default '{}',
        type text not null default 'edits',
        created_at timestamptz not null default now()
      );
      create index revision_space_idx on revision (space_id);
    `);
  }
}

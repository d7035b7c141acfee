import { Migration } from '@mikro-orm/migrations';

/** Teams, their members, and explicit role grants on spaces and collections to users or teams. */
export class Migration0003Teams extends Migration {
  override name = 'Migration0003Teams';

  override up(): void {
    this.addSql(`
      create table team (
        id text primary key,
        organization_id text not null references organization (id) on delete cascade,
        title text not null,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      );
      create index team_org_idx on team (organization_id, created_at, id);
      create table team_member (
        team_id text not null references team (id) on delete cascade,
        user_id text not null references app_user (id) on delete cascade,
        role text not null default 'member' check (role in ('owner', 'member')),
        joined_at timestamptz not null default now(),
        primary key (team_id, user_id)
      );
      create index team_member_user_idx on team_member (user_id);
      create table content_permission (
        id text primary key,
        organization_id text not null references organization (id) on delete cascade,
        space_id text references space (id) on delete cascade,
        collection_id text references collection (id) on delete cascade,
        user_id text references app_user (id) on delete cascade,
        team_id text references team (id) on delete cascade,
        role text not null check (role in ('admin', 'create', 'review', 'edit', 'comment', 'read')),
        created_at timestamptz not null default now(),
        check ((space_id is null) <> (collection_id is null)),
        check ((user_id is null) <> (team_id is null))
      );
      create unique index content_permission_space_user_key on content_permission (space_id, user_id) where space_id is not null and user_id is not null;
      create unique index content_permission_space_team_key on content_permission (space_id, team_id) where space_id is not null and team_id is not null;
      create unique index content_permission_collection_user_key on content_permission (collection_id, user_id) where collection_id is not null and user_id is not null;
      create unique index content_permission_collection_team_key on content_permission (collection_id, team_id) where collection_id is not null and team_id is not null;
      create index content_permission_user_idx on content_permission (user_id);
      create index content_permission_team_idx on content_permission (team_id);
    `);
  }
}

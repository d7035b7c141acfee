import { Migration } from '@mikro-orm/migrations';

/** Indexes for listing members in join or activity order, and grants by the object they are on. */
export class Migration0007TeamsExtra extends Migration {
  override name = 'Migration0007TeamsExtra';

  override up(): void {
    this.addSql(`
      create index member_org_joined_idx on member (organization_id, joined_at, user_id);
      create index member_org_seen_idx on member (organization_id, last_seen_at, user_id) where last_seen_at is not null;
      create index content_permission_space_idx on content_permission (space_id, created_at, id) where space_id is not null;
      create index content_permission_collection_idx on content_permission (collection_id, created_at, id) where collection_id is not null;
    `);
  }
}

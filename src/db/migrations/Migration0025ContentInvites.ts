import { Migration } from '@mikro-orm/migrations';

/**
 * Invite links to one space or one collection (GitBook's content invites). Such a link carries
 * the level (`role`, never null) granted on that content; joining with it makes the user a guest of
 * the organization (a member keeps their role) with that level on the content only. At most one of
 * `space_id` and `collection_id` is set; neither: a link to the organization. Deleting the content
 * deletes its links.
 */
export class Migration0025ContentInvites extends Migration {
  override name = 'Migration0025ContentInvites';

  override up(): void {
    this.addSql(`
      alter table organization_invite_link
        add column space_id text references space (id) on delete cascade,
        add column collection_id text references collection (id) on delete cascade,
        add constraint organization_invite_link_one_target check (space_id is null or collection_id is null),
        add constraint organization_invite_link_content_level check ((space_id is null and collection_id is null) or role is not null);
      create index organization_invite_link_space on organization_invite_link (space_id) where space_id is not null;
      create index organization_invite_link_collection on organization_invite_link (collection_id) where collection_id is not null;
    `);
  }
}

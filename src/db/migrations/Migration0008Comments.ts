import { Migration } from '@mikro-orm/migrations';

/**
 * Comments on a space's content or inside a change request, their replies, and emoji reactions
 * on either. A comment remembers the revision it was posted against, so its target page can be
 * shown as it was and flagged `outdated` once the page has changed. The lists read these tables
 * in (posted_at, id) order through the keyset indexes below.
 */
export class Migration0008Comments extends Migration {
  override name = 'Migration0008Comments';

  override up(): void {
    this.addSql(`
      create table comment (
        id text primary key,
        space_id text not null references space (id) on delete cascade,
        change_request_id text references change_request (id) on delete cascade,
        revision_id text not null,
        page_id text,
        node_id text,
        markdown text not null,
        posted_by text references app_user (id) on delete set null,
        posted_at timestamptz not null,
        edited_at timestamptz,
        resolved_at timestamptz,
        resolved_by text references app_user (id) on delete set null,
        check (resolved_by is null or resolved_at is not null)
      );
      create index comment_space_list_idx on comment (space_id, posted_at, id) where change_request_id is null;
      create index comment_change_request_list_idx on comment (change_request_id, posted_at, id) where change_request_id is not null;
      create index comment_space_open_idx on comment (space_id) where resolved_at is null and change_request_id is null;
      create index comment_posted_by_idx on comment (posted_by);
      create index comment_resolved_by_idx on comment (resolved_by) where resolved_by is not null;

      create table comment_reply (
        id text primary key,
        comment_id text not null references comment (id) on delete cascade,
        markdown text not null,
        posted_by text references app_user (id) on delete set null,
        posted_at timestamptz not null,
        edited_at timestamptz
      );
      create index comment_reply_list_idx on comment_reply (comment_id, posted_at, id);
      create index comment_reply_posted_by_idx on comment_reply (posted_by);

      create table comment_reaction (
        id text primary key,
        comment_id text references comment (id) on delete cascade,
        reply_id text references comment_reply (id) on delete cascade,
        user_id text not null references app_user (id) on delete cascade,
        emoji text not null,
        reacted_at timestamptz not null,
        check ((comment_id is null) <> (reply_id is null))
      );
      create unique index comment_reaction_comment_key on comment_reaction (comment_id, user_id, emoji) where comment_id is not null;
      create unique index comment_reaction_reply_key on comment_reaction (reply_id, user_id, emoji) where reply_id is not null;
      create index comment_reaction_user_idx on comment_reaction (user_id);
    `);
  }
}

import { Migration } from '@mikro-orm/migrations';

/**
 * The database announces each committed transaction that wrote to the tables that a space's answer
 * (the space, its collections, who may see it, what it syncs with) or a published URL's lookup
 * (the organization, its sites and their structure) is made of, on `data_changed`
 * (src/db/change-feed.ts), so every API process drops the answers it remembered (of
 * `GET /v1/spaces/{id}` and `POST /v1/urls/published`, domain/read-cache.ts) as soon as any process
 * writes. One notification per statement, with the same empty payload, which PostgreSQL folds into
 * one per transaction.
 */
export class Migration0028ChangeFeed extends Migration {
  override name = 'Migration0028ChangeFeed';

  override up(): void {
    const tables = [
      ...['space', 'collection', 'member', 'team', 'team_member', 'content_permission', 'git_sync'],
      // What a published URL's lookup reads (api/urls/service.ts).
      ...['organization', 'site', 'site_section_group', 'site_section', 'site_space', 'site_share_link'],
    ];
    this.addSql(`
      create function announce_data_change() returns trigger language plpgsql as $$
      begin
        perform pg_notify('data_changed', '');
        return null;
      end
      $$;
      ${tables
        .map(
          (table) => `
      create trigger ${table}_announce after insert or update or delete or truncate on ${table}
        for each statement execute function announce_data_change();`,
        )
        .join('')}
    `);
  }
}

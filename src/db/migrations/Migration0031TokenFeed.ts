import { Migration } from '@mikro-orm/migrations';

/**
 * The change feed (Migration0028) also announces what makes a token stop working: an API token
 * revoked or deleted, a site lookup token deleted. Every API process keeps verified tokens between
 * writes (api/auth.ts), and hears these at once. Recording when a token was last used changes no
 * column the triggers watch, so it announces nothing.
 */
export class Migration0031TokenFeed extends Migration {
  override name = 'Migration0031TokenFeed';

  override up(): void {
    this.addSql(`
      create trigger api_token_announce after update of revoked_at, token_hash, user_id, organization_id or delete or truncate
        on api_token for each statement execute function announce_data_change();
      create trigger site_lookup_token_announce after update of token_hash, organization_id or delete or truncate
        on site_lookup_token for each statement execute function announce_data_change();
    `);
  }
}

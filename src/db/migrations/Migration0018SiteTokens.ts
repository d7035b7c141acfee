import { Migration } from '@mikro-orm/migrations';

/**
 * Site lookup tokens: credentials an organization gives its site renderer, which resolve the
 * URLs of that organization's published sites and nothing else. Stored only as the SHA-256 hash
 * of the secret, like API tokens; revoking one deletes it.
 */
export class Migration0018SiteTokens extends Migration {
  override name = 'Migration0018SiteTokens';

  override up(): void {
    this.addSql(`
      create table site_lookup_token (
        id text primary key,
        organization_id text not null references organization (id) on delete cascade,
        label text not null,
        token_hash text not null unique,
        created_by text references app_user (id) on delete set null,
        created_at timestamptz not null default now(),
        last_used_at timestamptz
      );
      create index site_lookup_token_organization on site_lookup_token (organization_id, created_at, id);
    `);
  }
}

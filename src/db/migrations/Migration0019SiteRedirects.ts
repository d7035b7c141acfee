import { Migration } from '@mikro-orm/migrations';

/**
 * Site redirects: a source path of a published site sent to a section, a site-space, a page of a
 * site-space or an external URL. A site has at most one live and one draft redirect per source.
 * A source ending in `*` matches every path it prefixes; lookups try the exact source first, then
 * the longest matching prefix (`prefix` holds the source without its `*`, for those).
 */
export class Migration0019SiteRedirects extends Migration {
  override name = 'Migration0019SiteRedirects';

  override up(): void {
    this.addSql(`
      create table site_redirect (
        id text primary key,
        site_id text not null references site (id) on delete cascade,
        source text not null collate "C",
        prefix text collate "C",
        draft boolean not null default false,
        capture_wildcard boolean not null default false,
        permanent boolean not null default false,
        destination jsonb not null,
        created_at timestamptz not null default now(),
        updated_at timestamptz
      );
      create unique index site_redirect_source on site_redirect (site_id, draft, source);
      create index site_redirect_created on site_redirect (site_id, draft, created_at, id);
      create index site_redirect_prefix on site_redirect (site_id, draft, prefix) where prefix is not null;
    `);
  }
}

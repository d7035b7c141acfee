import { Migration } from '@mikro-orm/migrations';

/**
 * Draft mode of a site's structure (GitBook's `draft` on site-spaces, sections and section
 * groups): a draft is part of the structure its members list and edit, and of a preview that asks
 * for drafts, but no reader of the published site sees it (nor anything in a draft section or
 * group). Existing rows are live. The structure triggers (Migration0013, 0026) already bump the
 * site's structure version when `draft` changes.
 */
export class Migration0039SiteDrafts extends Migration {
  override name = 'Migration0039SiteDrafts';

  override up(): void {
    this.addSql(`
      alter table site_space add column draft boolean not null default false;
      alter table site_section add column draft boolean not null default false;
      alter table site_section_group add column draft boolean not null default false;
    `);
  }
}

import { Migration } from '@mikro-orm/migrations';

/**
 * A revision's page rows are written once, in the transaction that inserts the revision itself,
 * and most of them are copies of the previous revision's (a merge into a 5,000-page space copies
 * 4,500). Their foreign key to `revision` checked every copied row against the revision just
 * inserted, one lookup a row: 30–45% of the copy. The key goes; deleting revisions (a space's
 * purge, through its cascade to `revision`) still deletes their pages, now once per statement.
 */
export class Migration0027RevisionPageCascade extends Migration {
  override name = 'Migration0027RevisionPageCascade';

  override up(): void {
    this.addSql(`
      alter table revision_page drop constraint revision_page_revision_id_fkey;

      create function revision_page_purge() returns trigger language plpgsql as $$
      begin
        delete from revision_page where revision_id in (select id from gone);
        return null;
      end
      $$;
      create trigger revision_page_purge after delete on revision
        referencing old table as gone
        for each statement execute function revision_page_purge();
    `);
  }
}

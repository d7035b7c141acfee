import { Migration } from '@mikro-orm/migrations';

/**
 * Reusable content: blocks of content a revision's pages include (in Git Sync, the files under
 * `.gitbook/includes/`). Each revision lists its own, like its files; their text is a
 * content-addressed `page_document` of the space, so a revision that does not change them only
 * copies index rows.
 */
export class Migration0017ReusableContent extends Migration {
  override name = 'Migration0017ReusableContent';

  override up(): void {
    this.addSql(`
      create table revision_reusable_content (
        revision_id text not null references revision (id) on delete cascade,
        reusable_content_id text not null,
        title text not null,
        path text,
        document_hash text not null,
        primary key (revision_id, reusable_content_id)
      );
    `);
  }
}

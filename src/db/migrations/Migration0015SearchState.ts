import { Migration } from '@mikro-orm/migrations';

/**
 * Which revision of each space the search index reflects. Writers that move a space's content
 * bring the index along in their own transaction, or (merges) leave it to a `search-index` job
 * that diffs from this revision to the current one; the row is the lock that orders them.
 */
export class Migration0015SearchState extends Migration {
  override name = 'Migration0015SearchState';

  override up(): void {
    this.addSql(`
      create table search_state (
        space_id text primary key references space (id) on delete cascade,
        revision_id text
      );
      insert into search_state (space_id, revision_id) select id, revision_id from space;
    `);
  }
}

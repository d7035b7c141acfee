import { Migration } from '@mikro-orm/migrations';

/**
 * PDF exports of change requests. The PDF bytes live in the blob store under their sha256; a row
 * here remembers which PDF was rendered for a change request at a revision with given options
 * (`page_id` '' for the whole content; `only_page` for that page alone rather than the page and
 * the pages under it), so asking again for an unchanged revision reuses it instead of printing
 * again. A download link names the sha256; its row says which change request it belongs to.
 */
export class Migration0009Pdf extends Migration {
  override name = 'Migration0009Pdf';

  override up(): void {
    this.addSql(`
      create table pdf_export (
        space_id text not null references space (id) on delete cascade,
        change_request_id text not null references change_request (id) on delete cascade,
        revision_id text not null references revision (id) on delete cascade,
        only_page boolean not null,
        page_id text not null default '',
        sha256 text not null check (sha256 ~ '^[0-9a-f]{64}$'),
        size bigint not null,
        page_count integer not null,
        created_at timestamptz not null,
        primary key (change_request_id, revision_id, only_page, page_id)
      );
      create index pdf_export_space_idx on pdf_export (space_id);
      create index pdf_export_revision_idx on pdf_export (revision_id);
      create index pdf_export_sha256_idx on pdf_export (sha256);
    `);
  }
}

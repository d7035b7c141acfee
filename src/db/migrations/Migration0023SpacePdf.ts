import { Migration } from '@mikro-orm/migrations';

/**
 * PDF exports of a space's current content, as `pdf_export` records those of change requests: a
 * row remembers the PDF rendered for the space at a revision with given options (`page_id` '' for
 * the whole content), so asking again before the content changes reuses it, and names the space
 * a download link belongs to.
 */
export class Migration0023SpacePdf extends Migration {
  override name = 'Migration0023SpacePdf';

  override up(): void {
    this.addSql(`
      create table space_pdf_export (
        space_id text not null references space (id) on delete cascade,
        revision_id text not null references revision (id) on delete cascade,
        only_page boolean not null,
        page_id text not null default '',
        sha256 text not null check (sha256 ~ '^[0-9a-f]{64}$'),
        size bigint not null,
        page_count integer not null,
        created_at timestamptz not null,
        primary key (space_id, revision_id, only_page, page_id)
      );
      create index space_pdf_export_revision_idx on space_pdf_export (revision_id);
      create index space_pdf_export_sha256_idx on space_pdf_export (sha256);
    `);
  }
}

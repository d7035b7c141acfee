import { Migration } from '@mikro-orm/migrations';

/**
 * Content and change requests. A revision's page tree is one small index row per page
 * (`revision_page`: place in the tree and metadata) pointing at a content-addressed document
 * (`page_document`), so a new revision shares every unchanged document with its parent and
 * reading one page touches one index row and one document. Files work the same way: index rows in
 * `revision_file`, bytes in the blob store under their sha256.
 */
export class Migration0002Content extends Migration {
  override name = 'Migration0002Content';

  override up(): void {
    this.addSql(`
      alter table space add column change_request_seq integer not null default 0;
      alter table revision add column change_request_id text;
      alter table revision add column git jsonb;

      create table page_document (
        space_id text not null references space (id) on delete cascade,
        hash text not null,
        markdown text not null,
        primary key (space_id, hash)
      );

      create table revision_page (
        revision_id text not null references revision (id) on delete cascade,
        page_id text not null,
        parent_id text,
        position text collate "C" not null,
        meta jsonb not null,
        document_hash text not null,
        primary key (revision_id, page_id)
      );
      create index revision_page_tree_idx on revision_page (revision_id, parent_id, position);

      create table revision_file (
        revision_id text not null references revision (id) on delete cascade,
        file_id text not null,
        name text not null,
        content_type text not null,
        size bigint not null,
        width integer,
        height integer,
        sha256 text not null,
        created_at timestamptz not null default now(),
        primary key (revision_id, file_id)
      );

      create table change_request (
        id text primary key,
        space_id text not null references space (id) on delete cascade,
        number integer not null,
        status text not null check (status in ('draft', 'open', 'archived', 'merged')),
        subject text not null default '',
        created_by text references app_user (id) on delete set null,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        revision_id text not null,
        revision_initial text not null,
        revision_merged_ancestor text,
        revision_merged text,
        merged_at timestamptz,
        merged_by text references app_user (id) on delete set null,
        conflicts jsonb,
        unique (space_id, number)
      );
      create index change_request_list_idx on change_request (space_id, status, created_at, id);

      create table search_section (
        space_id text not null references space (id) on delete cascade,
        page_id text not null,
        section_id text not null,
        page_title text not null,
        page_path text not null,
        title text not null,
        body text not null,
        tsv tsvector generated always as (
          setweight(to_tsvector('simple', page_title), 'A') ||
          setweight(to_tsvector('simple', title), 'B') ||
          setweight(to_tsvector('simple', body), 'C')
        ) stored,
        primary key (space_id, page_id, section_id)
      );
      create index search_section_tsv_idx on search_section using gin (tsv);
    `);
  }
}

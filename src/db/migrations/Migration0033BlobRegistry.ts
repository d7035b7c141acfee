import { Migration } from '@mikro-orm/migrations';

/**
 * Blobs are collected (src/db/blobs.ts, docs/operations.md "Deleting blobs"):
 * - `blob` registers every blob written through the service's store, with the last time a writer
 *   touched it; a collection locks the row, and a writer's upsert waits for that lock.
 * - `blob_candidate` queues hashes to look at once `since` is older than BLOB_GRACE: every write
 *   queues its hash, and so does every statement that deletes a reference or changes its hash
 *   (statement triggers on `revision_file`, `pdf_export` and `space_pdf_export`, cascades included).
 *   A purge backdates its candidates to the space's deletion (`blob.unreferenced_at`, set locally).
 * - Every referencing `sha256` column is indexed, so "is it still referenced" is three index probes.
 * The registry starts with every hash a row references today, touched now.
 */
export class Migration0033BlobRegistry extends Migration {
  override name = 'Migration0033BlobRegistry';

  override up(): void {
    this.addSql(`
      create table blob (
        sha256 text primary key check (sha256 ~ '^[0-9a-f]{64}$'),
        size bigint,
        touched_at timestamptz not null default now()
      );
      create table blob_candidate (
        sha256 text primary key check (sha256 ~ '^[0-9a-f]{64}$'),
        since timestamptz not null default now()
      );
      create index blob_candidate_since_idx on blob_candidate (since, sha256);
      create index revision_file_sha256_idx on revision_file (sha256);

      insert into blob (sha256, size, touched_at)
      select sha256, max(size), now()
        from (select sha256, size from revision_file
              union all select sha256, size from pdf_export
              union all select sha256, size from space_pdf_export) referenced
       where sha256 ~ '^[0-9a-f]{64}$'
       group by sha256;

      create function blob_unreferenced() returns trigger language plpgsql as $$
      declare
        at timestamptz := coalesce(nullif(current_setting('blob.unreferenced_at', true), '')::timestamptz, now());
      begin
        if tg_op = 'UPDATE' then
          insert into blob_candidate (sha256, since)
          select sha256, at from (select sha256 from gone except select sha256 from kept) changed
           where sha256 ~ '^[0-9a-f]{64}$'
          on conflict (sha256) do update set since = greatest(blob_candidate.since, excluded.since);
        else
          insert into blob_candidate (sha256, since)
          select distinct sha256, at from gone
           where sha256 ~ '^[0-9a-f]{64}$'
          on conflict (sha256) do update set since = greatest(blob_candidate.since, excluded.since);
        end if;
        return null;
      end
      $$;

      create trigger revision_file_unreferenced after delete on revision_file
        referencing old table as gone for each statement execute function blob_unreferenced();
      create trigger revision_file_rehashed after update on revision_file
        referencing old table as gone new table as kept for each statement execute function blob_unreferenced();
      create trigger pdf_export_unreferenced after delete on pdf_export
        referencing old table as gone for each statement execute function blob_unreferenced();
      create trigger pdf_export_rehashed after update on pdf_export
        referencing old table as gone new table as kept for each statement execute function blob_unreferenced();
      create trigger space_pdf_export_unreferenced after delete on space_pdf_export
        referencing old table as gone for each statement execute function blob_unreferenced();
      create trigger space_pdf_export_rehashed after update on space_pdf_export
        referencing old table as gone new table as kept for each statement execute function blob_unreferenced();
    `);
  }
}

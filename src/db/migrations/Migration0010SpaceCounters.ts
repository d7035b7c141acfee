import { Migration } from '@mikro-orm/migrations';

/**
 * The counters shown on every space (change requests by status, open comments) kept on the space
 * row by triggers, in the same transaction as the change that moves them, so reading a space
 * costs one row and the counts are always exact.
 */
export class Migration0010SpaceCounters extends Migration {
  override name = 'Migration0010SpaceCounters';

  override up(): void {
    this.addSql(`
      alter table space
        add column change_requests integer not null default 0,
        add column change_requests_open integer not null default 0,
        add column change_requests_draft integer not null default 0,
        add column comments_open integer not null default 0;

      create function space_count_change_requests(target text) returns void language sql as $$
        update space set
          change_requests = c.total, change_requests_open = c.open, change_requests_draft = c.draft
        from (select count(*) as total,
                     count(*) filter (where status = 'open') as open,
                     count(*) filter (where status = 'draft') as draft
                from change_request where space_id = target) c
        where space.id = target
      $$;

      create function space_count_comments(target text) returns void language sql as $$
        update space set comments_open =
          (select count(*) from comment where space_id = target and change_request_id is null and resolved_at is null)
        where space.id = target
      $$;

      create function change_request_counted() returns trigger language plpgsql as $$
      begin
        if tg_op in ('UPDATE', 'DELETE') then perform space_count_change_requests(old.space_id); end if;
        if tg_op in ('INSERT', 'UPDATE') and (tg_op = 'INSERT' or new.space_id is distinct from old.space_id) then
          perform space_count_change_requests(new.space_id);
        end if;
        return null;
      end $$;

      create function comment_counted() returns trigger language plpgsql as $$
      begin
        if tg_op in ('UPDATE', 'DELETE') then perform space_count_comments(old.space_id); end if;
        if tg_op in ('INSERT', 'UPDATE') and (tg_op = 'INSERT' or new.space_id is distinct from old.space_id) then
          perform space_count_comments(new.space_id);
        end if;
        return null;
      end $$;

      create trigger change_request_counted after insert or delete or update of status, space_id on change_request
        for each row execute function change_request_counted();
      create trigger comment_counted after insert or delete or update of resolved_at, space_id, change_request_id on comment
        for each row execute function comment_counted();

      select space_count_change_requests(id), space_count_comments(id) from space;
    `);
  }
}

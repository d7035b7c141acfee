import { Migration } from '@mikro-orm/migrations';

/**
 * Change-request reviews, requested reviewers and the authors of a change request's edits.
 * A review is bound to the revision of the change request it looked at; requests are one per
 * change request and user (asking again refreshes the request). `change_request_edit` names the
 * user behind each revision written into a change request (its contributors).
 */
export class Migration0020Reviews extends Migration {
  override name = 'Migration0020Reviews';

  override up(): void {
    this.addSql(`
      create table change_request_review (
        id text primary key,
        change_request_id text not null references change_request (id) on delete cascade,
        revision_id text not null,
        reviewer_id text references app_user (id) on delete set null,
        requested_by text references app_user (id) on delete set null,
        status text not null check (status in ('approved', 'changes-requested')),
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      );
      create index change_request_review_list on change_request_review (change_request_id, created_at, id);
      create table change_request_reviewer (
        change_request_id text not null references change_request (id) on delete cascade,
        user_id text not null references app_user (id) on delete cascade,
        requested_by text references app_user (id) on delete set null,
        revision_id text not null,
        created_at timestamptz not null default now(),
        primary key (change_request_id, user_id)
      );
      create table change_request_edit (
        revision_id text primary key references revision (id) on delete cascade,
        change_request_id text not null references change_request (id) on delete cascade,
        user_id text references app_user (id) on delete set null,
        created_at timestamptz not null default now()
      );
      create index change_request_edit_by on change_request_edit (change_request_id, user_id);
    `);
  }
}

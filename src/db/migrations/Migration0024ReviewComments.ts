import { Migration } from '@mikro-orm/migrations';

/**
 * A review's comment and teams asked to review. A review submitted with a comment posts it as a
 * comment of the change request tied to the review (`comment.review_id`, GitBook's
 * `target.review`); deleting the comment leaves the review. `change_request_team_reviewer` holds
 * the teams asked to review a change request, one row per change request and team (asking again
 * refreshes the request); a review by any member of the team answers it.
 */
export class Migration0024ReviewComments extends Migration {
  override name = 'Migration0024ReviewComments';

  override up(): void {
    this.addSql(`
      alter table comment add column review_id text references change_request_review (id) on delete set null;
      create unique index comment_review_key on comment (review_id) where review_id is not null;
      create table change_request_team_reviewer (
        change_request_id text not null references change_request (id) on delete cascade,
        team_id text not null references team (id) on delete cascade,
        requested_by text references app_user (id) on delete set null,
        revision_id text not null,
        created_at timestamptz not null default now(),
        primary key (change_request_id, team_id)
      );
      create index change_request_team_reviewer_team on change_request_team_reviewer (team_id);
    `);
  }
}

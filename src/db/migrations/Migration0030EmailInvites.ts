import { Migration } from '@mikro-orm/migrations';

/**
 * Invitations by email to people who have an account: an invitation waits here until the invited
 * user accepts it (and becomes a member with `role`) or declines it, with their own token; an
 * invite by email never makes anyone a member by itself. One invitation per user and organization
 * (inviting again replaces its role); deleting the organization or the account deletes it.
 */
export class Migration0030EmailInvites extends Migration {
  override name = 'Migration0030EmailInvites';

  override up(): void {
    this.addSql(`
      create table organization_email_invite (
        id text primary key,
        organization_id text not null references organization (id) on delete cascade,
        user_id text not null references app_user (id) on delete cascade,
        role text check (role in ('admin', 'create', 'review', 'edit', 'comment', 'read')),
        invited_by text not null,
        created_at timestamptz not null default now(),
        unique (organization_id, user_id)
      );
      create index organization_email_invite_user on organization_email_invite (user_id, created_at, id);
    `);
  }
}

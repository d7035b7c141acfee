import { Migration } from '@mikro-orm/migrations';

/**
 * Invite links of an organization. A link's id is the secret that joins with it, so a row keeps
 * only its SHA-256 hash (the key lookups use) and the id sealed with the secrets key (so admins can
 * list their links). `role` null invites as a guest; a link past `expires_at`, or `disabled`, no
 * longer joins.
 */
export class Migration0021Invites extends Migration {
  override name = 'Migration0021Invites';

  override up(): void {
    this.addSql(`
      create table organization_invite_link (
        key_hash text primary key,
        organization_id text not null references organization (id) on delete cascade,
        sealed_id text not null,
        role text check (role in ('admin', 'create', 'review', 'edit', 'comment', 'read')),
        expires_at timestamptz,
        disabled boolean not null default false,
        created_by text not null,
        created_at timestamptz not null default now(),
        updated_at timestamptz
      );
      create index organization_invite_link_created on organization_invite_link (organization_id, created_at, key_hash);
    `);
  }
}

import { Migration } from '@mikro-orm/migrations';

/**
 * SAML single sign-on: identity providers of an organization, the login requests this service sent
 * (checked against InResponseTo), and the assertions already used (replay protection, kept until
 * they expire).
 */
export class Migration0006Saml extends Migration {
  override name = 'Migration0006Saml';

  override up(): void {
    this.addSql(`
      create table saml_provider (
        id text primary key,
        organization_id text not null references organization (id) on delete cascade,
        label text not null,
        sso_url text,
        entity_id text,
        certificate text,
        default_team_id text references team (id) on delete set null,
        default_role text check (default_role in ('admin', 'create', 'review', 'edit', 'comment', 'read')),
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      );
      create index saml_provider_org_idx on saml_provider (organization_id, created_at, id);
      create index saml_provider_team_idx on saml_provider (default_team_id) where default_team_id is not null;
      create table saml_request (
        provider_id text not null references saml_provider (id) on delete cascade,
        id text not null,
        created_at timestamptz not null,
        primary key (provider_id, id)
      );
      create index saml_request_created_idx on saml_request (created_at);
      create table saml_assertion (
        provider_id text not null references saml_provider (id) on delete cascade,
        id text not null,
        not_on_or_after timestamptz not null,
        used_at timestamptz not null default now(),
        primary key (provider_id, id)
      );
      create index saml_assertion_expiry_idx on saml_assertion (not_on_or_after);
    `);
  }
}

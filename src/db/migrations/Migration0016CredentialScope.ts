import { Migration } from '@mikro-orm/migrations';

/**
 * A token minted by an organization's SAML sign-in works in that organization only: the
 * organization is kept on the token (null: a token of the user's own, issued by an operator).
 * Tokens that sign-ins minted before this have no organization to be bound to, so they are
 * revoked: their holders sign in again.
 */
export class Migration0016CredentialScope extends Migration {
  override name = 'Migration0016CredentialScope';

  override up(): void {
    this.addSql(`
      alter table api_token add column organization_id text references organization (id) on delete cascade;
      update api_token set revoked_at = now() where revoked_at is null and label like 'SAML sign-in: %';
    `);
  }
}

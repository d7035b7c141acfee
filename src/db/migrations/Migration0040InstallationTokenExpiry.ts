import { Migration } from '@mikro-orm/migrations';

/** Installation tokens by expiry: the integration events' sweep deletes those expired for a day (src/db/integrations.ts). */
export class Migration0040InstallationTokenExpiry extends Migration {
  override name = 'Migration0040InstallationTokenExpiry';

  override up(): void {
    this.addSql(`create index integration_installation_token_expiry_idx on integration_installation_token (expires_at);`);
  }
}

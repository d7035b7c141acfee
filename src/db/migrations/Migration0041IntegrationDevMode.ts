import { Migration } from '@mikro-orm/migrations';

/**
 * An integration's development mode (`setIntegrationDevelopmentMode`): the tunnel its events are
 * dispatched to instead of its published script, and whether every organization's are, or only
 * those of the organization that owns it.
 */
export class Migration0041IntegrationDevMode extends Migration {
  override name = 'Migration0041IntegrationDevMode';

  override up(): void {
    this.addSql(`alter table integration add column dev_tunnel_url text null, add column dev_all boolean not null default false;`);
  }
}

import { Migration } from '@mikro-orm/migrations';

/**
 * A change request an integration opened with a token acting as one of its installations: the
 * integration's name (no foreign key: the change request outlives the integration, and keeps its
 * author's name). `created_by` stays null for it, as no user opened it.
 */
export class Migration0042ChangeRequestIntegrationAuthor extends Migration {
  override name = 'Migration0042ChangeRequestIntegrationAuthor';

  override up(): void {
    this.addSql(`alter table change_request add column created_by_integration text null;`);
  }
}

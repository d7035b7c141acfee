import { Migration } from '@mikro-orm/migrations';

/**
 * Merge rules: the organization's (null: none) and a space's (null: inherit the organization's),
 * each a GitBook `MergeRules` configuration as JSON. A change request gains its description (which
 * a rule may require) and, when an admin merged it past unmet rules, what was bypassed and by whom.
 */
export class Migration0022MergeRules extends Migration {
  override name = 'Migration0022MergeRules';

  override up(): void {
    this.addSql(`
      alter table organization add column merge_rules jsonb;
      alter table space add column merge_rules jsonb;
      alter table change_request add column description text not null default '';
      alter table change_request add column merge_bypass jsonb;
    `);
  }
}

import { Migration } from '@mikro-orm/migrations';

/**
 * A site's section groups are part of its structure too: a change to one bumps
 * `site.structure_version` (as sections and site-spaces already do), so caches of what a reader
 * sees of the site, keyed by that version, never answer an old group title or order.
 */
export class Migration0026GroupStructure extends Migration {
  override name = 'Migration0026GroupStructure';

  override up(): void {
    this.addSql(`
      create trigger site_section_group_structure after insert or update or delete on site_section_group
        for each row execute function site_structure_changed();
    `);
  }
}

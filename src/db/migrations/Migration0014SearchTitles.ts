import { Migration } from '@mikro-orm/migrations';

/**
 * Page titles get an index of their own (on each page's first row, section ''), so a search whose
 * terms are everywhere in the text still finds every page with them in its title: the ranking of
 * broad queries looks at a bounded window of text matches plus all title matches.
 */
export class Migration0014SearchTitles extends Migration {
  override name = 'Migration0014SearchTitles';

  override up(): void {
    this.addSql(`
      create index search_section_title_idx on search_section using gin (to_tsvector('simple', page_title)) where section_id = '';
    `);
  }
}

import type { SiteRow, SiteSpaceRow } from '../../../db/sites.ts';
import { publishedUrl, type SiteUrlsContext } from '../present.ts';

/**
 * Site-space objects from rows: pure, everything they need is passed in.
 * `hasAdvancedCustomizationFeature`, optional in GitBook's `SiteSpace`, is left out: this service
 * has no plan features to enable or withhold.
 */

export function presentSiteSpace(
  row: SiteSpaceRow,
  space: unknown,
  options: { isDefault: boolean; sectionPath: string | null; site: SiteRow; urls: SiteUrlsContext },
) {
  return {
    object: 'site-space' as const,
    id: row.id,
    path: row.path,
    ...(row.section_id ? { section: row.section_id } : {}),
    space,
    title: row.title ?? row.space_title,
    default: options.isDefault,
    draft: row.draft,
    hidden: row.hidden,
    ...(row.condition ? { condition: row.condition } : {}),
    urls: publishedUrl(options.site, options.urls, [options.sectionPath, row.path]),
  };
}

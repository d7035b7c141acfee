import type { GroupRow, SectionRow, SiteRow } from '../../../db/sites.ts';
import { publishedUrl, type SiteUrlsContext } from '../present.ts';

/** Site section and section group objects from rows: pure, everything they need is passed in. */

export function presentSection(
  row: SectionRow,
  siteSpaces: unknown[],
  options: { isDefault: boolean; site: SiteRow; urls: SiteUrlsContext },
) {
  return {
    object: 'site-section' as const,
    id: row.id,
    title: row.title,
    ...(row.description ? { description: row.description } : {}),
    default: options.isDefault,
    draft: row.draft,
    path: row.path,
    ...(row.condition ? { condition: row.condition } : {}),
    ...(row.group_id ? { sectionGroup: row.group_id } : {}),
    ...(row.icon ? { icon: row.icon } : {}),
    siteSpaces,
    urls: publishedUrl(options.site, options.urls, [row.path]),
  };
}

export function presentGroup(row: GroupRow, sections: unknown[]) {
  return {
    object: 'site-section-group' as const,
    id: row.id,
    title: row.title,
    ...(row.icon ? { icon: row.icon } : {}),
    draft: row.draft,
    sections,
    children: sections,
  };
}

import type { ShareLinkRow, SiteRow } from '../../../db/sites.ts';
import { siteUrl } from '../../../domain/sites/urls.ts';
import { baseOf, type SiteUrlsContext } from '../present.ts';

/** Share-link objects from rows: pure, everything they need is passed in. */

export function presentShareLink(row: ShareLinkRow, site: SiteRow, urls: SiteUrlsContext, key?: string) {
  return {
    object: 'share-link' as const,
    id: row.id,
    createdAt: new Date(row.created_at).toISOString(),
    name: row.name,
    active: row.active,
    ...(key ? { key } : {}),
    // The key as the first path segment after the site's base: the form GitBook's renderer resolves
    // and keeps in every link it builds (the lookup also reads `?shareKey=`).
    urls: key ? { published: siteUrl(baseOf(site, urls), [key]) } : {},
  };
}

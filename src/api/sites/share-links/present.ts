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
    urls: key ? { published: siteUrl(baseOf(site, urls), [], { shareKey: key }) } : {},
  };
}

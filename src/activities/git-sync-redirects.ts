import type { Em } from '../db/orm.ts';
import { countRedirects, redirectsBySources, sitesPublishingSpace, upsertLiveRedirect } from '../db/site-redirects.ts';
import { sectionsOf, siteSpacesOf } from '../db/sites.ts';
import { newId } from '../domain/ids.ts';
import { canonicalParts, MAX_REDIRECTS_PER_SITE, sourceUnder } from '../domain/sites/redirects.ts';

/**
 * The `redirects` of an imported `.gitbook.yaml`, made live redirects of every site that publishes
 * the space: in each site, from the old path under the site-space's URL (its section's and its own
 * path, left out where they are the defaults, as canonical URLs are) to the page. Existing
 * redirects from the same source are pointed at the page; a site already holding the most
 * redirects it may gets no new ones. Runs in the import's transaction, once the space has moved.
 */
export async function publishImportedRedirects(tx: Em, spaceId: string, redirects: { path: string; pageId: string }[]): Promise<number> {
  if (redirects.length === 0) return 0;
  let written = 0;
  for (const siteId of await sitesPublishingSpace(tx, spaceId)) {
    const [sections, siteSpaces] = [await sectionsOf(tx, siteId), await siteSpacesOf(tx, siteId)];
    let room = MAX_REDIRECTS_PER_SITE - (await countRedirects(tx, siteId));
    for (const siteSpace of siteSpaces.filter((s) => s.space_id === spaceId)) {
      const prefix = canonicalParts(sections, siteSpaces, siteSpace);
      const wanted = redirects.flatMap((r) => {
        const source = sourceUnder(prefix, r.path);
        return source ? [{ source, pageId: r.pageId }] : [];
      });
      const existing = new Set(
        (
          await redirectsBySources(
            tx,
            siteId,
            wanted.map((w) => w.source),
          )
        )
          .filter((r) => !r.draft)
          .map((r) => r.source),
      );
      for (const { source, pageId } of wanted) {
        if (!existing.has(source)) {
          if (room <= 0) continue;
          room -= 1;
        }
        await upsertLiveRedirect(tx, newId(), siteId, source, { kind: 'site-page', siteSpaceId: siteSpace.id, pageId });
        written += 1;
      }
    }
  }
  return written;
}

import type { Static } from 'typebox';
import { deleteSite as deleteSiteRow, insertSite, insertSiteSpace, sitesListing } from '../../db/sites.ts';
import { transaction } from '../../db/orm.ts';
import { insightsStore } from '../../db/insights.ts';
import { slugify } from '../../domain/content/tree.ts';
import { siteGrantsOf } from '../../db/site-permissions.ts';
import { atLeast, highest, isRole } from '../../domain/roles.ts';
import { newId } from '../../domain/ids.ts';
import { lastKey, uniquePath } from '../../domain/sites/order.ts';
import { requireOrganization } from '../access.ts';
import type { Ctx } from '../context.ts';
import { paginate } from '../pagination.ts';
import { newSigningKey, sealSigningKey } from './keys.ts';
import { presentSite } from './present.ts';
import { usableSpaces } from './published-spaces.ts';
import type { CreateSiteBody, ListSitesQuery } from './schemas.ts';
import { freshSite, requireSite, siteUrls } from './site-access.ts';

/** Sites of an organization: listing, creating (with the spaces it starts with), reading and deleting. */

/**
 * The organization's sites: every one for members with a role, and for a guest (no organization
 * role) the sites granted to them or their teams (site permissions).
 */
export async function listSites(ctx: Ctx, organizationId: string, query: Static<typeof ListSitesQuery>) {
  const { role } = await requireOrganization(ctx, organizationId);
  const filters = atLeast(role, 'read') ? query : { ...query, grantedTo: ctx.caller.user.id };
  return paginate(ctx.em, sitesListing(ctx.em, organizationId, filters), query, async (rows) => {
    // Each site as the caller's role on it shows it: their organization role, or higher through a site grant.
    const grants = await siteGrantsOf(
      ctx.em,
      organizationId,
      rows.map((r) => r.id),
      ctx.caller.user.id,
    );
    return rows.map((r) => presentSite(r, highest(role, ...(grants.get(r.id) ?? []).filter(isRole)), siteUrls(ctx.deps)));
  });
}

/** Creates a site with a new signing key, publishing `spaces` at its root (the first one the default). */
export async function createSite(ctx: Ctx, organizationId: string, body: Static<typeof CreateSiteBody>) {
  const { role } = await requireOrganization(ctx, organizationId, 'admin', 'create sites');
  const spaces = await usableSpaces(ctx, organizationId, [...new Set(body.spaces ?? [])], 'spaces');
  const id = newId();
  const sealed = await sealSigningKey(ctx.deps, id, newSigningKey());
  await transaction(ctx.em, async (tx) => {
    await insertSite(tx, {
      id,
      organizationId,
      type: body.type ?? 'basic',
      title: body.title ?? 'Docs site',
      visibility: body.visibility ?? 'public',
      authKeySealed: sealed,
    });
    const taken: string[] = [];
    const positions: { id: string; position: string }[] = [];
    for (const [i, space] of spaces.entries()) {
      const path = uniquePath(slugify(space.title || 'space'), taken);
      taken.push(path);
      const position = lastKey(positions);
      const siteSpaceId = newId();
      positions.push({ id: siteSpaceId, position });
      await insertSiteSpace(tx, {
        id: siteSpaceId,
        siteId: id,
        sectionId: null,
        spaceId: space.id,
        path,
        title: null,
        isDefault: i === 0,
        position,
        draft: false,
      });
    }
  });
  return freshSite(ctx, organizationId, id, role);
}

export async function getSite(ctx: Ctx, organizationId: string, siteId: string) {
  const { site, role } = await requireSite(ctx, organizationId, siteId);
  return presentSite(site, role, siteUrls(ctx.deps));
}

export async function deleteSite(ctx: Ctx, organizationId: string, siteId: string) {
  const { site } = await requireSite(ctx, organizationId, siteId, 'admin', 'delete this site');
  // The site's insights events go with it.
  await transaction(ctx.em, async (tx) => {
    await insightsStore(ctx.deps.orm, ctx.deps.config.insightsRetentionMs).purgeSite(tx, site.id);
    await deleteSiteRow(tx, site.id);
  });
}

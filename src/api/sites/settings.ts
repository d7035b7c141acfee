import type { Static } from 'typebox';
import { isUniqueViolation } from '../../db/health.ts';
import { transaction } from '../../db/orm.ts';
import {
  lockSiteHosts,
  sectionsOf,
  setDefaultSection,
  setDefaultSiteSpace,
  siteAddressTaken,
  siteSpacesOf,
  updateSite as updateSiteRow,
} from '../../db/sites.ts';
import { effectiveDefault } from '../../domain/sites/order.ts';
import type { Ctx } from '../context.ts';
import { badRequest, conflict } from '../errors.ts';
import type { UpdateSiteBody } from './schemas.ts';
import { freshSite, requireSite } from './site-access.ts';
import { asOrdered } from './structure.ts';

/**
 * A site's settings: title, visibility, addresses (hostname, basename, proxy: each used by one site
 * only, and a host by one organization only), the default section and site-space, adaptive content.
 */

/** The host of an address, for messages: the custom hostname, or the proxy's host. */
const hostTaken = (address: { hostname?: string | null; proxy?: string | null }) =>
  [address.hostname, address.proxy?.split('/')[0]].filter(Boolean).join(', ');

export async function updateSite(ctx: Ctx, organizationId: string, siteId: string, body: Static<typeof UpdateSiteBody>) {
  const { site, role } = await requireSite(ctx, organizationId, siteId, 'admin', 'change this site');
  const address = { hostname: body.hostname, basename: body.basename, proxy: body.proxy };
  await transaction(ctx.em, async (tx) => {
    if (Object.values(address).some((v) => v)) {
      await lockSiteHosts(tx, address);
      const taken = await siteAddressTaken(tx, organizationId, site.id, address);
      if (taken === 'host') throw conflict(`That host is used by a site of another organization: ${hostTaken(address)}`);
      if (taken) throw conflict(`${taken} is already used by another site`);
    }
    if (body.defaultSiteSection !== undefined) {
      const sections = await sectionsOf(tx, site.id);
      if (!sections.some((s) => s.id === body.defaultSiteSection)) throw badRequest('defaultSiteSection is not a section of this site');
      await setDefaultSection(tx, site.id, body.defaultSiteSection);
    }
    if (body.defaultSiteSpace !== undefined) {
      const sections = await sectionsOf(tx, site.id);
      const level = sections.length ? effectiveDefault(asOrdered(sections))!.id : null;
      const siteSpaces = await siteSpacesOf(tx, site.id, level);
      if (!siteSpaces.some((s) => s.id === body.defaultSiteSpace)) {
        throw badRequest(
          level ? 'defaultSiteSpace is not a site-space of the default section' : 'defaultSiteSpace is not a site-space of this site',
        );
      }
      await setDefaultSiteSpace(tx, site.id, level, body.defaultSiteSpace);
    }
    try {
      await updateSiteRow(tx, site.id, {
        title: body.title,
        visibility: body.visibility,
        basename: body.basename,
        hostname: body.hostname,
        proxy: body.proxy,
        adaptive_content: body.adaptiveContent?.enabled,
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw conflict('hostname, basename or proxy is already used by another site');
      throw error;
    }
  });
  return freshSite(ctx, organizationId, site.id, role);
}

import type { Static } from 'typebox';
import { siteById, updateSite as updateSiteRow } from '../../db/sites.ts';
import { mergeCustomization, type JsonObject } from '../../domain/sites/customization.ts';
import type { Ctx } from '../context.ts';
import { presentCustomization } from './present.ts';
import type { CustomizationInput } from './schemas.ts';
import { requireSite } from './site-access.ts';

/** The customization of a site: what members read with the defaults filled in, and admins replace or change. */

export async function getCustomization(ctx: Ctx, organizationId: string, siteId: string) {
  const { site } = await requireSite(ctx, organizationId, siteId);
  return presentCustomization(site);
}

/** `replace`: the input becomes the stored customization (PUT); otherwise it is merged into it (PATCH). */
export async function changeCustomization(
  ctx: Ctx,
  organizationId: string,
  siteId: string,
  input: Static<typeof CustomizationInput>,
  replace: boolean,
) {
  const { site } = await requireSite(ctx, organizationId, siteId, 'admin', 'customize this site');
  const { updatedAt: _ignored, ...given } = input as JsonObject;
  const stored = replace ? mergeCustomization({}, given) : mergeCustomization(site.customization as JsonObject, given);
  await updateSiteRow(ctx.em, site.id, { customization: stored, customization_updated_at: new Date() });
  return presentCustomization((await siteById(ctx.em, organizationId, site.id))!);
}

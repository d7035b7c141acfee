import type { Static } from 'typebox';
import { siteById, updateSite as updateSiteRow } from '../../db/sites.ts';
import type { Ctx } from '../context.ts';
import { newSigningKey, openSigningKey, sealSigningKey } from './keys.ts';
import { presentPublishingAuth } from './present.ts';
import type { PublishingAuthBody } from './schemas.ts';
import { requireSite } from './site-access.ts';

/** Visitor authentication of a site: its signing key and where visitors go on failure and logout. Admins only. */

export async function getPublishingAuth(ctx: Ctx, organizationId: string, siteId: string) {
  const { site } = await requireSite(ctx, organizationId, siteId, 'admin', 'read the visitor authentication settings of this site');
  return presentPublishingAuth(site, await openSigningKey(ctx.deps, site));
}

export async function updatePublishingAuth(ctx: Ctx, organizationId: string, siteId: string, body: Static<typeof PublishingAuthBody>) {
  const { site } = await requireSite(ctx, organizationId, siteId, 'admin', 'change the visitor authentication settings of this site');
  await updateSiteRow(ctx.em, site.id, { fallback_url: body.fallbackURL, logout_url: body.logoutURL });
  const updated = (await siteById(ctx.em, organizationId, site.id))!;
  return presentPublishingAuth(updated, await openSigningKey(ctx.deps, updated));
}

/** A new signing key: visitor tokens signed with the previous one stop working at once. */
export async function regeneratePublishingAuth(ctx: Ctx, organizationId: string, siteId: string) {
  const { site } = await requireSite(ctx, organizationId, siteId, 'admin', 'regenerate the visitor signing key of this site');
  const key = newSigningKey();
  await updateSiteRow(ctx.em, site.id, { auth_key_sealed: await sealSigningKey(ctx.deps, site.id, key) });
  return presentPublishingAuth((await siteById(ctx.em, organizationId, site.id))!, key);
}

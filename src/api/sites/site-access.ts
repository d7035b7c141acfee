import { siteById, siteForVisitorById, type SiteRow } from '../../db/sites.ts';
import { atLeast, type Role } from '../../domain/roles.ts';
import { requireOrganization, requireRole } from '../access.ts';
import type { AppDeps, Ctx, VisitorGrant } from '../context.ts';
import { HttpError, notFound } from '../errors.ts';
import { hashShareKey } from './keys.ts';
import { presentSite, type SiteUrlsContext } from './present.ts';

/** Who may read or change a site, and the site as the caller sees it. */

export const siteUrls = (deps: AppDeps): SiteUrlsContext => ({ publicUrl: deps.config.publicUrl, sitesUrl: deps.config.sitesUrl });

/** The site, 404 unless the caller is a member of its organization; 403 below `min`. */
export async function requireSite(ctx: Ctx, organizationId: string, siteId: string, min: Role = 'read', action = 'read this site') {
  const { role } = await requireOrganization(ctx, organizationId);
  const site = await siteById(ctx.em, organizationId, siteId);
  if (!site) throw notFound('Site');
  requireRole(role, min, action);
  return { site, role };
}

/**
 * Who may read a site's structure: a member with a role, or anyone holding an active share key
 * of the site. 404 otherwise (also for a share key that is wrong or inactive).
 */
export async function siteReader(ctx: Ctx, organizationId: string, siteId: string, shareKey?: string) {
  const membership = await requireOrganization(ctx, organizationId).catch((error: unknown) => {
    if (error instanceof HttpError && error.statusCode === 404) return undefined;
    throw error;
  });
  if (membership && atLeast(membership.role, 'read')) {
    const site = await siteById(ctx.em, organizationId, siteId);
    if (!site) throw notFound('Site');
    return { site, role: membership.role, viaShareKey: false };
  }
  if (shareKey) {
    const found = await siteForVisitorById(ctx.em, organizationId, siteId, hashShareKey(shareKey));
    if (found?.shareKeyActive && found.site.published && found.site.visibility === 'share-link') {
      const site = await siteById(ctx.em, organizationId, siteId);
      if (site) return { site, role: null, viaShareKey: true };
    }
  }
  throw notFound('Site');
}

/** Who reads a published site, and how they came to. */
export interface PublishedReader {
  site: SiteRow;
  /** A member's role; null for a share-key holder or a site visitor. */
  role: Role | null;
  /** The site visitor's grant, when the caller holds a visitor token. */
  visitor?: VisitorGrant;
  /** True for a share-key holder or a site visitor: they see the structure their claims allow. */
  asVisitor: boolean;
}

/**
 * Who may read a site as its readers do (published site, redirect lookup, site search): the token
 * of a visitor of exactly this site in this organization (while it is published), a member with a
 * role, or the holder of an active share key of a published share-link site. 404 for anyone else,
 * visitors of other sites included. Every reader route of the sites group goes through here.
 */
export async function publishedReader(ctx: Ctx, organizationId: string, siteId: string, shareKey?: string): Promise<PublishedReader> {
  const visitor = ctx.caller.visitor;
  if (visitor) {
    if (visitor.organizationId !== organizationId || visitor.siteId !== siteId) throw notFound('Site');
    const site = await siteById(ctx.em, organizationId, siteId);
    if (!site?.published) throw notFound('Site');
    return { site, role: null, visitor, asVisitor: true };
  }
  const found = await siteReader(ctx, organizationId, siteId, shareKey);
  return { site: found.site, role: found.role, asVisitor: found.viaShareKey };
}

/** The site read again (after a write), as `role` sees it. */
export async function freshSite(ctx: Ctx, organizationId: string, siteId: string, role: Role | null) {
  const site = await siteById(ctx.em, organizationId, siteId);
  if (!site) throw notFound('Site');
  return presentSite(site, role, siteUrls(ctx.deps));
}

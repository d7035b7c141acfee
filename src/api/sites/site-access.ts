import { findOrganization } from '../../db/access.ts';
import { noteAuditOrganization } from '../../db/audit.ts';
import { memberSiteAccess } from '../../db/site-permissions.ts';
import { siteById, siteForVisitorById, type SiteRow } from '../../db/sites.ts';
import { atLeast, highest, isRole, type Role } from '../../domain/roles.ts';
import { inScope, requireRole } from '../access.ts';
import type { AppDeps, Ctx, InstallationGrant, VisitorGrant } from '../context.ts';
import { HttpError, notFound } from '../errors.ts';
import { hashShareKey } from './keys.ts';
import { presentSite, type SiteUrlsContext } from './present.ts';

/** Who may read or change a site, and the site as the caller sees it. */

export const siteUrls = (deps: AppDeps): SiteUrlsContext => ({ publicUrl: deps.config.publicUrl, sitesUrl: deps.config.sitesUrl });

/**
 * The caller's effective role on a site: the highest of their organization role and the roles
 * granted on the site to them or a team of theirs (site permissions), read with the membership in
 * one statement. 404 (Organization) unless they are an enabled member within their token's scope.
 */
export async function siteRole(ctx: Ctx, organizationId: string, siteId: string): Promise<Role | null> {
  const grant = ctx.caller.installation;
  if (grant) return installationSiteRole(grant, organizationId, siteId);
  const [organization, access] = await Promise.all([
    findOrganization(ctx.em, organizationId),
    inScope(ctx.caller, organizationId) ? memberSiteAccess(ctx.em, organizationId, siteId, ctx.caller.user.id) : undefined,
  ]);
  if (!organization || !access) throw notFound('Organization');
  noteAuditOrganization(ctx.em, organization.id);
  return highest(isRole(access.role) ? access.role : null, ...access.grants.filter(isRole));
}

/**
 * What a token acting as an installation may do on a site (on the routes that take one): read it,
 * when its installation is enabled on the site (or on all of them) and its integration has
 * `site:metadata:read`, as GitBook's visitor authentication integrations read their site's URL.
 * Any other site is a 404, as it is to a stranger.
 */
function installationSiteRole(grant: InstallationGrant, organizationId: string, siteId: string): Role {
  if (grant.organizationId !== organizationId) throw notFound('Organization');
  if (grant.sites !== 'all' && !grant.sites.includes(siteId)) throw notFound('Site');
  if (!grant.scopes.includes('site:metadata:read')) throw notFound('Site');
  return 'read';
}

/** The site, 404 unless the caller is a member of its organization; 403 below `min` (their role on the site, grants included). */
export async function requireSite(ctx: Ctx, organizationId: string, siteId: string, min: Role = 'read', action = 'read this site') {
  const role = await siteRole(ctx, organizationId, siteId);
  const site = await siteById(ctx.em, organizationId, siteId);
  if (!site) throw notFound('Site');
  requireRole(role, min, action);
  return { site, role };
}

/**
 * GitBook's rule for a site's structure: an editor adds and changes drafts (`edit`); adding or
 * changing anything readers see, or making a draft live, needs `create`. Called after
 * `requireSite(…, 'edit', …)`, once it is known whether the change touches live structure.
 */
export function requireStructureRole(role: Role | null, live: boolean, action: string): void {
  requireRole(role, live ? 'create' : 'edit', live ? action : `${action} (as a draft)`);
}

/**
 * Who may read a site's structure: a member with a role, or anyone holding an active share key
 * of the site. 404 otherwise (also for a share key that is wrong or inactive).
 */
export async function siteReader(ctx: Ctx, organizationId: string, siteId: string, shareKey?: string) {
  const role = await siteRole(ctx, organizationId, siteId).catch((error: unknown) => {
    if (error instanceof HttpError && error.statusCode === 404) return undefined;
    throw error;
  });
  if (role !== undefined && atLeast(role, 'read')) {
    const site = await siteById(ctx.em, organizationId, siteId);
    if (!site) throw notFound('Site');
    return { site, role, viaShareKey: false };
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
 * of a visitor of exactly this site in this organization (while it is published, or a preview's), a member with a
 * role, or the holder of an active share key of a published share-link site. 404 for anyone else,
 * visitors of other sites included. Every reader route of the sites group goes through here.
 */
export async function publishedReader(ctx: Ctx, organizationId: string, siteId: string, shareKey?: string): Promise<PublishedReader> {
  const visitor = ctx.caller.visitor;
  if (visitor) {
    if (visitor.organizationId !== organizationId || visitor.siteId !== siteId) throw notFound('Site');
    const site = await siteById(ctx.em, organizationId, siteId);
    // A preview's token reads its site before it is published.
    if (!site || (!site.published && !visitor.preview)) throw notFound('Site');
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

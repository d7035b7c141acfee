import type { Static } from 'typebox';
import { transaction } from '../../../db/orm.ts';
import {
  deleteSiteGrant,
  siteAccessListing,
  siteTeamGrantListing,
  siteUserGrantListing,
  updateSiteGrant,
  upsertSiteGrant,
  type Principal,
} from '../../../db/site-permissions.ts';
import { teamFacts } from '../../../db/teams.ts';
import { newId } from '../../../domain/ids.ts';
import type { Role } from '../../../domain/roles.ts';
import type { Ctx } from '../../context.ts';
import { badRequest, notFound } from '../../errors.ts';
import { urlsFor } from '../../object-urls.ts';
import { paginate } from '../../pagination.ts';
import type { ListQuery } from '../../schemas.ts';
import { checkPrincipals } from '../../permissions/service.ts';
import { requireSite } from '../site-access.ts';
import { presentSiteAccess, presentSiteTeamGrant, presentSiteUserGrant } from './present.ts';
import type { InviteSiteBody, SiteAccessQuery, UpdateSiteGrantBody } from './schemas.ts';

/**
 * Roles granted on a site to members and teams of its organization (GitBook's site permissions).
 * A grant raises the member's role on that site above their organization role (never lowers it):
 * every site operation reads it with the membership (../site-access.ts). Anyone who can read the
 * site lists its grants; changing them needs the admin role on the site (organization admins, and
 * members granted admin on it).
 */

const MANAGE = 'manage who can access this site';

/** The site, for a caller who must be its admin to change who can access it. */
async function managedSite(ctx: Ctx, organizationId: string, siteId: string) {
  const { site } = await requireSite(ctx, organizationId, siteId, 'admin', MANAGE);
  return { id: site.id, organizationId: site.organization_id };
}

/** Grants a role on the site to members and teams (null removes their grants), all in one transaction. */
export async function inviteToSite(ctx: Ctx, organizationId: string, siteId: string, body: Static<typeof InviteSiteBody>): Promise<void> {
  if (!body.users && !body.teams) throw badRequest('body.users or body.teams is required');
  const site = await managedSite(ctx, organizationId, siteId);
  await checkPrincipals(ctx.em, site.organizationId, 'user', body.users ?? []);
  await checkPrincipals(ctx.em, site.organizationId, 'team', body.teams ?? []);
  await transaction(ctx.em, async (tx) => {
    for (const [principal, ids] of [
      ['user', body.users ?? []],
      ['team', body.teams ?? []],
    ] as const) {
      for (const id of new Set(ids)) {
        if (body.role === null) await deleteSiteGrant(tx, site.id, principal, id);
        else await upsertSiteGrant(tx, newId(), site, principal, id, body.role, new Date());
      }
    }
  });
}

export async function listSiteUserGrants(ctx: Ctx, organizationId: string, siteId: string, query: Static<typeof ListQuery>) {
  const { site } = await requireSite(ctx, organizationId, siteId);
  const urls = urlsFor(ctx.deps.config.publicUrl);
  return paginate(ctx.em, siteUserGrantListing(ctx.em, site.id), query, (rows) => rows.map((r) => presentSiteUserGrant(r, urls)));
}

export async function listSiteTeamGrants(ctx: Ctx, organizationId: string, siteId: string, query: Static<typeof ListQuery>) {
  const { site, role } = await requireSite(ctx, organizationId, siteId);
  return paginate(ctx.em, siteTeamGrantListing(ctx.em, site.id), query, async (rows) => {
    const facts = await teamFacts(
      ctx.em,
      rows.map((r) => r.teamId),
      ctx.caller.user.id,
    );
    return rows.map((r) => presentSiteTeamGrant(r, facts.get(r.teamId), role));
  });
}

/** Everyone who can access the site, with their effective role there and where it comes from. */
export async function listSiteAccess(ctx: Ctx, organizationId: string, siteId: string, query: Static<typeof SiteAccessQuery>) {
  const { site: row } = await requireSite(ctx, organizationId, siteId);
  const site = { id: row.id, organizationId: row.organization_id };
  const urls = urlsFor(ctx.deps.config.publicUrl);
  const listing = siteAccessListing(ctx.em, site, {
    role: query.role,
    search: query.search,
    team: query.team,
    sort: query.sort ?? 'joinedAt',
    order: query.order ?? 'desc',
  });
  return paginate(ctx.em, listing, query, (rows) => rows.map((r) => presentSiteAccess(r, site, urls)));
}

/** Changes the role granted to a user or team on the site (null removes the grant); 404 when there is no grant. */
export async function updateSiteGrantOf(
  ctx: Ctx,
  organizationId: string,
  siteId: string,
  principal: Principal,
  principalId: string,
  body: Static<typeof UpdateSiteGrantBody>,
): Promise<void> {
  const site = await managedSite(ctx, organizationId, siteId);
  const role: Role | null = body.role;
  const changed =
    role === null
      ? await deleteSiteGrant(ctx.em, site.id, principal, principalId)
      : await updateSiteGrant(ctx.em, site.id, principal, principalId, role);
  if (!changed) throw notFound(principal === 'user' ? 'User permission' : 'Team permission');
}

/** Removes the grant of a user or team on the site; true when there was one. */
export async function removeSiteGrant(ctx: Ctx, organizationId: string, siteId: string, principal: Principal, principalId: string) {
  const site = await managedSite(ctx, organizationId, siteId);
  return deleteSiteGrant(ctx.em, site.id, principal, principalId);
}

import type { Static } from 'typebox';
import {
  installationsByIds,
  installedListing,
  integrationListing,
  integrationRow,
  integrationsByNames,
  organizationInstallation,
  organizationInstallationListing,
  siteIntegrationListing,
  type InstalledRow,
} from '../../db/integrations.ts';
import { requireOrganization } from '../access.ts';
import type { Ctx } from '../context.ts';
import { badRequest, notFound } from '../errors.ts';
import { paginate } from '../pagination.ts';
import { requireSite } from '../sites/site-access.ts';
import { presentInstalledTarget } from './present.ts';
import type {
  InstalledIntegrationsQuery,
  ListIntegrationsQuery,
  OrganizationInstallationsQuery,
  SiteIntegrationsQuery,
} from './schemas.ts';
import { loadIntegration, membershipsOf, present, presentInstallations } from './service.ts';

/**
 * What an organization sees of integrations: those available to it, the ones installed in it
 * (on the organization, its spaces and its sites) and their status. Any member reads what is
 * available and installed, and the status; the installations themselves (whose configuration
 * may hold credentials of other services) only its admins.
 */

/** Public integrations and those the organization owns (listOrganizationIntegrations), with the public listing's filters. */
export async function listOrganizationIntegrations(ctx: Ctx, organizationId: string, query: Static<typeof ListIntegrationsQuery>) {
  await requireOrganization(ctx, organizationId);
  const memberships = await membershipsOf(ctx);
  const listing = integrationListing(ctx.em, {
    memberOf: [organizationId],
    search: query.search,
    category: query.category,
    scope: query.scope,
    blockDomain: query.blockDomain?.toLowerCase(),
    blocks: query.blocks,
    contentSources: query.contentSources,
    owner: query.owner,
    target: query.target,
  });
  return paginate(ctx.em, listing, query, (rows) => present(ctx, rows.map(integrationRow), memberships));
}

/** The status of an integration's installation in the organization; 404 when it is not installed there. */
export async function getOrganizationIntegrationStatus(ctx: Ctx, organizationId: string, integrationName: string) {
  await requireOrganization(ctx, organizationId);
  const integration = await loadIntegration(ctx, integrationName, await membershipsOf(ctx));
  const installation = await organizationInstallation(ctx.em, organizationId, integration.name);
  if (!installation) throw notFound('Installation');
  return { status: installation.status as 'active' };
}

/** The organization's installations with their integrations (listOrganizationInstallations): its admins only. */
export async function listOrganizationInstallations(
  ctx: Ctx,
  organizationId: string,
  query: Static<typeof OrganizationInstallationsQuery>,
) {
  await requireOrganization(ctx, organizationId, 'admin', 'see the integration installations of this organization');
  const memberships = await membershipsOf(ctx);
  const listing = organizationInstallationListing(ctx.em, organizationId, query.search);
  return paginate(ctx.em, listing, query, async (rows) => {
    const [installations, integrations] = await Promise.all([
      installationsByIds(
        ctx.em,
        rows.map((r) => r.installationId),
      ),
      integrationsByNames(
        ctx.em,
        rows.map((r) => r.integrationName),
      ),
    ]);
    const presentedInstallations = new Map(
      (await presentInstallations(ctx, installations)).map((presented, i) => [installations[i].id, presented]),
    );
    const presentedIntegrations = new Map(
      (await present(ctx, integrations, memberships)).map((presented, i) => [integrations[i].name, presented]),
    );
    return rows.map((r) => ({
      installation: presentedInstallations.get(r.installationId)!,
      integration: presentedIntegrations.get(r.integrationName)!,
    }));
  });
}

/** Installed integrations with the caller's view of each, in the listing's order. */
async function presentInstalled(ctx: Ctx, rows: InstalledRow[]) {
  const memberships = await membershipsOf(ctx);
  const integrations = await integrationsByNames(ctx.em, [...new Set(rows.map((r) => r.integrationName))]);
  const presented = new Map((await present(ctx, integrations, memberships)).map((p, i) => [integrations[i].name, p]));
  return rows.map((row) => ({
    status: row.status as 'active',
    integration: presented.get(row.integrationName)!,
    target: presentInstalledTarget(row),
  }));
}

/**
 * The integrations installed in the organization and their status (listOrganizationIntegrationsStatus):
 * on the organization by default, or on its spaces or sites (`target`), one of them with `space` or `site`.
 */
export async function listOrganizationIntegrationsStatus(
  ctx: Ctx,
  organizationId: string,
  query: Static<typeof InstalledIntegrationsQuery>,
) {
  const target = query.target ?? 'organization';
  if (query.site !== undefined && target !== 'site') throw badRequest('site: only with target "site"');
  if (query.space !== undefined && target !== 'space') throw badRequest('space: only with target "space"');
  await requireOrganization(ctx, organizationId);
  const listing = installedListing(
    ctx.em,
    organizationId,
    target === 'organization' ? { type: 'organization' } : { type: target, id: target === 'site' ? query.site : query.space },
  );
  return paginate(ctx.em, listing, query, (rows) => presentInstalled(ctx, rows));
}

/** The integrations enabled on a site (listSiteIntegrations): readers of the site. */
export async function listSiteIntegrations(ctx: Ctx, organizationId: string, siteId: string, query: Static<typeof SiteIntegrationsQuery>) {
  const { site } = await requireSite(ctx, organizationId, siteId);
  const memberships = await membershipsOf(ctx);
  return paginate(ctx.em, siteIntegrationListing(ctx.em, site.id, query.search), query, (rows) =>
    present(ctx, rows.map(integrationRow), memberships),
  );
}

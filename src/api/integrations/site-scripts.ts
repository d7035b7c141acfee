import { siteScriptInstallations } from '../../db/integrations.ts';
import type { Ctx } from '../context.ts';
import { urlsFor } from '../object-urls.ts';
import { requireSite } from '../sites/site-access.ts';
import { presentSiteScript } from './present.ts';

/**
 * The scripts integrations inject in a site's pages (GitBook's `SiteIntegrationScript`): one for
 * each active installation enabled on the site whose integration has the scope
 * `site:script:inject`. The published site answers them as its `scripts`; each URL is served by
 * the installation's script (`fetch_published_script`, public-endpoints.ts).
 */
export async function siteScripts(ctx: Ctx, siteId: string) {
  const urls = urlsFor(ctx.deps.config.publicUrl);
  return (await siteScriptInstallations(ctx.em, siteId)).map((row) => presentSiteScript(row, siteId, urls));
}

/** `GET …/sites/{siteId}/integration-scripts` (listSiteIntegrationScripts): readers of the site. */
export async function listSiteIntegrationScripts(ctx: Ctx, organizationId: string, siteId: string) {
  const { site } = await requireSite(ctx, organizationId, siteId);
  return siteScripts(ctx, site.id);
}

import type { Organization } from '../../db/entities.ts';
import type { ContentInstallationRow, ContentKind, InstallationRow, IntegrationRow, InstalledRow } from '../../db/integrations.ts';
import { integrationAccess } from '../../domain/integrations.ts';
import type { Role } from '../../domain/roles.ts';
import { presentOrganization, type OrganizationFacts } from '../orgs/present.ts';
import type { Urls } from '../object-urls.ts';

/** The caller's memberships: organization id → role (null for a guest). */
export type Memberships = ReadonlyMap<string, Role | null>;

/** An organization with what it is shown with beside its row. */
export interface Owner {
  row: Organization;
  facts: OrganizationFacts;
}

/** The owner as GitBook shows it; a caller outside it gets no permission on it. */
function presentOwner(owner: Owner, memberships: Memberships, urls: Urls) {
  const presented = presentOrganization(owner.row, memberships.get(owner.row.id) ?? null, urls, owner.facts);
  if (memberships.has(owner.row.id)) return presented;
  const none = Object.fromEntries(Object.keys(presented.permissions).map((k) => [k, false])) as typeof presented.permissions;
  return { ...presented, permissions: none };
}

/** Secrets and the script are never part of what is shown. */
export function presentIntegration(integration: IntegrationRow, owner: Owner, memberships: Memberships, urls: Urls) {
  const base = urls.integration(integration.name);
  const asset = (name: string) => `${base.assets}${name}?v=${integration.version}`;
  const access = integrationAccess(integration, memberships);
  return {
    object: 'integration' as const,
    name: integration.name,
    version: integration.version,
    title: integration.title,
    description: integration.description,
    ...(integration.summary ? { summary: integration.summary } : {}),
    previewImages: Array.from({ length: integration.previewImageCount }, (_, i) => asset(`preview-${i}`)),
    target: integration.target as 'all',
    verified: integration.verified,
    visibility: integration.visibility as 'public',
    scopes: integration.scopes,
    categories: integration.categories,
    blocks: integration.blocks as never[],
    contentSources: integration.contentSources as never[],
    configurations: integration.configurations,
    externalLinks: integration.externalLinks,
    owner: presentOwner(owner, memberships, urls),
    urls: { ...base, ...(integration.hasIcon ? { icon: asset('icon') } : {}) },
    permissions: { admin: access.admin, install: access.install },
    ...(integration.contentSecurityPolicy != null ? { contentSecurityPolicy: integration.contentSecurityPolicy } : {}),
  };
}

/** An installation, with the number of spaces it manages (integrations/service.ts `managedSpaces`). */
export function presentInstallation(installation: InstallationRow, spaces: number, urls: Urls) {
  return {
    id: installation.id,
    status: installation.status as 'active',
    space_selection: installation.spaceSelection as 'all',
    site_selection: installation.siteSelection as 'all',
    spaces,
    configuration: installation.configuration,
    externalIds: installation.externalIds,
    target: { organization: installation.organizationId },
    createdAt: installation.createdAt.toISOString(),
    updatedAt: installation.updatedAt.toISOString(),
    urls: urls.installation(installation.integrationName, installation.id),
  };
}

/**
 * An installation enabled on a space or site (GitBook's IntegrationSpaceInstallation and
 * IntegrationSiteInstallation): `target` is the space or site object when asked for (`extended`),
 * its ID otherwise.
 */
export function presentContentInstallation<K extends ContentKind, T>(kind: K, row: ContentInstallationRow, target: T, urls: Urls) {
  const installation = urls.installation(row.integrationName, row.installationId);
  const base = {
    integration: row.integrationName,
    installation: row.installationId,
    status: row.status as 'active',
    configuration: row.configuration,
    externalIds: row.externalIds,
    urls: {
      location: `${installation.location}/${kind}s/${row.targetId}`,
      // A site installation's own endpoint carries the site (a visitor authentication callback needs it).
      publicEndpoint: kind === 'site' ? `${installation.location}/sites/${row.targetId}/integration` : installation.publicEndpoint,
      publicContentEndpoint: installation.publicContentEndpoint,
    },
  };
  return { ...base, [kind]: target } as typeof base & Record<K, T>;
}

/** Where an installed integration is installed (GitBook's InstalledIntegrationTarget). */
export function presentInstalledTarget(row: InstalledRow) {
  if (row.targetType === 'organization') return { type: 'organization' as const, organizationId: row.targetId };
  if (row.targetType === 'space') return { type: 'space' as const, spaceId: row.targetId };
  return { type: 'site' as const, siteId: row.targetId };
}

/**
 * A script an integration injects in a site's pages (GitBook's `SiteIntegrationScript`): the URL
 * of its installation's script on that site, whether it may use cookies (`site:script:cookies`),
 * and the integration's content security policy (directives joined into one header value).
 */
export function presentSiteScript(
  row: { integrationName: string; installationId: string; scopes: string[]; contentSecurityPolicy: unknown },
  siteId: string,
  urls: Urls,
) {
  const csp = cspText(row.contentSecurityPolicy);
  return {
    script: urls.siteScript(row.integrationName, row.installationId, siteId),
    cookies: row.scopes.includes('site:script:cookies'),
    ...(csp ? { contentSecurityPolicy: csp } : {}),
  };
}

function cspText(policy: unknown): string | undefined {
  if (typeof policy === 'string') return policy || undefined;
  if (policy && typeof policy === 'object' && !Array.isArray(policy)) {
    const text = Object.entries(policy)
      .filter((entry): entry is [string, string] => typeof entry[1] === 'string')
      .map(([directive, value]) => `${directive} ${value}`)
      .join('; ');
    return text || undefined;
  }
  return undefined;
}

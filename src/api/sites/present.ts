import type { GroupRow, SectionRow, ShareLinkRow, SiteRow, SiteSpaceRow } from '../../db/sites.ts';
import { atLeast, type Role } from '../../domain/roles.ts';
import { siteBaseUrl, siteUrl } from '../../domain/sites/urls.ts';

/** Site objects from rows: pure, everything they need is passed in. */

export interface SiteUrlsContext {
  publicUrl: string;
  sitesUrl: string;
}

/** The published base URL of a site (whether or not it is published). */
export function baseOf(site: Pick<SiteRow, 'id' | 'organization_id' | 'basename' | 'hostname' | 'proxy'>, urls: SiteUrlsContext): string {
  return siteBaseUrl(
    { id: site.id, organizationId: site.organization_id, basename: site.basename, hostname: site.hostname, proxy: site.proxy },
    urls.sitesUrl,
  );
}

export function presentSite(site: SiteRow, role: Role | null, urls: SiteUrlsContext) {
  const app = `${urls.publicUrl}/o/${site.organization_id}/sites/${site.id}`;
  return {
    object: 'site' as const,
    id: site.id,
    type: site.type,
    appliedType: site.type,
    title: site.title,
    ...(site.hostname ? { hostname: site.hostname } : {}),
    ...(site.basename ? { basename: site.basename } : {}),
    ...(site.proxy
      ? {
          proxy: {
            origin: site.proxy,
            target: siteBaseUrl(
              { id: site.id, organizationId: site.organization_id, basename: site.basename, hostname: null, proxy: null },
              urls.sitesUrl,
            ),
          },
        }
      : {}),
    visibility: site.visibility,
    defaultLevel: null,
    permissions: {
      view: atLeast(role, 'read'),
      access: atLeast(role, 'read'),
      edit: atLeast(role, 'edit'),
      create: atLeast(role, 'create'),
      admin: atLeast(role, 'admin'),
      installIntegration: atLeast(role, 'admin'),
      viewAdaptiveSchema: atLeast(role, 'read'),
      editAdaptiveSchema: atLeast(role, 'admin'),
    },
    published: site.published,
    siteSpaces: Number(site.site_spaces),
    createdAt: new Date(site.created_at).toISOString(),
    adaptiveContent: { enabled: site.adaptive_content },
    features: [],
    urls: {
      location: `${urls.publicUrl}/v1/orgs/${site.organization_id}/sites/${site.id}`,
      app,
      preview: `${app}/preview`,
      ...(site.published ? { published: `${baseOf(site, urls)}/` } : {}),
    },
  };
}

/** Published URLs of a site's parts, or nothing while the site is unpublished. */
export function publishedUrl(site: SiteRow, urls: SiteUrlsContext, parts: (string | null | undefined)[]) {
  return site.published ? { published: siteUrl(baseOf(site, urls), parts) } : {};
}

export function presentSiteSpace(
  row: SiteSpaceRow,
  space: unknown,
  options: { isDefault: boolean; sectionPath: string | null; site: SiteRow; urls: SiteUrlsContext },
) {
  return {
    object: 'site-space' as const,
    id: row.id,
    path: row.path,
    ...(row.section_id ? { section: row.section_id } : {}),
    space,
    title: row.title ?? row.space_title,
    default: options.isDefault,
    draft: false,
    hidden: row.hidden,
    ...(row.condition ? { condition: row.condition } : {}),
    hasAdvancedCustomizationFeature: false,
    urls: publishedUrl(options.site, options.urls, [options.sectionPath, row.path]),
  };
}

export function presentSection(
  row: SectionRow,
  siteSpaces: unknown[],
  options: { isDefault: boolean; site: SiteRow; urls: SiteUrlsContext },
) {
  return {
    object: 'site-section' as const,
    id: row.id,
    title: row.title,
    ...(row.description ? { description: row.description } : {}),
    default: options.isDefault,
    draft: false,
    path: row.path,
    ...(row.condition ? { condition: row.condition } : {}),
    ...(row.group_id ? { sectionGroup: row.group_id } : {}),
    ...(row.icon ? { icon: row.icon } : {}),
    siteSpaces,
    urls: publishedUrl(options.site, options.urls, [row.path]),
  };
}

export function presentGroup(row: GroupRow, sections: unknown[]) {
  return {
    object: 'site-section-group' as const,
    id: row.id,
    title: row.title,
    ...(row.icon ? { icon: row.icon } : {}),
    draft: false,
    sections,
    children: sections,
  };
}

export function presentShareLink(row: ShareLinkRow, site: SiteRow, urls: SiteUrlsContext, key?: string) {
  return {
    object: 'share-link' as const,
    id: row.id,
    createdAt: new Date(row.created_at).toISOString(),
    name: row.name,
    active: row.active,
    ...(key ? { key } : {}),
    urls: key ? { published: siteUrl(baseOf(site, urls), [], { shareKey: key }) } : {},
  };
}

/** The schema GitBook starts a site with: no claims. */
export const EMPTY_ADAPTIVE_SCHEMA = {
  type: 'object',
  properties: {
    unsigned: { type: 'object', description: 'Unsigned claims of the site visitor.', properties: {}, additionalProperties: false },
  },
  additionalProperties: false,
};

export function presentAdaptiveSchema(site: SiteRow) {
  return {
    object: 'site-adaptive-schema' as const,
    jsonSchema: site.adaptive_schema ?? EMPTY_ADAPTIVE_SCHEMA,
    updatedAt: new Date(site.adaptive_schema_updated_at ?? site.created_at).toISOString(),
  };
}

/** The visitor authentication settings, with the signing key: only ever answered to admins. */
export function presentPublishingAuth(site: SiteRow, signingKey: string) {
  return {
    object: 'publishing-auth' as const,
    backend: 'custom' as const,
    privateKey: signingKey,
    ...(site.fallback_url ? { fallbackURL: site.fallback_url } : {}),
    ...(site.logout_url ? { logoutURL: site.logout_url } : {}),
  };
}

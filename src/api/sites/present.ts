import type { SiteRow } from '../../db/sites.ts';
import { atLeast, type Role } from '../../domain/roles.ts';
import { EMPTY_ADAPTIVE_SCHEMA } from '../../domain/sites/adaptive.ts';
import { effectiveCustomization, type JsonObject } from '../../domain/sites/customization.ts';
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

/** The customization of a site with the defaults filled in. */
export function presentCustomization(site: SiteRow) {
  return {
    ...effectiveCustomization(site.customization as JsonObject, site.title),
    ...(site.customization_updated_at ? { updatedAt: new Date(site.customization_updated_at).toISOString() } : {}),
  };
}

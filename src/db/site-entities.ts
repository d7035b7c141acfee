import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** Sites: their sections, section groups, site spaces and share links. */

export const Site = defineEntity({
  name: 'Site',
  tableName: 'site',
  properties: {
    id: p.string().primary(),
    organizationId: p.string(),
    type: p.string().defaultRaw("'basic'::text"),
    title: p.string(),
    hostname: p.string().nullable(),
    basename: p.string().nullable(),
    proxy: p.string().nullable(),
    visibility: p.string(),
    published: p.boolean().defaultRaw('false'),
    adaptiveContent: p.boolean().defaultRaw('false'),
    adaptiveSchema: p.json<Record<string, unknown>>().nullable(),
    adaptiveSchemaUpdatedAt: p.datetime().nullable(),
    customization: p.json<Record<string, unknown>>().defaultRaw("'{}'::jsonb"),
    customizationUpdatedAt: p.datetime().nullable(),
    authKeySealed: p.string(),
    fallbackUrl: p.string().nullable(),
    logoutUrl: p.string().nullable(),
    createdAt: p.datetime().defaultRaw('now()'),
    updatedAt: p.datetime().defaultRaw('now()'),
    structureVersion: p.bigint('string').defaultRaw('0'),
  },
});
export type Site = InferEntity<typeof Site>;

export const SiteSection = defineEntity({
  name: 'SiteSection',
  tableName: 'site_section',
  properties: {
    id: p.string().primary(),
    siteId: p.string(),
    groupId: p.string().nullable(),
    title: p.string(),
    description: p.string().nullable(),
    path: p.string(),
    condition: p.string().nullable(),
    icon: p.string().nullable(),
    isDefault: p.boolean().defaultRaw('false'),
    position: p.string(),
    createdAt: p.datetime().defaultRaw('now()'),
    draft: p.boolean().defaultRaw('false'),
  },
});
export type SiteSection = InferEntity<typeof SiteSection>;

export const SiteSectionGroup = defineEntity({
  name: 'SiteSectionGroup',
  tableName: 'site_section_group',
  properties: {
    id: p.string().primary(),
    siteId: p.string(),
    title: p.string(),
    icon: p.string().nullable(),
    position: p.string(),
    createdAt: p.datetime().defaultRaw('now()'),
    draft: p.boolean().defaultRaw('false'),
  },
});
export type SiteSectionGroup = InferEntity<typeof SiteSectionGroup>;

export const SiteSpace = defineEntity({
  name: 'SiteSpace',
  tableName: 'site_space',
  properties: {
    id: p.string().primary(),
    siteId: p.string(),
    sectionId: p.string().nullable(),
    spaceId: p.string(),
    path: p.string(),
    title: p.string().nullable(),
    condition: p.string().nullable(),
    hidden: p.boolean().defaultRaw('false'),
    isDefault: p.boolean().defaultRaw('false'),
    position: p.string(),
    createdAt: p.datetime().defaultRaw('now()'),
    draft: p.boolean().defaultRaw('false'),
  },
});
export type SiteSpace = InferEntity<typeof SiteSpace>;

export const SiteShareLink = defineEntity({
  name: 'SiteShareLink',
  tableName: 'site_share_link',
  properties: {
    id: p.string().primary(),
    siteId: p.string(),
    name: p.string(),
    keyHash: p.string(),
    active: p.boolean().defaultRaw('true'),
    createdAt: p.datetime().defaultRaw('now()'),
  },
});
export type SiteShareLink = InferEntity<typeof SiteShareLink>;

/** A credential that only resolves the URLs of its organization's published sites (Migration0018SiteTokens). */
export const SiteLookupToken = defineEntity({
  name: 'SiteLookupToken',
  tableName: 'site_lookup_token',
  properties: {
    id: p.string().primary(),
    organizationId: p.string(),
    label: p.string(),
    tokenHash: p.string(),
    createdBy: p.string().nullable(),
    createdAt: p.datetime().defaultRaw('now()'),
    lastUsedAt: p.datetime().nullable(),
  },
});
export type SiteLookupToken = InferEntity<typeof SiteLookupToken>;

export const SiteRedirect = defineEntity({
  name: 'SiteRedirect',
  tableName: 'site_redirect',
  properties: {
    id: p.string().primary(),
    siteId: p.string(),
    source: p.string(),
    prefix: p.string().nullable(),
    draft: p.boolean().defaultRaw('false'),
    captureWildcard: p.boolean().defaultRaw('false'),
    permanent: p.boolean().defaultRaw('false'),
    destination: p.json<Record<string, unknown>>(),
    createdAt: p.datetime().defaultRaw('now()'),
    updatedAt: p.datetime().nullable(),
  },
});
export type SiteRedirect = InferEntity<typeof SiteRedirect>;

export const entities = [Site, SiteSection, SiteSectionGroup, SiteSpace, SiteShareLink, SiteLookupToken, SiteRedirect];

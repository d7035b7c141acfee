import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/**
 * Roles granted on sites and the checks of their custom hostnames (Migration0035SitePermissions);
 * read and written in src/db/site-permissions.ts and src/db/custom-hostnames.ts.
 */

/** A role granted on one site to one member (`userId`) or one team (`teamId`) of its organization. */
export const SitePermission = defineEntity({
  name: 'SitePermission',
  tableName: 'site_permission',
  properties: {
    id: p.string().primary(),
    organizationId: p.string(),
    siteId: p.string(),
    userId: p.string().nullable(),
    teamId: p.string().nullable(),
    role: p.string(),
    createdAt: p.datetime().defaultRaw('now()'),
  },
});
export type SitePermission = InferEntity<typeof SitePermission>;

/** The last DNS check of a site's custom hostname: what was checked, what was found, and when. */
export const CustomHostnameCheck = defineEntity({
  name: 'CustomHostnameCheck',
  tableName: 'custom_hostname_check',
  properties: {
    siteId: p.string().primary(),
    hostname: p.string(),
    status: p.string(),
    active: p.boolean(),
    checkedAt: p.datetime(),
  },
});
export type CustomHostnameCheck = InferEntity<typeof CustomHostnameCheck>;

export const entities = [SitePermission, CustomHostnameCheck];

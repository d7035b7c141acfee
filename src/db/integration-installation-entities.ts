import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/**
 * Installations enabled on spaces and sites, and the tokens acting as installations
 * (Migration0036IntegrationInstallations); read and written in src/db/integrations.ts.
 */

const contentInstallation = {
  installationId: p.string().primary(),
  integrationName: p.string(),
  organizationId: p.string(),
  status: p.string(),
  configuration: p.json<Record<string, unknown>>(),
  externalIds: p.array().$type<string[]>(),
  createdAt: p.datetime(),
  updatedAt: p.datetime(),
};

/** An organization's installation enabled on one of its spaces, with the configuration there. */
export const IntegrationSpaceInstallation = defineEntity({
  name: 'IntegrationSpaceInstallation',
  tableName: 'integration_space_installation',
  properties: { ...contentInstallation, spaceId: p.string().primary() },
});
export type IntegrationSpaceInstallation = InferEntity<typeof IntegrationSpaceInstallation>;

/** An organization's installation enabled on one of its sites, with the configuration there. */
export const IntegrationSiteInstallation = defineEntity({
  name: 'IntegrationSiteInstallation',
  tableName: 'integration_site_installation',
  properties: { ...contentInstallation, siteId: p.string().primary() },
});
export type IntegrationSiteInstallation = InferEntity<typeof IntegrationSiteInstallation>;

/** A temporary API token acting as an installation; only the SHA-256 hash of its value is kept. */
export const IntegrationInstallationToken = defineEntity({
  name: 'IntegrationInstallationToken',
  tableName: 'integration_installation_token',
  properties: {
    id: p.string().primary(),
    installationId: p.string(),
    tokenHash: p.string(),
    createdBy: p.string().nullable(),
    createdAt: p.datetime(),
    expiresAt: p.datetime(),
  },
});
export type IntegrationInstallationToken = InferEntity<typeof IntegrationInstallationToken>;

export const entities = [IntegrationSpaceInstallation, IntegrationSiteInstallation, IntegrationInstallationToken];

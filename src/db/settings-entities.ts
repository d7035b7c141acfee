import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/**
 * Organization settings: custom fields and their space values, translation settings, integrations
 * and their installations. Schema: migrations/Migration0004OrgSettings.ts.
 */

export const CustomField = defineEntity({
  name: 'CustomField',
  tableName: 'custom_field',
  properties: {
    id: p.string().primary(),
    organizationId: p.string(),
    name: p.string(),
    type: p.string(),
    title: p.string(),
    description: p.string().nullable(),
    placeholder: p.string().nullable(),
    options: p.array().$type<string[]>().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type CustomField = InferEntity<typeof CustomField>;

export const SpaceCustomFieldValue = defineEntity({
  name: 'SpaceCustomFieldValue',
  tableName: 'space_custom_field_value',
  properties: {
    spaceId: p.string().primary(),
    customFieldId: p.string().primary(),
    value: p.json<unknown>(),
    updatedAt: p.datetime(),
  },
});
export type SpaceCustomFieldValue = InferEntity<typeof SpaceCustomFieldValue>;

export const TranslationSettings = defineEntity({
  name: 'TranslationSettings',
  tableName: 'translation_settings',
  properties: {
    id: p.string().primary(),
    organizationId: p.string(),
    title: p.string(),
    languages: p.array().$type<string[]>(),
    sourceSpaceId: p.string().nullable(),
    sourceLanguage: p.string().nullable(),
    language: p.string().nullable(),
    instructions: p.json<Record<string, unknown>>().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type TranslationSettings = InferEntity<typeof TranslationSettings>;

export const Integration = defineEntity({
  name: 'Integration',
  tableName: 'integration',
  properties: {
    name: p.string().primary(),
    ownerId: p.string(),
    version: p.integer(),
    title: p.string(),
    description: p.string(),
    summary: p.string().nullable(),
    visibility: p.string(),
    target: p.string(),
    runtime: p.string(),
    verified: p.boolean(),
    scopes: p.array().$type<string[]>(),
    categories: p.array().$type<string[]>(),
    blocks: p.json<Record<string, unknown>[]>(),
    contentSources: p.json<Record<string, unknown>[]>(),
    externalLinks: p.json<{ url: string; label: string }[]>(),
    configurations: p.json<Record<string, unknown>>(),
    contentSecurityPolicy: p.json<string | Record<string, string>>().nullable(),
    blockDomains: p.array().$type<string[]>(),
    hasBlocks: p.boolean(),
    hasContentSources: p.boolean(),
    hasIcon: p.boolean(),
    previewImageCount: p.integer(),
    /** Never presented: it runs in workerd (src/lib/integration-sandbox.ts). */
    script: p.string().lazy(),
    /** AES-256-GCM sealed JSON map (src/lib/secrets.ts); never presented, never logged. */
    secretsSealed: p.string().nullable().lazy(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
    /** Development mode (`gitbook dev`): where its events go instead of its script; null when off. Never presented. */
    devTunnelUrl: p.string().nullable(),
    /** In development mode: every organization's events go to the tunnel, not only the owner's. */
    devAll: p.boolean(),
  },
});
export type Integration = InferEntity<typeof Integration>;

export const IntegrationAsset = defineEntity({
  name: 'IntegrationAsset',
  tableName: 'integration_asset',
  properties: {
    integrationName: p.string().primary(),
    asset: p.string().primary(),
    contentType: p.string(),
    data: p.blob(),
  },
});
export type IntegrationAsset = InferEntity<typeof IntegrationAsset>;

export const IntegrationInstallation = defineEntity({
  name: 'IntegrationInstallation',
  tableName: 'integration_installation',
  properties: {
    id: p.string().primary(),
    integrationName: p.string(),
    organizationId: p.string(),
    status: p.string(),
    spaceSelection: p.string(),
    siteSelection: p.string(),
    configuration: p.json<Record<string, unknown>>(),
    externalIds: p.array().$type<string[]>(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type IntegrationInstallation = InferEntity<typeof IntegrationInstallation>;

export const entities = [CustomField, SpaceCustomFieldValue, TranslationSettings, Integration, IntegrationAsset, IntegrationInstallation];

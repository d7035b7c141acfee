import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** SAML single sign-on (schema: migrations/Migration0006Saml.ts). */

export const SamlProvider = defineEntity({
  name: 'SamlProvider',
  tableName: 'saml_provider',
  properties: {
    id: p.string().primary(),
    organizationId: p.string(),
    label: p.string(),
    ssoUrl: p.string().nullable(),
    entityId: p.string().nullable(),
    certificate: p.text().nullable(),
    defaultTeamId: p.string().nullable(),
    defaultRole: p.string().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type SamlProvider = InferEntity<typeof SamlProvider>;

/** A login request this service sent, until its response arrives. */
export const SamlRequest = defineEntity({
  name: 'SamlRequest',
  tableName: 'saml_request',
  properties: {
    providerId: p.string().primary(),
    id: p.string().primary(),
    createdAt: p.datetime(),
  },
});
export type SamlRequest = InferEntity<typeof SamlRequest>;

/** An assertion already used (replay protection), kept until it expires. */
export const SamlAssertion = defineEntity({
  name: 'SamlAssertion',
  tableName: 'saml_assertion',
  properties: {
    providerId: p.string().primary(),
    id: p.string().primary(),
    notOnOrAfter: p.datetime(),
    usedAt: p.datetime().defaultRaw('now()'),
  },
});
export type SamlAssertion = InferEntity<typeof SamlAssertion>;

export const samlEntities = [SamlProvider, SamlRequest, SamlAssertion];

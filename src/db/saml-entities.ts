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

/** Login requests (saml_request) and used assertions (saml_assertion) are read and written with SQL in src/db/saml.ts. */
export const samlEntities = [SamlProvider];

import type { generateServiceProviderMetadata } from '@node-saml/node-saml';
import type { SamlProviderRow } from '../../db/saml.ts';
import type { Urls } from '../object-urls.ts';

type Generate = typeof generateServiceProviderMetadata;

/**
 * This service provider's SAML 2.0 EntityDescriptor for a provider (its URL is the SP entity ID),
 * written by the SAML library's `generateServiceProviderMetadata` (given: the library loads on first use).
 */
export function presentMetadata(provider: SamlProviderRow, urls: Urls, generateServiceProviderMetadata: Generate): string {
  const service = urls.samlService(provider.id);
  return generateServiceProviderMetadata({ issuer: service.entityID, callbackUrl: service.acsURL, wantAssertionsSigned: false });
}

/** A sign-in: the new token, who and where, and the RelayState the identity provider sent back. */
export function presentLogin(login: { token: string; userId: string; organizationId: string }, relayState: string | undefined) {
  return { ...login, ...(relayState ? { relayState } : {}) };
}

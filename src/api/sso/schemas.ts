import { Type } from 'typebox';
import { Id } from '../schemas.ts';

/** The service-provider side of SAML sign-in (outside /v1, no bearer token). */

export const SsoParams = Type.Object({ samlProviderId: Id });
export const StartQuery = Type.Object({
  RelayState: Type.Optional(Type.String({ maxLength: 1024, description: 'Opaque value the identity provider sends back to the ACS URL' })),
});
export const AcsBody = Type.Object({
  SAMLResponse: Type.String({ minLength: 1, maxLength: 5_000_000, description: 'Base64-encoded SAML Response (HTTP-POST binding)' }),
  RelayState: Type.Optional(Type.String({ maxLength: 1024 })),
});
export const SsoLoginResult = Type.Object({
  token: Type.String({ description: 'A new API token of the signed-in user: send it as `Authorization: Bearer <token>`' }),
  userId: Type.String(),
  organizationId: Type.String(),
  relayState: Type.Optional(Type.String({ description: 'The RelayState the identity provider sent back, if any' })),
});

/** This service provider's SAML metadata: XML, not JSON. */
export const Metadata = {
  description: 'SAML 2.0 EntityDescriptor',
  content: { 'application/samlmetadata+xml': { schema: { type: 'string' } } },
} as const;
export const Redirect = Type.Null({ description: 'Redirect to the identity provider' });

import type { Static } from 'typebox';
import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { generateServiceProviderMetadata } from '@node-saml/node-saml';
import { SamlProvider } from '../../db/saml-entities.ts';
import { notFound } from '../errors.ts';
import { errors } from '../schemas.ts';
import { urlsFor } from '../urls.ts';
import { AcsBody, SsoLoginResult, SsoParams, StartQuery } from './schemas.ts';
import { consumeResponse, startUrl } from './service.ts';

/**
 * The service-provider side of SAML sign-in, outside /v1 and without a bearer token (the identity
 * provider's signature is the credential):
 * - GET  /sso/saml/{id}        this service provider's metadata (its URL is also the SP entity ID)
 * - GET  /sso/saml/{id}/start  redirects to the identity provider with an AuthnRequest
 * - POST /sso/saml/{id}/acs    receives the signed SAML Response and answers with an API token
 */
export async function ssoRoutes(app: FastifyInstance) {
  const urls = urlsFor(app.deps.config.publicUrl);
  const tags = ['saml'];
  const security: { [name: string]: string[] }[] = [];

  // Identity providers post the response as an HTML form (HTTP-POST binding).
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });

  app.get('/sso/saml/:samlProviderId', {
    schema: {
      tags, security, summary: 'SAML service provider metadata (XML) of this provider; the URL is the service provider entity ID', params: SsoParams,
      response: { 200: Type.String({ description: 'SAML 2.0 EntityDescriptor' }), ...errors(404) },
    },
  }, async (request, reply) => {
    const { samlProviderId } = request.params as Static<typeof SsoParams>;
    const provider = await request.em.findOne(SamlProvider, { id: samlProviderId });
    if (!provider) throw notFound('SAML provider');
    const service = urls.samlService(provider.id);
    const xml = generateServiceProviderMetadata({ issuer: service.entityID, callbackUrl: service.acsURL, wantAssertionsSigned: false });
    return reply.type('application/samlmetadata+xml').send(xml);
  });

  app.get('/sso/saml/:samlProviderId/start', {
    schema: {
      tags, security, summary: 'Start a SAML sign-in: 302 to the identity provider with a SAMLRequest (HTTP-Redirect binding)',
      params: SsoParams, querystring: StartQuery, response: { 302: Type.Null({ description: 'Redirect to the identity provider' }), ...errors(404, 409) },
    },
  }, async (request, reply) => {
    const { samlProviderId } = request.params as Static<typeof SsoParams>;
    const { RelayState } = request.query as Static<typeof StartQuery>;
    const location = await startUrl(request.em, samlProviderId, urls, RelayState);
    return reply.header('cache-control', 'no-store').redirect(location, 302);
  });

  app.post('/sso/saml/:samlProviderId/acs', {
    schema: {
      tags, security,
      summary: 'Assertion Consumer Service: verifies the signed SAML Response, signs the person in and answers with a new API token',
      params: SsoParams, body: AcsBody, response: { 200: SsoLoginResult, ...errors(403, 404, 409) },
    },
  }, async (request, reply) => {
    const { samlProviderId } = request.params as Static<typeof SsoParams>;
    const body = request.body as Static<typeof AcsBody>;
    const login = await consumeResponse(request.em, samlProviderId, body.SAMLResponse, urls);
    reply.header('cache-control', 'no-store');
    return { ...login, ...(body.RelayState ? { relayState: body.RelayState } : {}) };
  });
}

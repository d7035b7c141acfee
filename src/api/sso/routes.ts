import type { FastifyRequest } from 'fastify';
import type { RoutePlugin } from '../context.ts';
import { errors } from '../schemas.ts';
import { AcsBody, Metadata, Redirect, SsoLoginResult, SsoParams, StartQuery } from './schemas.ts';
import { serviceMetadata, signIn, startUrl, type SsoCtx } from './service.ts';

/** What a sign-in works with: no caller here, the identity provider's signature is the credential. */
const ssoCtx = (request: FastifyRequest): SsoCtx => ({ em: request.em, deps: request.server.deps });

/**
 * The service-provider side of SAML sign-in, outside /v1 and without a bearer token: HTTP only,
 * the rules are in ./service.ts.
 * - GET  /sso/saml/{id}        this service provider's metadata (its URL is also the SP entity ID)
 * - GET  /sso/saml/{id}/start  redirects to the identity provider with an AuthnRequest
 * - POST /sso/saml/{id}/acs    receives the signed SAML Response and answers with an API token
 */
export const ssoRoutes: RoutePlugin = async (app) => {
  const tags = ['saml'];
  const security: { [name: string]: string[] }[] = [];

  // Identity providers post the response as an HTML form (HTTP-POST binding); only these routes accept forms.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });

  app.get(
    '/sso/saml/:samlProviderId',
    {
      config: { public: true },
      schema: {
        tags,
        security,
        summary: 'SAML service provider metadata (XML) of this provider; the URL is the service provider entity ID',
        params: SsoParams,
        response: { 200: Metadata, ...errors(404) },
      },
    },
    async (request, reply) =>
      reply.type('application/samlmetadata+xml').send(await serviceMetadata(ssoCtx(request), request.params.samlProviderId)),
  );

  app.get(
    '/sso/saml/:samlProviderId/start',
    {
      config: { public: true },
      schema: {
        tags,
        security,
        summary: 'Start a SAML sign-in: 302 to the identity provider with a SAMLRequest (HTTP-Redirect binding)',
        params: SsoParams,
        querystring: StartQuery,
        response: { 302: Redirect, ...errors(404, 409) },
      },
    },
    async (request, reply) => {
      const location = await startUrl(ssoCtx(request), request.params.samlProviderId, request.query.RelayState);
      return reply.header('cache-control', 'no-store').redirect(location, 302);
    },
  );

  app.post(
    '/sso/saml/:samlProviderId/acs',
    {
      config: { public: true },
      schema: {
        tags,
        security,
        summary: 'Assertion Consumer Service: verifies the signed SAML Response, signs the person in and answers with a new API token',
        params: SsoParams,
        body: AcsBody,
        response: { 200: SsoLoginResult, ...errors(403, 404, 409) },
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return signIn(ssoCtx(request), request.params.samlProviderId, request.body);
    },
  );
};

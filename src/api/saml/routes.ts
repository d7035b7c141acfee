import { ctxOf, type RoutePlugin } from '../context.ts';
import { errors, ListQuery, NoContent } from '../schemas.ts';
import {
  CreateSamlProviderBody,
  OrgParams,
  ProviderParams,
  SamlProviderList,
  SamlProviderSchema,
  SsoLoginList,
  UpdateSamlProviderBody,
} from './schemas.ts';
import { createProvider, deleteProvider, getProvider, listProviders, listSsoLogins, updateProvider } from './service.ts';

/** SAML identity providers of an organization and its sign-in choices: HTTP only. The rules are in ./service.ts. */
export const samlRoutes: RoutePlugin = async (app) => {
  const tags = ['saml'];

  app.get(
    '/v1/orgs/:organizationId/saml',
    {
      schema: {
        tags,
        summary: 'List the SAML providers of an organization (admins)',
        params: OrgParams,
        querystring: ListQuery,
        response: { 200: SamlProviderList, ...errors(403, 404) },
      },
    },
    async (request) => listProviders(ctxOf(request), request.params.organizationId, request.query),
  );

  app.post(
    '/v1/orgs/:organizationId/saml',
    {
      schema: {
        tags,
        summary: 'Add a SAML identity provider',
        params: OrgParams,
        body: CreateSamlProviderBody,
        response: { 201: SamlProviderSchema, ...errors(403, 404) },
      },
    },
    async (request, reply) => {
      const provider = await createProvider(ctxOf(request), request.params.organizationId, request.body);
      return reply.status(201).header('location', provider.urls.location).send(provider);
    },
  );

  app.get(
    '/v1/orgs/:organizationId/saml/:samlProviderId',
    {
      schema: { tags, summary: 'Get a SAML provider', params: ProviderParams, response: { 200: SamlProviderSchema, ...errors(403, 404) } },
    },
    async (request) => getProvider(ctxOf(request), request.params),
  );

  app.patch(
    '/v1/orgs/:organizationId/saml/:samlProviderId',
    {
      schema: {
        tags,
        summary: 'Update a SAML provider',
        params: ProviderParams,
        body: UpdateSamlProviderBody,
        response: { 200: SamlProviderSchema, ...errors(403, 404) },
      },
    },
    async (request) => updateProvider(ctxOf(request), request.params, request.body),
  );

  app.delete(
    '/v1/orgs/:organizationId/saml/:samlProviderId',
    {
      schema: {
        tags,
        summary: 'Remove a SAML provider; members who joined through it stay members',
        params: ProviderParams,
        response: { 204: NoContent, ...errors(403, 404) },
      },
    },
    async (request, reply) => {
      await deleteProvider(ctxOf(request), request.params);
      return reply.status(204).send();
    },
  );

  app.get(
    '/v1/orgs/:organizationId/sso',
    {
      schema: {
        tags,
        summary: 'How members can sign in to this organization with single sign-on (active providers)',
        params: OrgParams,
        response: { 200: SsoLoginList, ...errors(404) },
      },
    },
    async (request) => listSsoLogins(ctxOf(request), request.params.organizationId),
  );
};

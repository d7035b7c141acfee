import { ctxOf, type RoutePlugin } from '../context.ts';
import { errors, NoContent } from '../schemas.ts';
import {
  AssetBytes,
  AssetParams,
  InstallationList,
  InstallationParams,
  InstallationSchema,
  InstallBody,
  IntegrationList,
  IntegrationSchema,
  ListInstallationsQuery,
  ListIntegrationsQuery,
  NameParams,
  PublishBody,
  UpdateInstallationBody,
} from './schemas.ts';
import {
  getAsset,
  getInstallation,
  getIntegration,
  install,
  listInstallations,
  listIntegrations,
  publishIntegration,
  uninstall,
  unpublishIntegration,
  updateInstallation,
} from './service.ts';

/** Integrations and their installations: HTTP only. The rules are in ./service.ts. */
export const integrationRoutes: RoutePlugin = async (app) => {
  const tags = ['integrations'];

  app.get(
    '/v1/integrations',
    {
      schema: {
        tags,
        summary: 'List the integrations the caller can see',
        querystring: ListIntegrationsQuery,
        response: { 200: IntegrationList, ...errors() },
      },
    },
    async (request) => listIntegrations(ctxOf(request), request.query),
  );

  app.get(
    '/v1/integrations/:integrationName',
    {
      schema: { tags, summary: 'Get an integration', params: NameParams, response: { 200: IntegrationSchema, ...errors(404) } },
    },
    async (request) => getIntegration(ctxOf(request), request.params.integrationName),
  );

  app.post(
    '/v1/integrations/:integrationName',
    {
      schema: {
        tags,
        summary: 'Publish an integration (creates it, or publishes a new version)',
        params: NameParams,
        body: PublishBody,
        response: { 200: IntegrationSchema, ...errors(403, 404, 409) },
      },
    },
    async (request) => publishIntegration(ctxOf(request), request.params.integrationName, request.body),
  );

  app.delete(
    '/v1/integrations/:integrationName',
    {
      schema: {
        tags,
        summary: 'Unpublish an integration; its installations go with it',
        params: NameParams,
        response: { 204: NoContent, ...errors(403, 404) },
      },
    },
    async (request, reply) => {
      await unpublishIntegration(ctxOf(request), request.params.integrationName);
      return reply.status(204).send();
    },
  );

  app.get(
    '/v1/integrations/:integrationName/assets/:asset',
    {
      schema: {
        tags,
        summary: 'Get the icon or a preview image of an integration',
        params: AssetParams,
        response: { 200: AssetBytes, ...errors(404) },
      },
    },
    async (request, reply) => {
      const image = await getAsset(ctxOf(request), request.params.integrationName, request.params.asset);
      return (
        reply
          .header('content-type', image.contentType)
          .header('cache-control', 'private, max-age=300')
          .header('x-content-type-options', 'nosniff')
          // SVG may carry scripts: served inert.
          .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; sandbox")
          .send(image.data)
      );
    },
  );

  app.get(
    '/v1/integrations/:integrationName/installations',
    {
      schema: {
        tags,
        summary: 'List installations: all of them for admins of the owner, otherwise those in organizations the caller administers',
        params: NameParams,
        querystring: ListInstallationsQuery,
        response: { 200: InstallationList, ...errors(404) },
      },
    },
    async (request) => listInstallations(ctxOf(request), request.params.integrationName, request.query),
  );

  app.post(
    '/v1/integrations/:integrationName/installations',
    {
      schema: {
        tags,
        summary: 'Install an integration on an organization',
        params: NameParams,
        body: InstallBody,
        response: { 201: InstallationSchema, ...errors(403, 404, 409) },
      },
    },
    async (request, reply) => {
      const installation = await install(ctxOf(request), request.params.integrationName, request.body);
      return reply.status(201).header('location', installation.urls.location).send(installation);
    },
  );

  app.get(
    '/v1/integrations/:integrationName/installations/:installationId',
    {
      schema: {
        tags,
        summary: 'Get an installation',
        params: InstallationParams,
        response: { 200: InstallationSchema, ...errors(403, 404) },
      },
    },
    async (request) => getInstallation(ctxOf(request), request.params),
  );

  app.patch(
    '/v1/integrations/:integrationName/installations/:installationId',
    {
      schema: {
        tags,
        summary: 'Update the configuration or external IDs of an installation',
        params: InstallationParams,
        body: UpdateInstallationBody,
        response: { 200: InstallationSchema, ...errors(403, 404) },
      },
    },
    async (request) => updateInstallation(ctxOf(request), request.params, request.body),
  );

  app.delete(
    '/v1/integrations/:integrationName/installations/:installationId',
    {
      schema: {
        tags,
        summary: 'Uninstall an integration from an organization',
        params: InstallationParams,
        response: { 205: NoContent, ...errors(403, 404) },
      },
    },
    async (request, reply) => {
      await uninstall(ctxOf(request), request.params);
      return reply.status(205).send();
    },
  );
};

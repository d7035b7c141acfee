import { Type } from 'typebox';
import type { FastifyReply } from 'fastify';
import { ctxOf, type RoutePlugin } from '../context.ts';
import { errors, NoContent } from '../schemas.ts';
import {
  AssetBytes,
  AssetParams,
  DevelopmentModeBody,
  ExtendedQuery,
  InstallationList,
  InstallationParams,
  InstallationSchema,
  InstallationToken,
  InstallBody,
  InstalledIntegrationList,
  InstalledIntegrationsQuery,
  InstallOnSiteBody,
  IntegrationList,
  IntegrationSchema,
  IntegrationStatusAnswer,
  ListContentInstallationsQuery,
  ListInstallationsQuery,
  ListIntegrationContentInstallationsQuery,
  ListIntegrationsQuery,
  NameParams,
  OrganizationInstallationList,
  OrganizationInstallationsQuery,
  OrganizationIntegrationParams,
  OrganizationParams,
  OrganizationSiteParams,
  PublicEndpointParams,
  PublishBody,
  QueueTaskBody,
  RenderBody,
  RenderOutput,
  RenderQuery,
  SiteInstallationList,
  SiteInstallationParams,
  SiteInstallationSchema,
  SiteIntegrationScript,
  SiteIntegrationsQuery,
  SiteScriptParams,
  VisitorAuthQuery,
  SpaceInstallationList,
  SpaceInstallationParams,
  SpaceInstallationSchema,
  UpdateContentInstallationBody,
  UpdateInstallationBody,
} from './schemas.ts';
import { queueTask } from './tasks.ts';
import { listSiteIntegrationScripts } from './site-scripts.ts';
import { renderIntegrationUI, renderRequestFromQuery, type Rendered } from './render.ts';
import { integrationFetch, publishedSiteScript, visitorAuthentication, type PublicAnswer } from './public-endpoints.ts';
import {
  createInstallationToken,
  getInstallationTarget,
  installOnSite,
  listInstallationTargets,
  listIntegrationTargets,
  uninstallFromTarget,
  updateSiteInstallation,
  updateSpaceInstallation,
} from './installations.ts';
import {
  getOrganizationIntegrationStatus,
  listOrganizationInstallations,
  listOrganizationIntegrations,
  listOrganizationIntegrationsStatus,
  listSiteIntegrations,
} from './organization-views.ts';
import {
  getAsset,
  getInstallation,
  getIntegration,
  install,
  listInstallations,
  listIntegrations,
  publishIntegration,
  setDevelopmentMode,
  uninstall,
  unpublishIntegration,
  updateInstallation,
} from './service.ts';

/**
 * Integrations and their installations: HTTP only. The rules are in ./service.ts (publishing and
 * organization installations), ./installations.ts (space and site installations, installation
 * tokens) and ./organization-views.ts. Routes marked `installation: true` also take a token acting
 * as an installation (api/auth.ts), which reaches its own installation only.
 */
export const integrationRoutes: RoutePlugin = async (app) => {
  const tags = ['integrations'];
  const installation = { installation: true };

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

  app.put(
    '/v1/integrations/:integrationName/dev',
    {
      schema: {
        tags,
        summary: "Development mode (`gitbook dev`): the integration's events go to the integrator's tunnel instead of its script",
        params: NameParams,
        body: DevelopmentModeBody,
        response: { 204: NoContent, ...errors(400, 403, 404) },
      },
    },
    async (request, reply) => {
      await setDevelopmentMode(ctxOf(request), request.params.integrationName, request.body);
      return reply.status(204).send();
    },
  );

  app.delete(
    '/v1/integrations/:integrationName/dev',
    {
      schema: {
        tags,
        summary: 'Ends development mode: events run the published script again',
        params: NameParams,
        response: { 205: NoContent, ...errors(403, 404) },
      },
    },
    async (request, reply) => {
      await setDevelopmentMode(ctxOf(request), request.params.integrationName, null);
      return reply.status(205).send();
    },
  );

  // Rendering a component: also for a site visitor's token (a block in a published page) and an installation's.
  const rendering = { visitor: true, installation: true };
  const sendRendered = (reply: FastifyReply, rendered: Rendered) => {
    if (rendered.cacheControl) reply.header('cache-control', rendered.cacheControl);
    return reply.type('application/json').send(rendered.body);
  };
  app.post(
    '/v1/integrations/:integrationName/render',
    {
      config: rendering,
      schema: {
        tags,
        summary: "Render a component of an integration (ContentKit), through the integration's script",
        params: NameParams,
        body: RenderBody,
        response: { 200: RenderOutput, ...errors(400, 403, 404, 502) },
      },
    },
    async (request, reply) => sendRendered(reply, await renderIntegrationUI(ctxOf(request), request.params.integrationName, request.body)),
  );
  app.get(
    '/v1/integrations/:integrationName/render',
    {
      config: rendering,
      schema: {
        tags,
        summary: 'Render a component of an integration, the request lz-string compressed in the query',
        params: NameParams,
        querystring: RenderQuery,
        response: { 200: RenderOutput, ...errors(400, 403, 404, 502) },
      },
    },
    async (request, reply) =>
      sendRendered(
        reply,
        await renderIntegrationUI(ctxOf(request), request.params.integrationName, renderRequestFromQuery(request.query.request)),
      ),
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
      config: installation,
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
      config: installation,
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
      config: installation,
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

  app.post(
    '/v1/integrations/:integrationName/installations/:installationId/tokens',
    {
      schema: {
        tags,
        summary: "Create a temporary API token acting as the installation, with the integration's scopes (admins of its owner)",
        params: InstallationParams,
        response: { 200: InstallationToken, ...errors(403, 404) },
      },
    },
    async (request) => createInstallationToken(ctxOf(request), request.params),
  );

  // --- Space installations ---

  app.get(
    '/v1/integrations/:integrationName/spaces',
    {
      schema: {
        tags,
        summary: 'List the space installations of an integration the caller reads',
        params: NameParams,
        querystring: ListIntegrationContentInstallationsQuery,
        response: { 200: SpaceInstallationList, ...errors(404) },
      },
      config: installation,
    },
    async (request) => listIntegrationTargets(ctxOf(request), 'space', request.params.integrationName, request.query),
  );

  app.get(
    '/v1/integrations/:integrationName/installations/:installationId/spaces',
    {
      schema: {
        tags,
        summary: 'List the spaces an installation is enabled on',
        params: InstallationParams,
        querystring: ListContentInstallationsQuery,
        response: { 200: SpaceInstallationList, ...errors(403, 404) },
      },
      config: installation,
    },
    async (request) => listInstallationTargets(ctxOf(request), 'space', request.params, request.query),
  );

  app.get(
    '/v1/integrations/:integrationName/installations/:installationId/spaces/:spaceId',
    {
      schema: {
        tags,
        summary: 'Get an installation on a space',
        params: SpaceInstallationParams,
        querystring: ExtendedQuery,
        response: { 200: SpaceInstallationSchema, ...errors(403, 404) },
      },
      config: installation,
    },
    async (request) => getInstallationTarget(ctxOf(request), 'space', request.params, request.params.spaceId, request.query.extended),
  );

  app.patch(
    '/v1/integrations/:integrationName/installations/:installationId/spaces/:spaceId',
    {
      schema: {
        tags,
        summary: 'Configure an installation on a space (enables it there when it is not yet)',
        params: SpaceInstallationParams,
        querystring: ExtendedQuery,
        body: UpdateContentInstallationBody,
        response: { 200: SpaceInstallationSchema, ...errors(403, 404) },
      },
      config: installation,
    },
    async (request) => updateSpaceInstallation(ctxOf(request), request.params, request.body, request.query.extended),
  );

  app.delete(
    '/v1/integrations/:integrationName/installations/:installationId/spaces/:spaceId',
    {
      schema: {
        tags,
        summary: 'Uninstall an integration from a space (205; 204 when it was not installed there)',
        params: SpaceInstallationParams,
        response: { 204: NoContent, 205: NoContent, ...errors(403, 404) },
      },
    },
    async (request, reply) => {
      const removed = await uninstallFromTarget(ctxOf(request), 'space', request.params, request.params.spaceId);
      return reply.status(removed ? 205 : 204).send();
    },
  );

  // --- Site installations ---

  app.get(
    '/v1/integrations/:integrationName/sites',
    {
      schema: {
        tags,
        summary: 'List the site installations of an integration the caller reads',
        params: NameParams,
        querystring: ListIntegrationContentInstallationsQuery,
        response: { 200: SiteInstallationList, ...errors(404) },
      },
      config: installation,
    },
    async (request) => listIntegrationTargets(ctxOf(request), 'site', request.params.integrationName, request.query),
  );

  app.get(
    '/v1/integrations/:integrationName/installations/:installationId/sites',
    {
      schema: {
        tags,
        summary: 'List the sites an installation is enabled on',
        params: InstallationParams,
        querystring: ListContentInstallationsQuery,
        response: { 200: SiteInstallationList, ...errors(403, 404) },
      },
      config: installation,
    },
    async (request) => listInstallationTargets(ctxOf(request), 'site', request.params, request.query),
  );

  app.post(
    '/v1/integrations/:integrationName/installations/:installationId/sites',
    {
      schema: {
        tags,
        summary: "Enable an installation on a site of its organization (the site's admins)",
        params: InstallationParams,
        querystring: ExtendedQuery,
        body: InstallOnSiteBody,
        response: { 201: SiteInstallationSchema, ...errors(403, 404, 409) },
      },
      config: installation,
    },
    async (request, reply) => {
      const installed = await installOnSite(ctxOf(request), request.params, request.body.siteId, request.query.extended);
      return reply.status(201).header('location', installed.urls.location).send(installed);
    },
  );

  app.get(
    '/v1/integrations/:integrationName/installations/:installationId/sites/:siteId',
    {
      schema: {
        tags,
        summary: 'Get an installation on a site',
        params: SiteInstallationParams,
        querystring: ExtendedQuery,
        response: { 200: SiteInstallationSchema, ...errors(403, 404) },
      },
      config: installation,
    },
    async (request) => getInstallationTarget(ctxOf(request), 'site', request.params, request.params.siteId, request.query.extended),
  );

  app.patch(
    '/v1/integrations/:integrationName/installations/:installationId/sites/:siteId',
    {
      schema: {
        tags,
        summary: 'Configure an installation on a site it is enabled on',
        params: SiteInstallationParams,
        querystring: ExtendedQuery,
        body: UpdateContentInstallationBody,
        response: { 200: SiteInstallationSchema, ...errors(403, 404) },
      },
      config: installation,
    },
    async (request) => updateSiteInstallation(ctxOf(request), request.params, request.body, request.query.extended),
  );

  app.delete(
    '/v1/integrations/:integrationName/installations/:installationId/sites/:siteId',
    {
      schema: {
        tags,
        summary: 'Uninstall an integration from a site (205; 204 when it was not installed there)',
        params: SiteInstallationParams,
        response: { 204: NoContent, 205: NoContent, ...errors(403, 404) },
      },
    },
    async (request, reply) => {
      const removed = await uninstallFromTarget(ctxOf(request), 'site', request.params, request.params.siteId);
      return reply.status(removed ? 205 : 204).send();
    },
  );

  // --- Organization views ---

  app.get(
    '/v1/orgs/:organizationId/integrations',
    {
      schema: {
        tags,
        summary: 'List the public integrations and those the organization owns',
        params: OrganizationParams,
        querystring: ListIntegrationsQuery,
        response: { 200: IntegrationList, ...errors(404) },
      },
    },
    async (request) => listOrganizationIntegrations(ctxOf(request), request.params.organizationId, request.query),
  );

  app.get(
    '/v1/orgs/:organizationId/integrations/:integrationName/installation_status',
    {
      schema: {
        tags,
        summary: 'Get the status of the installation of an integration in the organization',
        params: OrganizationIntegrationParams,
        response: { 200: IntegrationStatusAnswer, ...errors(404) },
      },
    },
    async (request) => getOrganizationIntegrationStatus(ctxOf(request), request.params.organizationId, request.params.integrationName),
  );

  app.get(
    '/v1/orgs/:organizationId/installations',
    {
      schema: {
        tags,
        summary: "List the organization's installations with their integrations (admins)",
        params: OrganizationParams,
        querystring: OrganizationInstallationsQuery,
        response: { 200: OrganizationInstallationList, ...errors(403, 404) },
      },
    },
    async (request) => listOrganizationInstallations(ctxOf(request), request.params.organizationId, request.query),
  );

  app.get(
    '/v1/orgs/:organizationId/integrations/installations-status',
    {
      schema: {
        tags,
        summary: 'List the integrations installed on the organization, its spaces or its sites, with their status',
        params: OrganizationParams,
        querystring: InstalledIntegrationsQuery,
        response: { 200: InstalledIntegrationList, ...errors(404) },
      },
    },
    async (request) => listOrganizationIntegrationsStatus(ctxOf(request), request.params.organizationId, request.query),
  );

  app.get(
    '/v1/orgs/:organizationId/sites/:siteId/integrations',
    {
      schema: {
        tags,
        summary: 'List the integrations enabled on a site',
        params: OrganizationSiteParams,
        querystring: SiteIntegrationsQuery,
        response: { 200: IntegrationList, ...errors(404) },
      },
    },
    async (request) => listSiteIntegrations(ctxOf(request), request.params.organizationId, request.params.siteId, request.query),
  );

  app.post(
    '/v1/integrations/:integrationName/tasks',
    {
      config: installation,
      schema: {
        tags,
        summary: "Queue a task for an integration's script, run after `schedule` seconds (at most a day)",
        params: NameParams,
        body: QueueTaskBody,
        response: { 204: NoContent, ...errors(400, 403, 404) },
      },
    },
    async (request, reply) => {
      await queueTask(ctxOf(request), request.params.integrationName, request.body);
      return reply.status(204).send();
    },
  );

  app.get(
    '/v1/orgs/:organizationId/sites/:siteId/integration-scripts',
    {
      schema: {
        tags,
        summary: "List the scripts integrations inject in a site's published pages",
        params: OrganizationSiteParams,
        response: { 200: Type.Array(SiteIntegrationScript), ...errors(403, 404) },
      },
    },
    async (request) => listSiteIntegrationScripts(ctxOf(request), request.params.organizationId, request.params.siteId),
  );

  // Public endpoints (urls.publicEndpoint): no token, any method and body, the script's answer as it is (public-endpoints.ts).
  // Left out of the API's OpenAPI document: what they take and answer is each integration's own.
  const publicEndpoints: RoutePlugin = async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
    const methods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
    const config = { public: true };
    const send = (reply: FastifyReply, answer: PublicAnswer) => reply.status(answer.status).headers(answer.headers).send(answer.body);
    const bodyOf = (body: unknown) => (Buffer.isBuffer(body) ? body : undefined);
    scope.get(
      '/v1/integrations/:integrationName/installations/:installationId/sites/:siteId/visitor-auth',
      { config, schema: { hide: true, params: SiteScriptParams, querystring: VisitorAuthQuery } },
      async (request, reply) => send(reply, await visitorAuthentication(ctxOf(request), request.params, request.query)),
    );
    scope.get(
      '/v1/integrations/:integrationName/installations/:installationId/sites/:siteId/script.js',
      { config, schema: { hide: true, params: SiteScriptParams } },
      async (request, reply) => send(reply, await publishedSiteScript(ctxOf(request), request.params)),
    );
    // The integration's own endpoint, and each installation's (its environment, with its token).
    for (const url of [
      '/v1/integrations/:integrationName/integration',
      '/v1/integrations/:integrationName/integration/*',
      '/v1/integrations/:integrationName/installations/:installationId/integration',
      '/v1/integrations/:integrationName/installations/:installationId/integration/*',
      '/v1/integrations/:integrationName/installations/:installationId/sites/:siteId/integration',
      '/v1/integrations/:integrationName/installations/:installationId/sites/:siteId/integration/*',
    ]) {
      scope.route({
        method: methods,
        url,
        config,
        schema: { hide: true, params: PublicEndpointParams },
        handler: async (request, reply) => {
          const { integrationName, installationId, siteId } = request.params;
          const target = {
            integrationName,
            ...(installationId !== undefined ? { installationId } : {}),
            ...(installationId !== undefined && siteId !== undefined ? { siteId } : {}),
          };
          const forwarded = { method: request.method, url: request.url, headers: request.headers, body: bodyOf(request.body) };
          return send(reply, await integrationFetch(ctxOf(request), target, forwarded));
        },
      });
    }
  };
  await app.register(publicEndpoints);
};

import { sendJson } from '../json-answer.ts';
import { ctxOf, type RoutePlugin } from '../context.ts';
import { errors, NoContent } from '../schemas.ts';
import {
  AdaptiveSchemaBody,
  AdaptiveSchemaSchema,
  CreateSiteBody,
  CustomizationInput,
  CustomizationSchema,
  ListSitesQuery,
  OrgParams,
  PublishedQuery,
  PublishedSiteSchema,
  SiteStructureSchema,
  PublishingAuthBody,
  PublishingAuthSchema,
  PreviewQuery,
  PreviewSchema,
  PreferHeaders,
  SiteStructureItemSchema,
  SortStructureBody,
  SiteList,
  SiteParams,
  SiteSchema,
  UpdateSiteBody,
} from './schemas.ts';
import { getAdaptiveSchema, putAdaptiveSchema } from './adaptive-schema.ts';
import { changeCustomization, getCustomization } from './customization.ts';
import { createSite, deleteSite, getSite, listSites } from './lifecycle.ts';
import { getSitePreview } from './preview.ts';
import { sortSiteStructure } from './sort.ts';
import { getPublishedSiteAnswer, getSiteStructure, setPublished } from './publishing.ts';
import { updateSite } from './settings.ts';
import { getPublishingAuth, regeneratePublishingAuth, updatePublishingAuth } from './visitor-auth.ts';

/** Sites: HTTP only. The rules are in the use-case modules beside this file (lifecycle, settings, publishing, …). */
export const siteRoutes: RoutePlugin = async (app) => {
  const tags = ['sites'];
  const base = '/v1/orgs/:organizationId/sites';
  const one = `${base}/:siteId`;

  app.get(
    base,
    {
      schema: {
        tags,
        summary: 'List the sites of an organization',
        params: OrgParams,
        querystring: ListSitesQuery,
        response: { 200: SiteList, ...errors(403, 404) },
      },
    },
    async (request) => listSites(ctxOf(request), request.params.organizationId, request.query),
  );

  app.post(
    base,
    {
      schema: {
        tags,
        summary: 'Create a site',
        params: OrgParams,
        body: CreateSiteBody,
        response: { 201: SiteSchema, ...errors(403, 404) },
      },
    },
    async (request, reply) => {
      const site = await createSite(ctxOf(request), request.params.organizationId, request.body);
      return reply.status(201).header('location', site.urls.location).send(site);
    },
  );

  app.get(
    one,
    {
      // Also for a token acting as an installation enabled on the site whose integration has `site:metadata:read`.
      config: { installation: true },
      schema: { tags, summary: 'Get a site', params: SiteParams, response: { 200: SiteSchema, ...errors(403, 404) } },
    },
    async (request) => getSite(ctxOf(request), request.params.organizationId, request.params.siteId),
  );

  app.patch(
    one,
    {
      schema: {
        tags,
        summary: 'Update a site',
        params: SiteParams,
        body: UpdateSiteBody,
        response: { 200: SiteSchema, ...errors(403, 404, 409) },
      },
    },
    async (request) => updateSite(ctxOf(request), request.params.organizationId, request.params.siteId, request.body),
  );

  app.delete(
    one,
    {
      schema: { tags, summary: 'Delete a site', params: SiteParams, response: { 205: NoContent, ...errors(403, 404) } },
    },
    async (request, reply) => {
      await deleteSite(ctxOf(request), request.params.organizationId, request.params.siteId);
      return reply.status(205).send();
    },
  );

  app.post(
    `${one}/publish`,
    {
      schema: { tags, summary: 'Publish a site', params: SiteParams, response: { 200: SiteSchema, ...errors(403, 404) } },
    },
    async (request) => setPublished(ctxOf(request), request.params.organizationId, request.params.siteId, true),
  );

  app.post(
    `${one}/unpublish`,
    {
      schema: { tags, summary: 'Unpublish a site', params: SiteParams, response: { 200: SiteSchema, ...errors(403, 404) } },
    },
    async (request) => setPublished(ctxOf(request), request.params.organizationId, request.params.siteId, false),
  );

  app.get(
    `${one}/adaptive-schema`,
    {
      schema: {
        tags,
        summary: 'Get the adaptive schema of a site',
        params: SiteParams,
        response: { 200: AdaptiveSchemaSchema, ...errors(403, 404) },
      },
    },
    async (request) => getAdaptiveSchema(ctxOf(request), request.params.organizationId, request.params.siteId),
  );

  app.put(
    `${one}/adaptive-schema`,
    {
      schema: {
        tags,
        summary: 'Set the adaptive schema of a site',
        params: SiteParams,
        body: AdaptiveSchemaBody,
        response: { 200: AdaptiveSchemaSchema, ...errors(403, 404) },
      },
    },
    async (request) => putAdaptiveSchema(ctxOf(request), request.params.organizationId, request.params.siteId, request.body),
  );

  app.get(
    `${one}/publishing/auth`,
    {
      schema: {
        tags,
        summary: 'Get the visitor authentication settings of a site',
        params: SiteParams,
        response: { 200: PublishingAuthSchema, ...errors(403, 404) },
      },
    },
    async (request) => getPublishingAuth(ctxOf(request), request.params.organizationId, request.params.siteId),
  );

  app.patch(
    `${one}/publishing/auth`,
    {
      schema: {
        tags,
        summary: 'Update the visitor authentication settings of a site',
        params: SiteParams,
        body: PublishingAuthBody,
        response: { 200: PublishingAuthSchema, ...errors(403, 404) },
      },
    },
    async (request) => updatePublishingAuth(ctxOf(request), request.params.organizationId, request.params.siteId, request.body),
  );

  app.post(
    `${one}/publishing/auth/regenerate`,
    {
      schema: {
        tags,
        summary: 'Regenerate the visitor signing key of a site',
        params: SiteParams,
        response: { 200: PublishingAuthSchema, ...errors(403, 404) },
      },
    },
    async (request) => regeneratePublishingAuth(ctxOf(request), request.params.organizationId, request.params.siteId),
  );

  app.get(
    `${one}/publishing/preview`,
    {
      schema: {
        tags: ['site-preview'],
        summary: 'A link, valid for an hour, to the site as it would look when published (as the visitor the claims describe)',
        operationId: 'getSitePublishingPreviewById',
        params: SiteParams,
        querystring: PreviewQuery,
        response: { 200: PreviewSchema, ...errors(400, 403, 404) },
      },
    },
    async (request) => getSitePreview(ctxOf(request), request.params.organizationId, request.params.siteId, request.query),
  );

  app.get(
    `${one}/customization`,
    {
      schema: {
        tags,
        summary: 'Get the customization of a site',
        params: SiteParams,
        response: { 200: CustomizationSchema, ...errors(403, 404) },
      },
    },
    async (request) => getCustomization(ctxOf(request), request.params.organizationId, request.params.siteId),
  );

  app.put(
    `${one}/customization`,
    {
      schema: {
        tags,
        summary: 'Replace the customization of a site',
        params: SiteParams,
        body: CustomizationInput,
        response: { 200: CustomizationSchema, ...errors(403, 404) },
      },
    },
    async (request) => changeCustomization(ctxOf(request), request.params.organizationId, request.params.siteId, request.body, true),
  );

  app.patch(
    `${one}/customization`,
    {
      schema: {
        tags,
        summary: 'Change parts of the customization of a site',
        params: SiteParams,
        body: CustomizationInput,
        response: { 200: CustomizationSchema, ...errors(403, 404) },
      },
    },
    async (request) => changeCustomization(ctxOf(request), request.params.organizationId, request.params.siteId, request.body, false),
  );

  app.get(
    `${one}/structure`,
    {
      config: { visitor: true },
      schema: {
        tags,
        summary:
          "Get the site's navigation: sections and section groups in order, or its root site-spaces (for members, with a share key, or for the site's visitor)",
        params: SiteParams,
        querystring: PublishedQuery,
        response: { 200: SiteStructureSchema, ...errors(404) },
      },
    },
    async (request) => getSiteStructure(ctxOf(request), request.params.organizationId, request.params.siteId, request.query.shareKey),
  );

  app.patch(
    `${one}/structure/sort`,
    {
      schema: {
        tags,
        summary: 'Move a site-space, section or section group among its siblings of the same level',
        operationId: 'sortSiteStructure',
        params: SiteParams,
        headers: PreferHeaders,
        body: SortStructureBody,
        response: { 200: SiteStructureItemSchema, 204: NoContent, ...errors(400, 403, 404) },
      },
    },
    async (request, reply) => {
      const item = await sortSiteStructure(ctxOf(request), request.params.organizationId, request.params.siteId, request.body);
      if (request.headers.prefer === 'return=minimal') return reply.status(204).header('preference-applied', 'return=minimal').send();
      return item;
    },
  );

  app.get(
    `${one}/published`,
    {
      config: { visitor: true },
      schema: {
        tags,
        summary: "Get the published site (for members, with a share key, or for the site's visitor)",
        params: SiteParams,
        querystring: PublishedQuery,
        response: { 200: PublishedSiteSchema, ...errors(404) },
      },
    },
    // A site visitor's answer is kept between writes (see getPublishedSiteAnswer), serialized as this route serializes.
    async (request, reply) =>
      sendJson(
        request,
        reply,
        await getPublishedSiteAnswer(ctxOf(request), request.params.organizationId, request.params.siteId, request.query.shareKey, (site) =>
          reply.serialize(site),
        ),
      ),
  );
};

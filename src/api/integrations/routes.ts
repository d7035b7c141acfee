import type { Static } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { LockMode, UniqueConstraintViolationException, type FilterQuery } from '@mikro-orm/core';
import { Member, Organization } from '../../db/entities.ts';
import type { Em } from '../../db/orm.ts';
import { Integration, IntegrationAsset, IntegrationInstallation } from '../../db/settings-entities.ts';
import { newId } from '../../domain/ids.ts';
import {
  blockDomains, checkConfiguration, checkConfigurations, decodeImage, integrationAccess, needsConfiguration, type ConfigurationSchema,
} from '../../domain/integrations.ts';
import { atLeast, isRole, type Role } from '../../domain/roles.ts';
import { lazySecretBox } from '../../lib/secrets.ts';
import type { Caller } from '../context.ts';
import { loadOrganization, requireRole } from '../access.ts';
import { badRequest, conflict, forbidden, HttpError, notFound } from '../errors.ts';
import { paginate } from '../pagination.ts';
import { errors, NoContent } from '../schemas.ts';
import { urlsFor } from '../urls.ts';
import { presentInstallation, presentIntegration, type Memberships } from './present.ts';
import {
  AssetParams, InstallationList, InstallationParams, InstallationSchema, InstallBody, IntegrationList, IntegrationSchema,
  ListInstallationsQuery, ListIntegrationsQuery, NameParams, PublishBody, UpdateInstallationBody,
} from './schemas.ts';

type Name = Static<typeof NameParams>;
type InstallationRef = Static<typeof InstallationParams>;

async function membershipsOf(em: Em, caller: Caller): Promise<Map<string, Role | null>> {
  const rows = await em.find(Member, { userId: caller.user.id, disabled: false });
  return new Map(rows.map((m) => [m.organizationId, isRole(m.role) ? m.role : null]));
}

/** An integration the caller may see (see domain/integrations.ts for the visibility rule); 404 otherwise. */
async function loadIntegration(em: Em, name: string, memberships: Memberships) {
  const integration = await em.findOne(Integration, { name });
  if (!integration || !integrationAccess(integration, memberships).view) throw notFound('Integration');
  return integration;
}

/** `organization` of a publish body: an organization id, or the subdomain of one. */
async function resolveOrganization(em: Em, value: string): Promise<string | undefined> {
  const rows = await em.getConnection().execute<{ id: string }[]>(
    'select id from organization where id = ? or subdomain = ? order by (id = ?) desc limit 1',
    [value, value.toLowerCase(), value],
  );
  return rows[0]?.id;
}

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * Integrations: publishing (creates or updates, `version` counts publications), unpublishing,
 * listing, and installations on organizations. Secrets are sealed with AES-256-GCM before they
 * reach the database and are never part of an answer; the script is stored, not run.
 */
export async function integrationRoutes(app: FastifyInstance) {
  const { deps } = app;
  const urls = urlsFor(deps.config.publicUrl);
  const secrets = lazySecretBox(deps.config);
  const tags = ['integrations'];

  async function present(em: Em, integrations: Integration[], memberships: Memberships) {
    const owners = await em.find(Organization, { id: { $in: [...new Set(integrations.map((i) => i.ownerId))] } });
    const byId = new Map(owners.map((o) => [o.id, o]));
    return integrations.map((i) => presentIntegration(i, byId.get(i.ownerId)!, memberships, urls));
  }

  app.get('/v1/integrations', {
    schema: { tags, summary: 'List the integrations the caller can see', querystring: ListIntegrationsQuery, response: { 200: IntegrationList, ...errors() } },
  }, async (request) => {
    const query = request.query as Static<typeof ListIntegrationsQuery>;
    const { em } = request;
    const memberships = await membershipsOf(em, request.caller);
    const memberOf = [...memberships.keys()];
    const and: FilterQuery<Integration>[] = [
      memberOf.length > 0 ? { $or: [{ visibility: 'public' }, { ownerId: { $in: memberOf } }] } : { visibility: 'public' },
    ];
    if (query.search) {
      const pattern = `%${escapeLike(query.search)}%`;
      and.push({ $or: [{ name: { $ilike: pattern } }, { title: { $ilike: pattern } }] });
    }
    if (query.category) and.push({ categories: { $contains: [query.category] } });
    if (query.scope) and.push({ scopes: { $contains: [query.scope] } });
    if (query.blockDomain) and.push({ blockDomains: { $contains: [query.blockDomain.toLowerCase()] } });
    if (query.blocks !== undefined) and.push({ hasBlocks: query.blocks });
    if (query.contentSources !== undefined) and.push({ hasContentSources: query.contentSources });
    if (query.owner) and.push({ ownerId: query.owner });
    if (query.target) and.push({ target: query.target === 'all' ? 'all' : { $in: [query.target, 'all'] } });
    const page = await paginate(em, Integration, { $and: and }, [{ field: 'name', kind: 'string' }], query, (i) => i);
    return { ...page, items: await present(em, page.items, memberships) };
  });

  app.get('/v1/integrations/:integrationName', {
    schema: { tags, summary: 'Get an integration', params: NameParams, response: { 200: IntegrationSchema, ...errors(404) } },
  }, async (request) => {
    const { em } = request;
    const memberships = await membershipsOf(em, request.caller);
    const integration = await loadIntegration(em, (request.params as Name).integrationName, memberships);
    return (await present(em, [integration], memberships))[0];
  });

  app.post('/v1/integrations/:integrationName', {
    schema: {
      tags,
      summary: 'Publish an integration (creates it, or publishes a new version)',
      params: NameParams,
      body: PublishBody,
      response: { 200: IntegrationSchema, ...errors(403, 404, 409) },
    },
  }, async (request) => {
    const { integrationName: name } = request.params as Name;
    const body = request.body as Static<typeof PublishBody>;
    const { em, caller } = request;
    const organizationId = await resolveOrganization(em, body.organization);
    if (!organizationId) throw notFound('organization: organization');
    const { role } = await loadOrganization(em, caller, organizationId).catch((error: unknown) => {
      throw error instanceof HttpError && error.statusCode === 404 ? notFound('organization: organization') : error;
    });
    requireRole(role, 'admin', 'publish integrations for this organization');

    const images: { asset: string; contentType: string; data: Buffer }[] = [];
    if (body.icon !== undefined) {
      const icon = decodeImage('icon', body.icon);
      if (!icon.ok) throw badRequest(icon.message);
      images.push({ asset: 'icon', contentType: icon.contentType, data: icon.data });
    }
    for (const [i, preview] of (body.previewImages ?? []).entries()) {
      const image = decodeImage(`previewImages[${i}]`, preview);
      if (!image.ok) throw badRequest(image.message);
      images.push({ asset: `preview-${i}`, contentType: image.contentType, data: image.data });
    }
    const configurations = (body.configurations ?? {}) as Record<string, ConfigurationSchema | undefined>;
    const problem = checkConfigurations(configurations);
    if (problem) throw badRequest(problem);
    for (const key of Object.keys(body.secrets ?? {})) {
      if (!/^[A-Za-z0-9_.-]{1,100}$/.test(key)) throw badRequest(`secrets: the name "${key.slice(0, 100)}" must be 1 to 100 letters, digits, "_", "-" or "."`);
    }
    const sealed = body.secrets === undefined ? undefined : (await secrets()).seal(JSON.stringify(body.secrets), `integration:${name}`);
    const blocks = body.blocks ?? [];
    const contentSources = body.contentSources ?? [];
    const definition = {
      title: body.title,
      description: body.description,
      summary: body.summary || null,
      visibility: body.visibility ?? 'private',
      target: body.target ?? 'all',
      runtime: body.runtime ?? 'v1',
      scopes: body.scopes ?? [],
      categories: body.categories ?? [],
      blocks,
      contentSources,
      externalLinks: body.externalLinks ?? [],
      configurations,
      contentSecurityPolicy: body.contentSecurityPolicy ?? null,
      blockDomains: blockDomains(blocks),
      hasBlocks: blocks.length > 0,
      hasContentSources: contentSources.length > 0,
      hasIcon: body.icon !== undefined,
      previewImageCount: body.previewImages?.length ?? 0,
      script: body.script,
      updatedAt: new Date(),
    };

    try {
      await em.transactional(async (tx) => {
        const existing = await tx.findOne(Integration, { name }, { lockMode: LockMode.PESSIMISTIC_WRITE });
        if (existing && existing.ownerId !== organizationId) {
          throw conflict(`integrationName: "${name}" is already published by another organization`);
        }
        if (existing) {
          // A publication replaces the whole definition; secrets stay unless new ones are given.
          tx.assign(existing, { ...definition, version: existing.version + 1, ...(sealed !== undefined ? { secretsSealed: sealed } : {}) });
        } else {
          tx.create(Integration, {
            ...definition,
            name,
            ownerId: organizationId,
            version: 1,
            verified: false,
            secretsSealed: sealed ?? null,
            createdAt: definition.updatedAt,
          });
        }
        await tx.flush();
        await tx.nativeDelete(IntegrationAsset, { integrationName: name });
        for (const image of images) tx.create(IntegrationAsset, { integrationName: name, ...image });
      });
    } catch (error) {
      if (error instanceof UniqueConstraintViolationException) throw conflict(`integrationName: "${name}" was published at the same time by another request; try again`);
      throw error;
    }
    em.clear();
    const memberships = await membershipsOf(em, caller);
    const integration = await em.findOneOrFail(Integration, { name });
    return (await present(em, [integration], memberships))[0];
  });

  app.delete('/v1/integrations/:integrationName', {
    schema: { tags, summary: 'Unpublish an integration; its installations go with it', params: NameParams, response: { 204: NoContent, ...errors(403, 404) } },
  }, async (request, reply) => {
    const { em } = request;
    const memberships = await membershipsOf(em, request.caller);
    const integration = await loadIntegration(em, (request.params as Name).integrationName, memberships);
    if (!integrationAccess(integration, memberships).admin) throw forbidden('You need the admin role in the organization that owns this integration to unpublish it');
    // Installations and images reference the integration with `on delete cascade`.
    await em.nativeDelete(Integration, { name: integration.name });
    return reply.status(204).send();
  });

  app.get('/v1/integrations/:integrationName/assets/:asset', {
    schema: { tags, summary: 'Get the icon or a preview image of an integration', params: AssetParams },
  }, async (request, reply) => {
    const { integrationName, asset } = request.params as Static<typeof AssetParams>;
    const { em } = request;
    await loadIntegration(em, integrationName, await membershipsOf(em, request.caller));
    const row = await em.findOne(IntegrationAsset, { integrationName, asset });
    if (!row) throw notFound('Image');
    return reply
      .header('content-type', row.contentType)
      .header('cache-control', 'private, max-age=300')
      .header('x-content-type-options', 'nosniff')
      // SVG may carry scripts: served inert.
      .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; sandbox")
      .send(row.data);
  });

  app.get('/v1/integrations/:integrationName/installations', {
    schema: {
      tags,
      summary: 'List installations: all of them for admins of the owner, otherwise those in organizations the caller administers',
      params: NameParams,
      querystring: ListInstallationsQuery,
      response: { 200: InstallationList, ...errors(404) },
    },
  }, async (request) => {
    const query = request.query as Static<typeof ListInstallationsQuery>;
    const { em } = request;
    const memberships = await membershipsOf(em, request.caller);
    const integration = await loadIntegration(em, (request.params as Name).integrationName, memberships);
    const where: FilterQuery<IntegrationInstallation>[] = [{ integrationName: integration.name }];
    if (!integrationAccess(integration, memberships).admin) {
      where.push({ organizationId: { $in: [...memberships].filter(([, role]) => atLeast(role, 'admin')).map(([id]) => id) } });
    }
    if (query.externalId !== undefined) where.push({ externalIds: { $contains: [query.externalId] } });
    return paginate(em, IntegrationInstallation, { $and: where }, [{ field: 'createdAt', kind: 'date' }, { field: 'id', kind: 'string' }], query, (i) =>
      presentInstallation(i, urls),
    );
  });

  app.post('/v1/integrations/:integrationName/installations', {
    schema: { tags, summary: 'Install an integration on an organization', params: NameParams, body: InstallBody, response: { 201: InstallationSchema, ...errors(403, 404, 409) } },
  }, async (request, reply) => {
    const body = request.body as Static<typeof InstallBody>;
    const { em, caller } = request;
    const memberships = await membershipsOf(em, caller);
    const integration = await loadIntegration(em, (request.params as Name).integrationName, memberships);
    const { role } = await loadOrganization(em, caller, body.organization).catch((error: unknown) => {
      throw error instanceof HttpError && error.statusCode === 404 ? notFound('organization: organization') : error;
    });
    requireRole(role, 'admin', 'install integrations in this organization');
    if (integration.visibility === 'private' && body.organization !== integration.ownerId) {
      throw forbidden('This integration is private: it can only be installed in the organization that owns it');
    }
    const account = (integration.configurations as { account?: ConfigurationSchema }).account;
    if (body.configuration !== undefined) {
      const problem = checkConfiguration(account, body.configuration);
      if (problem) throw badRequest(problem);
    }
    const now = new Date();
    const installation = em.create(IntegrationInstallation, {
      id: newId(),
      integrationName: integration.name,
      organizationId: body.organization,
      // Without a configuration, an integration that requires one waits for it (PATCH the installation).
      status: body.configuration === undefined && needsConfiguration(account) ? 'pending' : 'active',
      spaceSelection: 'selected',
      siteSelection: 'selected',
      configuration: body.configuration ?? {},
      externalIds: body.externalIds ?? [],
      createdAt: now,
      updatedAt: now,
    });
    try {
      await em.flush();
    } catch (error) {
      if (error instanceof UniqueConstraintViolationException) throw conflict(`organization: "${integration.name}" is already installed in this organization`);
      throw error;
    }
    const presented = presentInstallation(installation, urls);
    return reply.status(201).header('location', presented.urls.location).send(presented);
  });

  /** An installation the caller may see: admins of its organization and of the integration's owner; 404 for others outside it. */
  async function loadInstallation(em: Em, caller: Caller, ref: InstallationRef, action: 'read' | 'manage') {
    const memberships = await membershipsOf(em, caller);
    const integration = await loadIntegration(em, ref.integrationName, memberships);
    const installation = await em.findOne(IntegrationInstallation, { id: ref.installationId, integrationName: integration.name });
    if (!installation) throw notFound('Installation');
    const role = memberships.get(installation.organizationId);
    const ownerAdmin = integrationAccess(integration, memberships).admin;
    if (action === 'read' && ownerAdmin) return { integration, installation };
    if (!memberships.has(installation.organizationId)) throw notFound('Installation');
    requireRole(role ?? null, 'admin', action === 'read' ? 'see the installations of this organization' : 'manage the installations of this organization');
    return { integration, installation };
  }

  app.get('/v1/integrations/:integrationName/installations/:installationId', {
    schema: { tags, summary: 'Get an installation', params: InstallationParams, response: { 200: InstallationSchema, ...errors(403, 404) } },
  }, async (request) => {
    const { installation } = await loadInstallation(request.em, request.caller, request.params as InstallationRef, 'read');
    return presentInstallation(installation, urls);
  });

  app.patch('/v1/integrations/:integrationName/installations/:installationId', {
    schema: { tags, summary: 'Update the configuration or external IDs of an installation', params: InstallationParams, body: UpdateInstallationBody, response: { 200: InstallationSchema, ...errors(403, 404) } },
  }, async (request) => {
    const body = request.body as Static<typeof UpdateInstallationBody>;
    const { em } = request;
    const { integration, installation } = await loadInstallation(em, request.caller, request.params as InstallationRef, 'manage');
    if (body.configuration !== undefined) {
      const problem = checkConfiguration((integration.configurations as { account?: ConfigurationSchema }).account, body.configuration);
      if (problem) throw badRequest(problem);
      installation.configuration = body.configuration;
      if (installation.status === 'pending') installation.status = 'active';
    }
    if (body.externalIds !== undefined) installation.externalIds = body.externalIds;
    if (body.space_selection !== undefined) installation.spaceSelection = body.space_selection;
    if (body.site_selection !== undefined) installation.siteSelection = body.site_selection;
    installation.updatedAt = new Date();
    await em.flush();
    return presentInstallation(installation, urls);
  });

  app.delete('/v1/integrations/:integrationName/installations/:installationId', {
    schema: { tags, summary: 'Uninstall an integration from an organization', params: InstallationParams, response: { 205: NoContent, ...errors(403, 404) } },
  }, async (request, reply) => {
    const { em } = request;
    const { installation } = await loadInstallation(em, request.caller, request.params as InstallationRef, 'manage');
    await em.nativeDelete(IntegrationInstallation, { id: installation.id });
    return reply.status(205).send();
  });
}

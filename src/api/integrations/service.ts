import type { Static } from 'typebox';
import { LockMode, UniqueConstraintViolationException, type FilterQuery } from '@mikro-orm/core';
import { Member, Organization } from '../../db/entities.ts';
import { organizationIdOrSubdomain } from '../../db/integrations.ts';
import { Integration, IntegrationAsset, IntegrationInstallation } from '../../db/settings-entities.ts';
import { newId } from '../../domain/ids.ts';
import {
  blockDomains,
  checkConfiguration,
  checkConfigurations,
  decodeImage,
  integrationAccess,
  needsConfiguration,
  type ConfigurationSchema,
} from '../../domain/integrations.ts';
import { atLeast, isRole, type Role } from '../../domain/roles.ts';
import { inScope, requireOrganization, requireRole } from '../access.ts';
import type { Ctx } from '../context.ts';
import { badRequest, conflict, forbidden, HttpError, notFound } from '../errors.ts';
import { paginateEntity } from '../pagination.ts';
import { urlsFor } from '../object-urls.ts';
import { presentInstallation, presentIntegration, type Memberships } from './present.ts';
import type {
  InstallationParams,
  InstallBody,
  ListInstallationsQuery,
  ListIntegrationsQuery,
  PublishBody,
  UpdateInstallationBody,
} from './schemas.ts';

/**
 * Integrations: publishing (creates or updates, `version` counts publications), unpublishing,
 * listing, and installations on organizations. Secrets are sealed with AES-256-GCM before they
 * reach the database and are never part of an answer; the script is stored, not run.
 */

type InstallationRef = Static<typeof InstallationParams>;
type Image = { asset: string; contentType: string; data: Buffer };

const urlsOf = (ctx: Ctx) => urlsFor(ctx.deps.config.publicUrl);

/** One secret box per configuration, created on first use. */
async function membershipsOf(ctx: Ctx): Promise<Map<string, Role | null>> {
  const rows = await ctx.em.find(Member, { userId: ctx.caller.user.id, disabled: false });
  return new Map(rows.filter((m) => inScope(ctx.caller, m.organizationId)).map((m) => [m.organizationId, isRole(m.role) ? m.role : null]));
}

/** An integration the caller may see (see domain/integrations.ts for the visibility rule); 404 otherwise. */
async function loadIntegration(ctx: Ctx, name: string, memberships: Memberships) {
  const integration = await ctx.em.findOne(Integration, { name });
  if (!integration || !integrationAccess(integration, memberships).view) throw notFound('Integration');
  return integration;
}

/** The integrations presented, with their owners loaded in one query. */
async function present(ctx: Ctx, integrations: Integration[], memberships: Memberships) {
  const owners = await ctx.em.find(Organization, { id: { $in: [...new Set(integrations.map((i) => i.ownerId))] } });
  const byId = new Map(owners.map((o) => [o.id, o]));
  const urls = urlsOf(ctx);
  return integrations.map((i) => presentIntegration(i, byId.get(i.ownerId)!, memberships, urls));
}

/** The organization named in a body, which the caller must administer: 404 on `organization` when they are not a member. */
async function requireBodyOrganization(ctx: Ctx, organizationId: string | undefined, action: string): Promise<string> {
  if (!organizationId) throw notFound('organization: organization');
  await requireOrganization(ctx, organizationId, 'admin', action).catch((error: unknown) => {
    throw error instanceof HttpError && error.statusCode === 404 ? notFound('organization: organization') : error;
  });
  return organizationId;
}

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

export async function listIntegrations(ctx: Ctx, query: Static<typeof ListIntegrationsQuery>) {
  const memberships = await membershipsOf(ctx);
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
  const page = await paginateEntity(ctx.em, Integration, { $and: and }, [{ field: 'name', kind: 'string' }], query, (i) => i);
  return { ...page, items: await present(ctx, page.items, memberships) };
}

export async function getIntegration(ctx: Ctx, name: string) {
  const memberships = await membershipsOf(ctx);
  return (await present(ctx, [await loadIntegration(ctx, name, memberships)], memberships))[0];
}

/** The icon and preview images of a publish body, decoded and checked (400 with the field that is wrong). */
function imagesOf(body: Static<typeof PublishBody>): Image[] {
  const images: Image[] = [];
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
  return images;
}

/** The columns a publication sets (the whole definition), after the checks the schema cannot make. */
function definitionOf(body: Static<typeof PublishBody>) {
  const configurations = (body.configurations ?? {}) as Record<string, ConfigurationSchema | undefined>;
  const problem = checkConfigurations(configurations);
  if (problem) throw badRequest(problem);
  for (const key of Object.keys(body.secrets ?? {})) {
    if (!/^[A-Za-z0-9_.-]{1,100}$/.test(key))
      throw badRequest(`secrets: the name "${key.slice(0, 100)}" must be 1 to 100 letters, digits, "_", "-" or "."`);
  }
  const blocks = body.blocks ?? [];
  const contentSources = body.contentSources ?? [];
  return {
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
}

/**
 * Publishes an integration for an organization the caller administers: creates it (version 1) or
 * replaces its whole definition and images (next version). Secrets stay unless new ones are given.
 * The name belongs to the organization that published it first.
 */
export async function publishIntegration(ctx: Ctx, name: string, body: Static<typeof PublishBody>) {
  const organizationId = await requireBodyOrganization(
    ctx,
    await organizationIdOrSubdomain(ctx.em, body.organization),
    'publish integrations for this organization',
  );
  const images = imagesOf(body);
  const definition = definitionOf(body);
  const sealed =
    body.secrets === undefined ? undefined : (await ctx.deps.secrets()).seal(JSON.stringify(body.secrets), `integration:${name}`);
  try {
    await ctx.em.transactional(async (tx) => {
      const existing = await tx.findOne(Integration, { name }, { lockMode: LockMode.PESSIMISTIC_WRITE });
      if (existing && existing.ownerId !== organizationId) {
        throw conflict(`integrationName: "${name}" is already published by another organization`);
      }
      if (existing) {
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
    if (error instanceof UniqueConstraintViolationException)
      throw conflict(`integrationName: "${name}" was published at the same time by another request; try again`);
    throw error;
  }
  ctx.em.clear();
  const memberships = await membershipsOf(ctx);
  return (await present(ctx, [await ctx.em.findOneOrFail(Integration, { name })], memberships))[0];
}

/** Unpublishes an integration (admins of its owner); its installations and images go with it. */
export async function unpublishIntegration(ctx: Ctx, name: string): Promise<void> {
  const memberships = await membershipsOf(ctx);
  const integration = await loadIntegration(ctx, name, memberships);
  if (!integrationAccess(integration, memberships).admin)
    throw forbidden('You need the admin role in the organization that owns this integration to unpublish it');
  // Installations and images reference the integration with `on delete cascade`.
  await ctx.em.nativeDelete(Integration, { name: integration.name });
}

/** The icon or a preview image of an integration the caller may see. */
export async function getAsset(ctx: Ctx, name: string, asset: string) {
  await loadIntegration(ctx, name, await membershipsOf(ctx));
  const row = await ctx.em.findOne(IntegrationAsset, { integrationName: name, asset });
  if (!row) throw notFound('Image');
  return { contentType: row.contentType, data: row.data };
}

/** All installations for admins of the owner; otherwise those in organizations the caller administers. */
export async function listInstallations(ctx: Ctx, name: string, query: Static<typeof ListInstallationsQuery>) {
  const memberships = await membershipsOf(ctx);
  const integration = await loadIntegration(ctx, name, memberships);
  const where: FilterQuery<IntegrationInstallation>[] = [{ integrationName: integration.name }];
  if (!integrationAccess(integration, memberships).admin) {
    where.push({ organizationId: { $in: [...memberships].filter(([, role]) => atLeast(role, 'admin')).map(([id]) => id) } });
  }
  if (query.externalId !== undefined) where.push({ externalIds: { $contains: [query.externalId] } });
  const urls = urlsOf(ctx);
  return paginateEntity(
    ctx.em,
    IntegrationInstallation,
    { $and: where },
    [
      { field: 'createdAt', kind: 'date' },
      { field: 'id', kind: 'string' },
    ],
    query,
    (i) => presentInstallation(i, urls),
  );
}

const accountConfiguration = (integration: Integration) => (integration.configurations as { account?: ConfigurationSchema }).account;

/** Installs an integration in an organization the caller administers (a private one only in its owner). */
export async function install(ctx: Ctx, name: string, body: Static<typeof InstallBody>) {
  const memberships = await membershipsOf(ctx);
  const integration = await loadIntegration(ctx, name, memberships);
  await requireBodyOrganization(ctx, body.organization, 'install integrations in this organization');
  if (integration.visibility === 'private' && body.organization !== integration.ownerId) {
    throw forbidden('This integration is private: it can only be installed in the organization that owns it');
  }
  const account = accountConfiguration(integration);
  if (body.configuration !== undefined) {
    const problem = checkConfiguration(account, body.configuration);
    if (problem) throw badRequest(problem);
  }
  const now = new Date();
  const installation = ctx.em.create(IntegrationInstallation, {
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
    await ctx.em.flush();
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException)
      throw conflict(`organization: "${integration.name}" is already installed in this organization`);
    throw error;
  }
  return presentInstallation(installation, urlsOf(ctx));
}

/** An installation the caller may see: admins of its organization and of the integration's owner; 404 for others outside it. */
async function loadInstallation(ctx: Ctx, ref: InstallationRef, action: 'read' | 'manage') {
  const memberships = await membershipsOf(ctx);
  const integration = await loadIntegration(ctx, ref.integrationName, memberships);
  const installation = await ctx.em.findOne(IntegrationInstallation, { id: ref.installationId, integrationName: integration.name });
  if (!installation) throw notFound('Installation');
  const role = memberships.get(installation.organizationId);
  const ownerAdmin = integrationAccess(integration, memberships).admin;
  if (action === 'read' && ownerAdmin) return { integration, installation };
  if (!memberships.has(installation.organizationId)) throw notFound('Installation');
  requireRole(
    role ?? null,
    'admin',
    action === 'read' ? 'see the installations of this organization' : 'manage the installations of this organization',
  );
  return { integration, installation };
}

export async function getInstallation(ctx: Ctx, ref: InstallationRef) {
  const { installation } = await loadInstallation(ctx, ref, 'read');
  return presentInstallation(installation, urlsOf(ctx));
}

/** A configuration that passes the integration's account schema activates a pending installation. */
export async function updateInstallation(ctx: Ctx, ref: InstallationRef, body: Static<typeof UpdateInstallationBody>) {
  const { integration, installation } = await loadInstallation(ctx, ref, 'manage');
  if (body.configuration !== undefined) {
    const problem = checkConfiguration(accountConfiguration(integration), body.configuration);
    if (problem) throw badRequest(problem);
    installation.configuration = body.configuration;
    if (installation.status === 'pending') installation.status = 'active';
  }
  if (body.externalIds !== undefined) installation.externalIds = body.externalIds;
  if (body.space_selection !== undefined) installation.spaceSelection = body.space_selection;
  if (body.site_selection !== undefined) installation.siteSelection = body.site_selection;
  installation.updatedAt = new Date();
  await ctx.em.flush();
  return presentInstallation(installation, urlsOf(ctx));
}

export async function uninstall(ctx: Ctx, ref: InstallationRef): Promise<void> {
  const { installation } = await loadInstallation(ctx, ref, 'manage');
  await ctx.em.nativeDelete(IntegrationInstallation, { id: installation.id });
}

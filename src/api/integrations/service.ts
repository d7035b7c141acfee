import type { Static } from 'typebox';
import { isUniqueViolation } from '../../db/health.ts';
import {
  createInstallation,
  deleteInstallation,
  deleteIntegration,
  findAsset,
  findInstallation,
  findIntegration,
  installationListing,
  installationRow,
  integrationListing,
  spaceInstallationCounts,
  integrationRow,
  lockIntegration,
  organizationIdOrSubdomain,
  setDevelopmentMode as setDevelopmentModeRow,
  updateInstallation as writeInstallation,
  writePublication,
  type InstallationRow,
  type IntegrationRow,
} from '../../db/integrations.ts';
import { transaction, type Em } from '../../db/orm.ts';
import { raiseFor, type RaisedFor } from '../../db/integration-events.ts';
import { announceIntegrationEvents } from '../../temporal/integration-events.ts';
import { enabledMemberships, organizationsByIds } from '../../db/organizations.ts';
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
import { paginate } from '../pagination.ts';
import { urlsFor } from '../object-urls.ts';
import { liveSpaceCounts } from '../../db/spaces.ts';
import { organizationFacts } from '../orgs/service.ts';
import { presentInstallation, presentIntegration, type Memberships } from './present.ts';
import type {
  DevelopmentModeBody,
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

/** The caller's memberships within their token's scope (none for a token acting as an installation). */
export async function membershipsOf(ctx: Ctx): Promise<Map<string, Role | null>> {
  const rows = await enabledMemberships(ctx.em, ctx.caller.user.id);
  return new Map(rows.filter((m) => inScope(ctx.caller, m.organizationId)).map((m) => [m.organizationId, isRole(m.role) ? m.role : null]));
}

/**
 * An integration the caller may see (see domain/integrations.ts for the visibility rule), and a
 * token acting as one of its installations sees its own; 404 otherwise.
 */
export async function loadIntegration(ctx: Ctx, name: string, memberships: Memberships) {
  const integration = await findIntegration(ctx.em, name);
  const own = ctx.caller.installation?.integrationName === integration?.name;
  if (!integration || !(own || integrationAccess(integration, memberships).view)) throw notFound('Integration');
  return integration;
}

/** The integrations presented, with their owners loaded in one query. */
export async function present(ctx: Ctx, integrations: IntegrationRow[], memberships: Memberships) {
  const owners = await organizationsByIds(
    ctx.em,
    integrations.map((i) => i.ownerId),
  );
  const byId = new Map(owners.map((o) => [o.id, o]));
  const facts = await organizationFacts(
    ctx.em,
    owners.map((o) => o.id),
  );
  const urls = urlsOf(ctx);
  return integrations.map((i) => presentIntegration(i, { row: byId.get(i.ownerId)!, facts: facts.get(i.ownerId)! }, memberships, urls));
}

/**
 * The number of spaces each installation manages: every live space of its organization when its
 * space selection is `all`; with `selected`, the live spaces it is enabled on (space installations).
 */
async function managedSpaces(em: Em, installations: InstallationRow[]): Promise<number[]> {
  const [counts, selected] = await Promise.all([
    liveSpaceCounts(
      em,
      installations.filter((i) => i.spaceSelection === 'all').map((i) => i.organizationId),
    ),
    spaceInstallationCounts(
      em,
      installations.filter((i) => i.spaceSelection !== 'all').map((i) => i.id),
    ),
  ]);
  return installations.map((i) => (i.spaceSelection === 'all' ? (counts.get(i.organizationId) ?? 0) : (selected.get(i.id) ?? 0)));
}

/** Installations presented with the number of spaces they manage. */
export async function presentInstallations(ctx: Ctx, installations: InstallationRow[]) {
  const spaces = await managedSpaces(ctx.em, installations);
  const urls = urlsOf(ctx);
  return installations.map((installation, i) => presentInstallation(installation, spaces[i], urls));
}

async function presentOneInstallation(ctx: Ctx, installation: InstallationRow) {
  return (await presentInstallations(ctx, [installation]))[0];
}

/** The organization named in a body, which the caller must administer: 404 on `organization` when they are not a member. */
async function requireBodyOrganization(ctx: Ctx, organizationId: string | undefined, action: string): Promise<string> {
  if (!organizationId) throw notFound('organization: organization');
  await requireOrganization(ctx, organizationId, 'admin', action).catch((error: unknown) => {
    throw error instanceof HttpError && error.statusCode === 404 ? notFound('organization: organization') : error;
  });
  return organizationId;
}

export async function listIntegrations(ctx: Ctx, query: Static<typeof ListIntegrationsQuery>) {
  const memberships = await membershipsOf(ctx);
  const listing = integrationListing(ctx.em, {
    memberOf: [...memberships.keys()],
    search: query.search,
    category: query.category,
    scope: query.scope,
    blockDomain: query.blockDomain?.toLowerCase(),
    blocks: query.blocks,
    contentSources: query.contentSources,
    owner: query.owner,
    target: query.target,
  });
  return paginate(ctx.em, listing, query, (rows) => present(ctx, rows.map(integrationRow), memberships));
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
    await transaction(ctx.em, async (tx) => {
      const existing = await lockIntegration(tx, name);
      if (existing && existing.ownerId !== organizationId) {
        throw conflict(`integrationName: "${name}" is already published by another organization`);
      }
      await writePublication(tx, {
        name,
        ownerId: organizationId,
        version: existing ? existing.version + 1 : 1,
        created: !existing,
        definition,
        secretsSealed: sealed,
        images,
      });
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict(`integrationName: "${name}" was published at the same time by another request; try again`);
    throw error;
  }
  const memberships = await membershipsOf(ctx);
  return (await present(ctx, [(await findIntegration(ctx.em, name))!], memberships))[0];
}

/** Unpublishes an integration (admins of its owner); its installations and images go with it. */
export async function unpublishIntegration(ctx: Ctx, name: string): Promise<void> {
  const memberships = await membershipsOf(ctx);
  const integration = await loadIntegration(ctx, name, memberships);
  if (!integrationAccess(integration, memberships).admin)
    throw forbidden('You need the admin role in the organization that owns this integration to unpublish it');
  // Installations and images reference the integration with `on delete cascade`.
  await deleteIntegration(ctx.em, integration.name);
}

/**
 * Development mode (`gitbook dev`, for admins of the owner, as publishing is): the integration's
 * events go to the integrator's tunnel (the owner organization's, or every organization's with
 * `all`), or, with null, to its published script again. The tunnel must be an http or https URL;
 * each dispatch to it goes through the fetch guard (docs/integrations.md).
 */
export async function setDevelopmentMode(ctx: Ctx, name: string, mode: Static<typeof DevelopmentModeBody> | null): Promise<void> {
  const memberships = await membershipsOf(ctx);
  const integration = await loadIntegration(ctx, name, memberships);
  if (!integrationAccess(integration, memberships).admin)
    throw forbidden('You need the admin role in the organization that owns this integration to change its development mode');
  if (mode && !isHttpUrl(mode.tunnelUrl)) throw badRequest('tunnelUrl must be an http or https URL');
  await setDevelopmentModeRow(ctx.em, integration.name, mode && { tunnelUrl: mode.tunnelUrl, all: mode.all ?? false });
}

const isHttpUrl = (value: string): boolean => {
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
};

/** The icon or a preview image of an integration the caller may see. */
export async function getAsset(ctx: Ctx, name: string, asset: string) {
  await loadIntegration(ctx, name, await membershipsOf(ctx));
  const row = await findAsset(ctx.em, name, asset);
  if (!row) throw notFound('Image');
  return { contentType: row.contentType, data: row.data };
}

/** All installations for admins of the owner; otherwise those in organizations the caller administers. */
export async function listInstallations(ctx: Ctx, name: string, query: Static<typeof ListInstallationsQuery>) {
  const memberships = await membershipsOf(ctx);
  const integration = await loadIntegration(ctx, name, memberships);
  const organizationIds = readableOrganizations(ctx, integration, memberships);
  return paginate(ctx.em, installationListing(ctx.em, integration.name, { organizationIds, externalId: query.externalId }), query, (rows) =>
    presentInstallations(ctx, rows.map(installationRow)),
  );
}

/**
 * The organizations whose installations of an integration the caller reads: every one (undefined)
 * for admins of its owner; its own for a token acting as an installation; otherwise those the
 * caller administers.
 */
export function readableOrganizations(ctx: Ctx, integration: IntegrationRow, memberships: Memberships): string[] | undefined {
  const grant = ctx.caller.installation;
  if (grant) return grant.integrationName === integration.name ? [grant.organizationId] : [];
  if (integrationAccess(integration, memberships).admin) return undefined;
  return [...memberships].filter(([, role]) => atLeast(role, 'admin')).map(([id]) => id);
}

const accountConfiguration = (integration: IntegrationRow) => (integration.configurations as { account?: ConfigurationSchema }).account;

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
  let raised: RaisedFor[] = [];
  const installation = await transaction(ctx.em, async (tx) => {
    const created = await createInstallation(tx, {
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
    if (!created) throw conflict(`organization: "${integration.name}" is already installed in this organization`);
    raised = await raiseFor(tx, [receiverOf(created)], 'installation_setup', { status: created.status });
    return created;
  });
  await announce(ctx, raised);
  return presentOneInstallation(ctx, installation);
}

/** An installation as the receiver of its own setup events. */
export function receiverOf(installation: { id: string; integrationName: string; organizationId: string }) {
  return { installationId: installation.id, integrationName: installation.integrationName, organizationId: installation.organizationId };
}

/**
 * Starts the delivery of events a committed write raised. A start that fails is logged, not
 * answered: the write holds, and the integration events' sweep starts the delivery a minute later.
 */
export async function announce(ctx: Ctx, raised: RaisedFor[]): Promise<void> {
  if (raised.length === 0) return;
  try {
    await announceIntegrationEvents(ctx.deps.temporal, ctx.deps.config.temporalTaskQueue, raised);
  } catch (error) {
    ctx.log.warn({ err: error }, 'integration events: starting their delivery failed; the sweep will start it');
  }
}

/**
 * An installation the caller may see: admins of its organization and of the integration's owner,
 * and a token acting as that installation (on the routes that admit one); 404 for others outside it.
 */
export async function loadInstallation(ctx: Ctx, ref: InstallationRef, action: 'read' | 'manage') {
  const memberships = await membershipsOf(ctx);
  const integration = await loadIntegration(ctx, ref.integrationName, memberships);
  const installation = await findInstallation(ctx.em, integration.name, ref.installationId);
  if (!installation) throw notFound('Installation');
  const grant = ctx.caller.installation;
  if (grant) {
    if (grant.installationId !== installation.id) throw notFound('Installation');
    return { integration, installation };
  }
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
  return presentOneInstallation(ctx, installation);
}

/** A configuration that passes the integration's account schema activates a pending installation. */
export async function updateInstallation(ctx: Ctx, ref: InstallationRef, body: Static<typeof UpdateInstallationBody>) {
  const { integration, installation } = await loadInstallation(ctx, ref, 'manage');
  // Which spaces and sites an installation reaches is its organization's choice, never its own.
  if (ctx.caller.installation && (body.space_selection !== undefined || body.site_selection !== undefined)) {
    throw forbidden("An installation's token cannot change which spaces or sites the installation reaches");
  }
  const changes: Parameters<typeof writeInstallation>[2] = {};
  if (body.configuration !== undefined) {
    const problem = checkConfiguration(accountConfiguration(integration), body.configuration);
    if (problem) throw badRequest(problem);
    changes.configuration = body.configuration;
    if (installation.status === 'pending') changes.status = 'active';
  }
  if (body.externalIds !== undefined) changes.externalIds = body.externalIds;
  if (body.space_selection !== undefined) changes.spaceSelection = body.space_selection;
  if (body.site_selection !== undefined) changes.siteSelection = body.site_selection;
  let raised: RaisedFor[] = [];
  const updated = await transaction(ctx.em, async (tx) => {
    const written = await writeInstallation(tx, installation.id, changes, new Date());
    raised = await raiseFor(tx, [receiverOf(installation)], 'installation_setup', {
      status: written.status,
      previous: { status: installation.status, configuration: installation.configuration },
    });
    return written;
  });
  await announce(ctx, raised);
  return presentOneInstallation(ctx, updated);
}

/**
 * Removes an installation from its organization, with its spaces and sites; the integration is told
 * (GitBook's `installation_deleted`, with the configuration it had), without an installation's token:
 * there is no installation left to act as.
 */
export async function uninstall(ctx: Ctx, ref: InstallationRef): Promise<void> {
  const { installation } = await loadInstallation(ctx, ref, 'manage');
  const raised = await transaction(ctx.em, async (tx) => {
    await deleteInstallation(tx, installation.id);
    return raiseFor(tx, [receiverOf(installation)], 'installation_deleted', { previous: { configuration: installation.configuration } });
  });
  await announce(ctx, raised);
}

import type { Static } from 'typebox';
import {
  contentInstallationListing,
  contentInstallationRow,
  createContentInstallation,
  deleteContentInstallation,
  findContentInstallation,
  findInstallation,
  insertInstallationToken,
  liveSpaceOrganization,
  updateContentInstallation,
  type ContentInstallationRow,
  type ContentKind,
  type InstallationRow,
  type IntegrationRow,
} from '../../db/integrations.ts';
import { siteById } from '../../db/sites.ts';
import { hashToken, newId, newInstallationToken } from '../../domain/ids.ts';
import { checkConfiguration, integrationAccess, needsConfiguration, type ConfigurationSchema } from '../../domain/integrations.ts';
import { loadSpace, requireRole } from '../access.ts';
import type { Ctx } from '../context.ts';
import { badRequest, conflict, forbidden, notFound } from '../errors.ts';
import { urlsFor } from '../object-urls.ts';
import { paginate } from '../pagination.ts';
import { requireSite } from '../sites/site-access.ts';
import { getSite } from '../sites/lifecycle.ts';
import { getSpace } from '../spaces/service.ts';
import { presentContentInstallation } from './present.ts';
import type {
  InstallationParams,
  ListContentInstallationsQuery,
  ListIntegrationContentInstallationsQuery,
  SiteInstallationParams,
  SpaceInstallationParams,
  UpdateContentInstallationBody,
} from './schemas.ts';
import { announce, loadInstallation, loadIntegration, membershipsOf, readableOrganizations, receiverOf } from './service.ts';
import { raiseFor, type RaisedFor } from '../../db/integration-events.ts';
import { transaction, type Em } from '../../db/orm.ts';

/**
 * Where an organization's installation is enabled (its spaces and sites, each with a configuration
 * of its own, checked against what the integration declares for that level), and the temporary
 * tokens that act as an installation.
 *
 * Who may do what:
 * - Reading space and site installations: whoever reads the installation (admins of its
 *   organization, admins of the integration's owner, a token acting as it).
 * - Enabling, configuring and removing one: a member with the admin role on that space or site
 *   (organization admins have it everywhere); a token acting as the installation configures it on
 *   the spaces and sites it already reaches (all of them when its selection is `all`), never
 *   beyond them, and never removes it.
 * - Minting a token acting as an installation: admins of the organization that owns the integration.
 */

type InstallationRef = Static<typeof InstallationParams>;
type UpdateBody = Static<typeof UpdateContentInstallationBody>;

/** How long a token acting as an installation works (GitBook's APITemporaryToken is temporary). */
export const INSTALLATION_TOKEN_TTL_MS = 60 * 60 * 1000;

const urlsOf = (ctx: Ctx) => urlsFor(ctx.deps.config.publicUrl);

const declared = (integration: IntegrationRow, kind: ContentKind) =>
  (integration.configurations as Partial<Record<ContentKind, ConfigurationSchema>>)[kind];

/**
 * The space or site an installation is being enabled on or configured for, which the caller may
 * manage: 404 when it is not one of the installation's organization (or the caller cannot see it),
 * 403 below the admin role on it. A token acting as the installation manages the ones it reaches.
 */
async function requireManagedTarget(ctx: Ctx, kind: ContentKind, installation: InstallationRow, targetId: string): Promise<void> {
  const grant = ctx.caller.installation;
  const what = kind === 'space' ? 'Space' : 'Site';
  if (grant) {
    const exists =
      kind === 'space'
        ? (await liveSpaceOrganization(ctx.em, targetId)) === installation.organizationId
        : (await siteById(ctx.em, installation.organizationId, targetId)) !== undefined;
    const reach = kind === 'space' ? grant.spaces : grant.sites;
    if (!exists || (reach !== 'all' && !reach.includes(targetId))) throw notFound(what);
    return;
  }
  if (kind === 'space') {
    const { space, role } = await loadSpace(ctx.em, ctx.caller, targetId);
    if (space.organizationId !== installation.organizationId) throw notFound('Space');
    requireRole(role, 'admin', 'manage the integrations of this space');
  } else {
    await requireSite(ctx, installation.organizationId, targetId, 'admin', 'manage the integrations of this site');
  }
}

/**
 * The installation for a change on one of its spaces or sites, and the check that the caller
 * manages that space or site. Space and site admins manage their integrations without being
 * organization admins, so any member of the installation's organization finds it (404 for
 * everyone else); a token acting as an installation finds only its own.
 */
async function installationForTarget(ctx: Ctx, ref: InstallationRef, kind: ContentKind, targetId: string) {
  if (ctx.caller.installation) {
    const own = await loadInstallation(ctx, ref, 'read');
    await requireManagedTarget(ctx, kind, own.installation, targetId);
    return own;
  }
  const memberships = await membershipsOf(ctx);
  const integration = await loadIntegration(ctx, ref.integrationName, memberships);
  const installation = await findInstallation(ctx.em, integration.name, ref.installationId);
  if (!installation || !memberships.has(installation.organizationId)) throw notFound('Installation');
  await requireManagedTarget(ctx, kind, installation, targetId);
  return { integration, installation };
}

/** The space or site objects of the rows when `extended` (each as the caller would read it alone), their IDs otherwise. */
async function targetsOf(ctx: Ctx, kind: ContentKind, rows: ContentInstallationRow[], extended: boolean | undefined): Promise<unknown[]> {
  if (!extended) return rows.map((row) => row.targetId);
  const out: unknown[] = [];
  for (const row of rows) {
    // Someone who reads the installation but not the space or site (an admin of the integration's owner) gets its ID.
    const read = kind === 'space' ? getSpace(ctx, row.targetId) : getSite(ctx, row.organizationId, row.targetId);
    out.push(await read.catch(() => row.targetId));
  }
  return out;
}

async function presentRows(ctx: Ctx, kind: ContentKind, rows: ContentInstallationRow[], extended: boolean | undefined) {
  const targets = await targetsOf(ctx, kind, rows, extended);
  const urls = urlsOf(ctx);
  return rows.map((row, i) => presentContentInstallation(kind, row, targets[i], urls));
}

/** The space or site installations of one installation (listIntegrationInstallationSpaces / Sites). */
export async function listInstallationTargets(
  ctx: Ctx,
  kind: ContentKind,
  ref: InstallationRef,
  query: Static<typeof ListContentInstallationsQuery>,
) {
  const { integration, installation } = await loadInstallation(ctx, ref, 'read');
  const listing = contentInstallationListing(ctx.em, kind, integration.name, { installationId: installation.id });
  return paginate(ctx.em, listing, query, (rows) => presentRows(ctx, kind, rows.map(contentInstallationRow), query.extended));
}

/** Every space or site installation of an integration the caller reads (listIntegrationSpaceInstallations / Sites). */
export async function listIntegrationTargets(
  ctx: Ctx,
  kind: ContentKind,
  name: string,
  query: Static<typeof ListIntegrationContentInstallationsQuery>,
) {
  const memberships = await membershipsOf(ctx);
  const integration = await loadIntegration(ctx, name, memberships);
  const organizationIds = readableOrganizations(ctx, integration, memberships);
  const listing = contentInstallationListing(ctx.em, kind, integration.name, { organizationIds, externalId: query.externalId });
  return paginate(ctx.em, listing, query, (rows) => presentRows(ctx, kind, rows.map(contentInstallationRow), query.extended));
}

/** One space or site installation; 404 when the installation is not enabled there. */
export async function getInstallationTarget(ctx: Ctx, kind: ContentKind, ref: InstallationRef, targetId: string, extended?: boolean) {
  const { installation } = await loadInstallation(ctx, ref, 'read');
  const row = await findContentInstallation(ctx.em, kind, installation.id, targetId);
  if (!row) throw notFound(kind === 'space' ? 'Space installation' : 'Site installation');
  return (await presentRows(ctx, kind, [row], extended))[0];
}

/** The changes a body makes to a space or site installation, its configuration checked against the integration's declared one. */
function changesOf(integration: IntegrationRow, kind: ContentKind, body: UpdateBody, current: ContentInstallationRow | undefined) {
  const changes: { configuration?: Record<string, unknown>; externalIds?: string[]; status?: string } = {};
  if (body.configuration !== undefined) {
    const problem = checkConfiguration(declared(integration, kind), body.configuration, kind);
    if (problem) throw badRequest(problem);
    changes.configuration = body.configuration;
    if (!current || current.status === 'pending') changes.status = 'active';
  }
  if (body.externalIds !== undefined) changes.externalIds = body.externalIds;
  return changes;
}

/** A new space or site installation: `pending` while the integration declares required properties there and none were given. */
async function enable(
  em: Em,
  kind: ContentKind,
  integration: IntegrationRow,
  installation: InstallationRow,
  targetId: string,
  body: UpdateBody,
) {
  const changes = changesOf(integration, kind, body, undefined);
  const now = new Date();
  return createContentInstallation(em, kind, {
    installationId: installation.id,
    integrationName: integration.name,
    organizationId: installation.organizationId,
    targetId,
    status: changes.status ?? (needsConfiguration(declared(integration, kind)) ? 'pending' : 'active'),
    configuration: changes.configuration ?? {},
    externalIds: changes.externalIds ?? [],
    createdAt: now,
    updatedAt: now,
  });
}

/**
 * Configures an installation on a space (updateIntegrationSpaceInstallation). GitBook has no other
 * operation enabling an installation on one space, so this one does it when it is not yet enabled
 * there: the space installation is created with the body.
 */
export async function updateSpaceInstallation(
  ctx: Ctx,
  params: Static<typeof SpaceInstallationParams>,
  body: UpdateBody,
  extended?: boolean,
) {
  const { integration, installation } = await installationForTarget(ctx, params, 'space', params.spaceId);
  const current = await findContentInstallation(ctx.em, 'space', installation.id, params.spaceId);
  let raised: RaisedFor[] = [];
  const row = await transaction(ctx.em, async (tx) => {
    const written = current
      ? await updateContentInstallation(
          tx,
          'space',
          installation.id,
          params.spaceId,
          changesOf(integration, 'space', body, current),
          new Date(),
        )
      : await enable(tx, 'space', integration, installation, params.spaceId, body);
    // Enabled by another request in between: this one is refused as a whole (asking again configures it).
    if (!written) throw conflict('The integration was enabled on this space at the same time by another request; try again');
    raised = await raiseFor(
      tx,
      [receiverOf(installation)],
      'space_installation_setup',
      setupFields('space', params.spaceId, written, current),
    );
    return written;
  });
  await announce(ctx, raised);
  return (await presentRows(ctx, 'space', [row], extended))[0];
}

/** The fields of a space or site setup event: the target, its status, and what it was before an update. */
function setupFields(kind: ContentKind, targetId: string, row: ContentInstallationRow, previous: ContentInstallationRow | undefined) {
  return {
    [kind === 'space' ? 'spaceId' : 'siteId']: targetId,
    status: row.status,
    ...(previous ? { previous: { status: previous.status, configuration: previous.configuration } } : {}),
  };
}

/** Enables an installation on a site of its organization (installIntegrationOnSite); 409 when it already is. */
export async function installOnSite(ctx: Ctx, ref: InstallationRef, siteId: string, extended?: boolean) {
  const { integration, installation } = await installationForTarget(ctx, ref, 'site', siteId);
  let raised: RaisedFor[] = [];
  const row = await transaction(ctx.em, async (tx) => {
    const enabled = await enable(tx, 'site', integration, installation, siteId, {});
    if (!enabled) throw conflict('siteId: the integration is already installed on this site');
    raised = await raiseFor(tx, [receiverOf(installation)], 'site_installation_setup', setupFields('site', siteId, enabled, undefined));
    return enabled;
  });
  await announce(ctx, raised);
  return (await presentRows(ctx, 'site', [row], extended))[0];
}

/** Configures an installation on a site it is enabled on (updateIntegrationSiteInstallation). */
export async function updateSiteInstallation(
  ctx: Ctx,
  params: Static<typeof SiteInstallationParams>,
  body: UpdateBody,
  extended?: boolean,
) {
  const { integration, installation } = await installationForTarget(ctx, params, 'site', params.siteId);
  const current = await findContentInstallation(ctx.em, 'site', installation.id, params.siteId);
  if (!current) throw notFound('Site installation');
  let raised: RaisedFor[] = [];
  const row = await transaction(ctx.em, async (tx) => {
    const written = await updateContentInstallation(
      tx,
      'site',
      installation.id,
      params.siteId,
      changesOf(integration, 'site', body, current),
      new Date(),
    );
    raised = await raiseFor(
      tx,
      [receiverOf(installation)],
      'site_installation_setup',
      setupFields('site', params.siteId, written, current),
    );
    return written;
  });
  await announce(ctx, raised);
  return (await presentRows(ctx, 'site', [row], extended))[0];
}

/**
 * Removes an installation from a space or site: true when it was enabled there (205, and the
 * installation is told: `space_installation_deleted` or `site_installation_deleted`), false when not (204).
 */
export async function uninstallFromTarget(ctx: Ctx, kind: ContentKind, ref: InstallationRef, targetId: string): Promise<boolean> {
  const { installation } = await installationForTarget(ctx, ref, kind, targetId);
  let raised: RaisedFor[] = [];
  const removed = await transaction(ctx.em, async (tx) => {
    const current = await findContentInstallation(tx, kind, installation.id, targetId);
    if (!current || !(await deleteContentInstallation(tx, kind, installation.id, targetId))) return false;
    // GitBook's space_installation_deleted / site_installation_deleted, with what it was configured with.
    raised = await raiseFor(tx, [receiverOf(installation)], kind === 'space' ? 'space_installation_deleted' : 'site_installation_deleted', {
      [kind === 'space' ? 'spaceId' : 'siteId']: targetId,
      previous: { configuration: current.configuration },
    });
    return true;
  });
  await announce(ctx, raised);
  return removed;
}

/**
 * Mints a temporary token acting as an installation (createIntegrationInstallationToken): for the
 * integration, that is for admins of the organization that owns it. Only its hash is stored; the
 * token works as long as the installation and the integration exist (api/auth.ts).
 */
export async function createInstallationToken(ctx: Ctx, ref: InstallationRef) {
  const memberships = await membershipsOf(ctx);
  const integration = await loadIntegration(ctx, ref.integrationName, memberships);
  if (!integrationAccess(integration, memberships).admin) {
    throw forbidden('You need the admin role in the organization that owns this integration to act as its installations');
  }
  const installation = await findInstallation(ctx.em, integration.name, ref.installationId);
  if (!installation) throw notFound('Installation');
  const token = newInstallationToken();
  const now = new Date();
  await insertInstallationToken(ctx.em, {
    id: newId(),
    installationId: installation.id,
    tokenHash: hashToken(token),
    createdBy: ctx.caller.user.id,
    createdAt: now,
    expiresAt: new Date(now.getTime() + INSTALLATION_TOKEN_TTL_MS),
  });
  return { token };
}

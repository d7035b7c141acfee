import type { Static } from 'typebox';
import {
  createProvider as insertProvider,
  deleteProvider as removeProvider,
  findProviderOf,
  isTeamOf,
  providerListing,
  providerRow,
  providersOf,
  teamSummaries,
  updateProvider as writeProvider,
  type SamlProviderChanges,
  type SamlProviderRow,
} from '../../db/saml.ts';
import { newId } from '../../domain/ids.ts';
import type { Role } from '../../domain/roles.ts';
import { normalizeCertificate, providerStatus } from '../../domain/saml.ts';
import { requireOrganization } from '../access.ts';
import type { Ctx } from '../context.ts';
import { badRequest, notFound } from '../errors.ts';
import { paginate } from '../pagination.ts';
import type { ListQuery } from '../schemas.ts';
import { urlsFor } from '../object-urls.ts';
import { presentProvider, presentSsoLogin } from './present.ts';
import type { CreateSamlProviderBody, ProviderParams, UpdateSamlProviderBody } from './schemas.ts';

/**
 * SAML identity providers of an organization, managed by its admins, and the sign-in choices of
 * its members. The sign-in itself is in src/api/sso/.
 */

type ProviderRef = Static<typeof ProviderParams>;
type Fields = Static<typeof UpdateSamlProviderBody>;
type Changes = SamlProviderChanges;

const MANAGE = 'manage SAML providers';

/** Checks what the schema cannot (URL scheme, certificate, team of this organization) and maps fields to columns. */
async function changesFrom(ctx: Ctx, organizationId: string, body: Fields): Promise<Changes> {
  const changes: Changes = {};
  if (body.label !== undefined) changes.label = body.label;
  if (body.ssoURL !== undefined) {
    let protocol = '';
    try {
      protocol = new URL(body.ssoURL).protocol;
    } catch {
      // the schema's uri format already refused it; keep the message the same
    }
    if (protocol !== 'http:' && protocol !== 'https:') throw badRequest('body.ssoURL must be an http or https URL');
    changes.ssoUrl = body.ssoURL;
  }
  if (body.entityID !== undefined) changes.entityId = body.entityID.trim() || null;
  if (body.certificate !== undefined) {
    if (body.certificate.trim() === '') {
      changes.certificate = null;
    } else {
      const parsed = normalizeCertificate(body.certificate);
      if ('error' in parsed) throw badRequest(`body.${parsed.error}`);
      changes.certificate = parsed.pem;
    }
  }
  if (body.defaultTeam !== undefined) {
    if (body.defaultTeam === null) {
      changes.defaultTeamId = null;
    } else {
      if (!(await isTeamOf(ctx.em, body.defaultTeam, organizationId))) throw notFound('defaultTeam: team');
      changes.defaultTeamId = body.defaultTeam;
    }
  }
  if (body.defaultRole !== undefined) changes.defaultRole = body.defaultRole;
  return changes;
}

/** The providers presented, with their default teams loaded in one query. */
async function present(ctx: Ctx, providers: SamlProviderRow[], role: Role | null) {
  const teams = await teamSummaries(
    ctx.em,
    providers.map((p) => p.defaultTeamId),
  );
  const urls = urlsFor(ctx.deps.config.publicUrl);
  return providers.map((p) => presentProvider(p, p.defaultTeamId ? teams.get(p.defaultTeamId) : undefined, role, urls));
}

/** A provider of an organization the caller administers; 404 otherwise (403 below admin). */
async function loadProvider(ctx: Ctx, ref: ProviderRef) {
  const { role } = await requireOrganization(ctx, ref.organizationId, 'admin', MANAGE);
  const provider = await findProviderOf(ctx.em, ref.organizationId, ref.samlProviderId);
  if (!provider) throw notFound('SAML provider');
  return { provider, role };
}

export async function listProviders(ctx: Ctx, organizationId: string, query: Static<typeof ListQuery>) {
  const { role } = await requireOrganization(ctx, organizationId, 'admin', MANAGE);
  return paginate(ctx.em, providerListing(ctx.em, organizationId), query, (rows) => present(ctx, rows.map(providerRow), role));
}

export async function createProvider(ctx: Ctx, organizationId: string, body: Static<typeof CreateSamlProviderBody>) {
  const { role } = await requireOrganization(ctx, organizationId, 'admin', MANAGE);
  const changes = await changesFrom(ctx, organizationId, body);
  const provider = await insertProvider(ctx.em, { id: newId(), organizationId, label: body.label, ...changes }, new Date());
  return (await present(ctx, [provider], role))[0];
}

export async function getProvider(ctx: Ctx, ref: ProviderRef) {
  const { provider, role } = await loadProvider(ctx, ref);
  return (await present(ctx, [provider], role))[0];
}

export async function updateProvider(ctx: Ctx, ref: ProviderRef, body: Fields) {
  const { provider, role } = await loadProvider(ctx, ref);
  const changes = await changesFrom(ctx, ref.organizationId, body);
  const updated = await writeProvider(ctx.em, provider.id, changes, new Date());
  return (await present(ctx, [updated!], role))[0];
}

/** Members who joined through the provider stay members. */
export async function deleteProvider(ctx: Ctx, ref: ProviderRef): Promise<void> {
  const { provider } = await loadProvider(ctx, ref);
  await removeProvider(ctx.em, provider.id);
}

/** How members (guests included) can sign in to the organization: its active providers, oldest first. */
export async function listSsoLogins(ctx: Ctx, organizationId: string) {
  await requireOrganization(ctx, organizationId);
  const providers = await providersOf(ctx.em, organizationId);
  const urls = urlsFor(ctx.deps.config.publicUrl);
  return { items: providers.filter((p) => providerStatus(p) === 'active').map((p) => presentSsoLogin(p, urls)) };
}

import type { Static } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { SamlProvider } from '../../db/saml-entities.ts';
import type { Em } from '../../db/orm.ts';
import { newId } from '../../domain/ids.ts';
import type { Role } from '../../domain/roles.ts';
import { normalizeCertificate, providerStatus } from '../../domain/saml.ts';
import { loadOrganization, requireRole } from '../access.ts';
import { badRequest, notFound } from '../errors.ts';
import { paginate } from '../pagination.ts';
import { errors, ListQuery, NoContent } from '../schemas.ts';
import { urlsFor } from '../urls.ts';
import { loadTeams, presentProvider } from './present.ts';
import {
  CreateSamlProviderBody, OrgParams, ProviderParams, SamlProviderList, SamlProviderSchema, SsoLoginList, UpdateSamlProviderBody,
} from './schemas.ts';

type Fields = Static<typeof UpdateSamlProviderBody>;
type Changes = Partial<Pick<SamlProvider, 'label' | 'ssoUrl' | 'entityId' | 'certificate' | 'defaultTeamId' | 'defaultRole'>>;

/** Checks what the schema cannot (URL scheme, certificate, team of this organization) and maps fields to columns. */
async function changesFrom(em: Em, organizationId: string, body: Fields): Promise<Changes> {
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
      const rows = await em.getConnection().execute<{ id: string }[]>('select id from team where id = ? and organization_id = ?', [body.defaultTeam, organizationId]);
      if (rows.length === 0) throw notFound('defaultTeam: team');
      changes.defaultTeamId = body.defaultTeam;
    }
  }
  if (body.defaultRole !== undefined) changes.defaultRole = body.defaultRole;
  return changes;
}

async function loadProvider(em: Em, organizationId: string, id: string) {
  const provider = await em.findOne(SamlProvider, { id, organizationId });
  if (!provider) throw notFound('SAML provider');
  return provider;
}

/** SAML identity providers of an organization (managed by its admins) and the sign-in choices of its members. */
export async function samlRoutes(app: FastifyInstance) {
  const urls = urlsFor(app.deps.config.publicUrl);
  const tags = ['saml'];

  const present = async (em: Em, provider: SamlProvider, role: Role | null) => {
    const teams = await loadTeams(em, [provider.defaultTeamId]);
    return presentProvider(provider, provider.defaultTeamId ? teams.get(provider.defaultTeamId) : undefined, role, urls);
  };

  app.get('/v1/orgs/:organizationId/saml', {
    schema: { tags, summary: 'List the SAML providers of an organization (admins)', params: OrgParams, querystring: ListQuery, response: { 200: SamlProviderList, ...errors(403, 404) } },
  }, async (request) => {
    const { organizationId } = request.params as Static<typeof OrgParams>;
    const { em, caller } = request;
    const { role } = await loadOrganization(em, caller, organizationId);
    requireRole(role, 'admin', 'manage SAML providers');
    const page = await paginate(em, SamlProvider, { organizationId }, [{ field: 'createdAt', kind: 'date' }, { field: 'id', kind: 'string' }], request.query as Static<typeof ListQuery>, (p) => p);
    const teams = await loadTeams(em, page.items.map((p) => p.defaultTeamId));
    return { ...page, items: page.items.map((p) => presentProvider(p, p.defaultTeamId ? teams.get(p.defaultTeamId) : undefined, role, urls)) };
  });

  app.post('/v1/orgs/:organizationId/saml', {
    schema: { tags, summary: 'Add a SAML identity provider', params: OrgParams, body: CreateSamlProviderBody, response: { 201: SamlProviderSchema, ...errors(403, 404) } },
  }, async (request, reply) => {
    const { organizationId } = request.params as Static<typeof OrgParams>;
    const body = request.body as Static<typeof CreateSamlProviderBody>;
    const { em, caller } = request;
    const { role } = await loadOrganization(em, caller, organizationId);
    requireRole(role, 'admin', 'manage SAML providers');
    const changes = await changesFrom(em, organizationId, body);
    const now = new Date();
    const provider = em.create(SamlProvider, {
      id: newId(),
      organizationId,
      label: body.label,
      ssoUrl: null,
      entityId: null,
      certificate: null,
      defaultTeamId: null,
      defaultRole: 'read',
      ...changes,
      createdAt: now,
      updatedAt: now,
    });
    await em.flush();
    const out = await present(em, provider, role);
    return reply.status(201).header('location', out.urls.location).send(out);
  });

  app.get('/v1/orgs/:organizationId/saml/:samlProviderId', {
    schema: { tags, summary: 'Get a SAML provider', params: ProviderParams, response: { 200: SamlProviderSchema, ...errors(403, 404) } },
  }, async (request) => {
    const { organizationId, samlProviderId } = request.params as Static<typeof ProviderParams>;
    const { em, caller } = request;
    const { role } = await loadOrganization(em, caller, organizationId);
    requireRole(role, 'admin', 'manage SAML providers');
    return present(em, await loadProvider(em, organizationId, samlProviderId), role);
  });

  app.patch('/v1/orgs/:organizationId/saml/:samlProviderId', {
    schema: { tags, summary: 'Update a SAML provider', params: ProviderParams, body: UpdateSamlProviderBody, response: { 200: SamlProviderSchema, ...errors(403, 404) } },
  }, async (request) => {
    const { organizationId, samlProviderId } = request.params as Static<typeof ProviderParams>;
    const { em, caller } = request;
    const { role } = await loadOrganization(em, caller, organizationId);
    requireRole(role, 'admin', 'manage SAML providers');
    const provider = await loadProvider(em, organizationId, samlProviderId);
    const changes = await changesFrom(em, organizationId, request.body as Fields);
    Object.assign(provider, changes, { updatedAt: new Date() });
    await em.flush();
    return present(em, provider, role);
  });

  app.delete('/v1/orgs/:organizationId/saml/:samlProviderId', {
    schema: { tags, summary: 'Remove a SAML provider; members who joined through it stay members', params: ProviderParams, response: { 204: NoContent, ...errors(403, 404) } },
  }, async (request, reply) => {
    const { organizationId, samlProviderId } = request.params as Static<typeof ProviderParams>;
    const { em, caller } = request;
    const { role } = await loadOrganization(em, caller, organizationId);
    requireRole(role, 'admin', 'manage SAML providers');
    const provider = await loadProvider(em, organizationId, samlProviderId);
    await em.nativeDelete(SamlProvider, { id: provider.id });
    return reply.status(204).send();
  });

  app.get('/v1/orgs/:organizationId/sso', {
    schema: { tags, summary: 'How members can sign in to this organization with single sign-on (active providers)', params: OrgParams, response: { 200: SsoLoginList, ...errors(404) } },
  }, async (request) => {
    const { organizationId } = request.params as Static<typeof OrgParams>;
    const { em, caller } = request;
    await loadOrganization(em, caller, organizationId);
    const providers = await em.find(SamlProvider, { organizationId }, { orderBy: { createdAt: 'asc', id: 'asc' } });
    return {
      items: providers
        .filter((p) => providerStatus(p) === 'active')
        .map((p) => ({ id: p.id, label: p.label, startURL: urls.samlService(p.id).startURL })),
    };
  });
}

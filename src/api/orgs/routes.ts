import type { FastifyInstance } from 'fastify';
import { Member, Organization } from '../../db/entities.ts';
import { isRole } from '../../domain/roles.ts';
import { loadOrganization } from '../access.ts';
import { paginate } from '../pagination.ts';
import { errors, ListQuery } from '../schemas.ts';
import { urlsFor } from '../urls.ts';
import { presentOrganization } from './present.ts';
import { OrganizationList, OrganizationSchema, OrgParams } from './schemas.ts';

export async function organizationRoutes(app: FastifyInstance) {
  const urls = urlsFor(app.deps.config.publicUrl);

  app.get('/v1/orgs', {
    schema: {
      tags: ['organizations'],
      summary: 'List the organizations of the authenticated user',
      querystring: ListQuery,
      response: { 200: OrganizationList, ...errors() },
    },
  }, async (request) => {
    const { em, caller } = request;
    const query = request.query as { page?: string; limit?: number };
    const page = await paginate(em, Member, { userId: caller.user.id, disabled: false }, [{ field: 'organizationId', kind: 'string' }], query, (m) => m);
    const orgs = await em.find(Organization, { id: { $in: page.items.map((m) => m.organizationId) } });
    const byId = new Map(orgs.map((o) => [o.id, o]));
    return {
      ...page,
      items: page.items.map((m) => presentOrganization(byId.get(m.organizationId)!, isRole(m.role) ? m.role : null, urls)),
    };
  });

  app.get('/v1/orgs/:organizationId', {
    schema: {
      tags: ['organizations'],
      summary: 'Get an organization',
      params: OrgParams,
      response: { 200: OrganizationSchema, ...errors(404) },
    },
  }, async (request) => {
    const { organizationId } = request.params as { organizationId: string };
    const { organization, role } = await loadOrganization(request.em, request.caller, organizationId);
    return presentOrganization(organization, role, urls);
  });
}

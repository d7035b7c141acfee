import type { Static } from 'typebox';
import { Member, Organization } from '../../db/entities.ts';
import { isRole } from '../../domain/roles.ts';
import { requireOrganization } from '../access.ts';
import type { Ctx } from '../context.ts';
import { paginateEntity } from '../pagination.ts';
import type { ListQuery } from '../schemas.ts';
import { urlsFor } from '../object-urls.ts';
import { presentOrganization } from './present.ts';

/** Organizations as their members see them. */

const urlsOf = (ctx: Ctx) => urlsFor(ctx.deps.config.publicUrl);

/** The organizations the caller is an enabled member of (within the token's scope), in id order. */
export async function listOrganizations(ctx: Ctx, query: Static<typeof ListQuery>) {
  const { em, caller } = ctx;
  const page = await paginateEntity(
    em,
    Member,
    // A token minted by an organization's sign-in lists that organization only.
    { userId: caller.user.id, disabled: false, ...(caller.organizationId === null ? {} : { organizationId: caller.organizationId }) },
    [{ field: 'organizationId', kind: 'string' }],
    query,
    (m) => m,
  );
  const orgs = await em.find(Organization, { id: { $in: page.items.map((m) => m.organizationId) } });
  const byId = new Map(orgs.map((o) => [o.id, o]));
  return {
    ...page,
    items: page.items.map((m) => presentOrganization(byId.get(m.organizationId)!, isRole(m.role) ? m.role : null, urlsOf(ctx))),
  };
}

export async function getOrganization(ctx: Ctx, organizationId: string) {
  const { organization, role } = await requireOrganization(ctx, organizationId);
  return presentOrganization(organization, role, urlsOf(ctx));
}

import type { Static } from 'typebox';
import { membershipListing, organizationsByIds } from '../../db/organizations.ts';
import { isRole } from '../../domain/roles.ts';
import { requireOrganization } from '../access.ts';
import type { Ctx } from '../context.ts';
import { paginate } from '../pagination.ts';
import type { ListQuery } from '../schemas.ts';
import type { UpdateOrganizationBody } from './schemas.ts';
import { setOrganizationMergeRules } from '../../db/merge-rules.ts';
import { MergeRulesError, parseMergeRules, type MergeRulesConfig } from '../../domain/merge-rules.ts';
import { badRequest } from '../errors.ts';
import { urlsFor } from '../object-urls.ts';
import { organizationsWithActiveInviteLinks } from '../../db/invites.ts';
import type { Em } from '../../db/orm.ts';
import { presentOrganization, type OrganizationFacts } from './present.ts';

/** Organizations as their members see them. */

const urlsOf = (ctx: Ctx) => urlsFor(ctx.deps.config.publicUrl);

/** What organizations are shown with beside their rows, by organization id, in one statement. */
export async function organizationFacts(em: Em, organizationIds: string[]): Promise<Map<string, OrganizationFacts>> {
  const withLinks = await organizationsWithActiveInviteLinks(em, organizationIds, new Date());
  return new Map(organizationIds.map((id) => [id, { inviteLinks: withLinks.has(id) }]));
}

async function factsOf(em: Em, organizationId: string): Promise<OrganizationFacts> {
  return (await organizationFacts(em, [organizationId])).get(organizationId)!;
}

/** The organizations the caller is an enabled member of (within the token's scope), in id order. */
export async function listOrganizations(ctx: Ctx, query: Static<typeof ListQuery>) {
  const { em, caller } = ctx;
  // A token minted by an organization's sign-in lists that organization only.
  return paginate(em, membershipListing(em, caller.user.id, caller.organizationId), query, async (memberships) => {
    const ids = memberships.map((m) => m.organizationId);
    const [orgs, facts] = await Promise.all([organizationsByIds(em, ids), organizationFacts(em, ids)]);
    const byId = new Map(orgs.map((o) => [o.id, o]));
    return memberships.map((m) =>
      presentOrganization(byId.get(m.organizationId)!, isRole(m.role) ? m.role : null, urlsOf(ctx), facts.get(m.organizationId)!),
    );
  });
}

export async function getOrganization(ctx: Ctx, organizationId: string) {
  const { organization, role } = await requireOrganization(ctx, organizationId);
  return presentOrganization(organization, role, urlsOf(ctx), await factsOf(ctx.em, organization.id));
}

/** The organization's merge rules (`none` or `rules`): admins only. */
export async function updateOrganization(ctx: Ctx, organizationId: string, body: Static<typeof UpdateOrganizationBody>) {
  const { organization, role } = await requireOrganization(ctx, organizationId, 'admin', 'change the merge rules of this organization');
  const mergeRules = mergeRulesOrBadRequest(() => parseMergeRules(body.mergeRules, 'organization'));
  await setOrganizationMergeRules(ctx.em, organization.id, mergeRules);
  return presentOrganization({ ...organization, mergeRules }, role, urlsOf(ctx), await factsOf(ctx.em, organization.id));
}

/** Runs parseMergeRules, answering 400 with its message when the configuration is wrong. */
export function mergeRulesOrBadRequest(parse: () => MergeRulesConfig): MergeRulesConfig {
  try {
    return parse();
  } catch (error) {
    if (error instanceof MergeRulesError) throw badRequest(error.message);
    throw error;
  }
}

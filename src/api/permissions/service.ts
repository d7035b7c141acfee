import type { Static } from 'typebox';
import type { ContentKind } from '../../db/access.ts';
import { transaction, type Em } from '../../db/orm.ts';
import {
  deleteGrant,
  existingPrincipals,
  teamGrantListing,
  updateGrant,
  upsertGrant,
  userGrantListing,
  type GrantTarget,
  type Principal,
} from '../../db/permissions.ts';
import { teamFacts } from '../../db/teams.ts';
import { newId } from '../../domain/ids.ts';
import type { Role } from '../../domain/roles.ts';
import { loadCollection, loadSpace, requireOrganization, requireRole } from '../access.ts';
import type { Ctx } from '../context.ts';
import { badRequest, notFound } from '../errors.ts';
import { paginate } from '../pagination.ts';
import type { ListQuery } from '../schemas.ts';
import { urlsFor } from '../object-urls.ts';
import { presentTeamGrant, presentUserGrant } from './present.ts';
import type { InviteBody, UpdateGrantBody } from './schemas.ts';

/**
 * Explicit grants of a role on a space or a collection to organization members and teams
 * (GitBook's space and collection permissions). Anyone who can see the object can list its grants;
 * changing them needs the admin role on the object. A grant on a collection reaches every
 * collection and space below it; the rule that combines grants with organization roles and default
 * levels is in ../access.ts.
 */

export type { Principal };

interface Target extends GrantTarget {
  role: Role | null;
}

/** The space or collection of the grants, with the caller's role on it; 404 when they cannot see it. */
async function loadTarget(ctx: Ctx, kind: ContentKind, id: string): Promise<Target> {
  if (kind === 'space') {
    const { space, role } = await loadSpace(ctx.em, ctx.caller, id);
    return { kind, id: space.id, organizationId: space.organizationId, role };
  }
  const { collection, role } = await loadCollection(ctx.em, ctx.caller, id);
  return { kind, id: collection.id, organizationId: collection.organizationId, role };
}

/** The target, for a caller who must be its admin to change who can access it. */
async function loadManagedTarget(ctx: Ctx, kind: ContentKind, id: string): Promise<Target> {
  const target = await loadTarget(ctx, kind, id);
  requireRole(target.role, 'admin', `manage who can access this ${kind}`);
  return target;
}

/** Checks that every id is a member (users) or a team (teams) of the organization; 400 naming the first that is not (content and site grants). */
export async function checkPrincipals(em: Em, organizationId: string, principal: Principal, ids: string[]) {
  const found = await existingPrincipals(em, organizationId, principal, ids);
  const bad = ids.findIndex((id) => !found.has(id));
  if (bad >= 0) {
    throw badRequest(
      principal === 'user'
        ? `users[${bad}]: ${ids[bad]} is not a member of the organization`
        : `teams[${bad}]: ${ids[bad]} is not a team of the organization`,
    );
  }
}

/** Sets (or with null removes) the grant of `role` on the target for each principal. */
async function setGrants(tx: Em, target: Target, principal: Principal, ids: string[], role: Role | null) {
  for (const id of new Set(ids)) {
    if (role === null) await deleteGrant(tx, target.kind, target.id, principal, id);
    else await upsertGrant(tx, newId(), target, principal, id, role, new Date());
  }
}

/** Grants a role to members and teams (null removes their grants), all in one transaction. */
export async function invite(ctx: Ctx, kind: ContentKind, id: string, body: Static<typeof InviteBody>): Promise<void> {
  const target = await loadManagedTarget(ctx, kind, id);
  if (!body.users && !body.teams) throw badRequest('body.users or body.teams is required');
  await checkPrincipals(ctx.em, target.organizationId, 'user', body.users ?? []);
  await checkPrincipals(ctx.em, target.organizationId, 'team', body.teams ?? []);
  await transaction(ctx.em, async (tx) => {
    await setGrants(tx, target, 'user', body.users ?? [], body.role);
    await setGrants(tx, target, 'team', body.teams ?? [], body.role);
  });
}

export async function listUserGrants(ctx: Ctx, kind: ContentKind, id: string, query: Static<typeof ListQuery>) {
  const target = await loadTarget(ctx, kind, id);
  const urls = urlsFor(ctx.deps.config.publicUrl);
  return paginate(ctx.em, userGrantListing(ctx.em, kind, target.id), query, (rows) => rows.map((r) => presentUserGrant(r, urls)));
}

export async function listTeamGrants(ctx: Ctx, kind: ContentKind, id: string, query: Static<typeof ListQuery>) {
  const target = await loadTarget(ctx, kind, id);
  const { role } = await requireOrganization(ctx, target.organizationId);
  return paginate(ctx.em, teamGrantListing(ctx.em, kind, target.id), query, async (rows) => {
    const facts = await teamFacts(
      ctx.em,
      rows.map((r) => r.teamId),
      ctx.caller.user.id,
    );
    return rows.map((r) => presentTeamGrant(r, facts.get(r.teamId), role));
  });
}

/** Changes the role granted to a user or team (null removes the grant); 404 when there is no grant. */
export async function updatePrincipalGrant(
  ctx: Ctx,
  kind: ContentKind,
  id: string,
  principal: Principal,
  principalId: string,
  body: Static<typeof UpdateGrantBody>,
): Promise<void> {
  const target = await loadManagedTarget(ctx, kind, id);
  const changed =
    body.role === null
      ? await deleteGrant(ctx.em, kind, target.id, principal, principalId)
      : await updateGrant(ctx.em, kind, target.id, principal, principalId, body.role);
  if (!changed) throw notFound(principal === 'user' ? 'User permission' : 'Team permission');
}

/** Removes the grant of a user or team; true when there was one. */
export async function removePrincipalGrant(
  ctx: Ctx,
  kind: ContentKind,
  id: string,
  principal: Principal,
  principalId: string,
): Promise<boolean> {
  const target = await loadManagedTarget(ctx, kind, id);
  return deleteGrant(ctx.em, kind, target.id, principal, principalId);
}

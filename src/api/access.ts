import {
  accessFacts,
  findCollection,
  findOrganization,
  itemAccessFacts,
  memberRole,
  spaceWithAccessFacts,
  type AccessFacts,
  type ContentItem,
  type ContentKind,
  type DeletedFilter,
} from '../db/access.ts';
import type { Em } from '../db/orm.ts';
import { noteAuditOrganization } from '../db/audit.ts';
import { installationSpaceRole, readsSpaceContent } from '../domain/integrations.ts';
import { atLeast, effectiveRole, isRole, type Role } from '../domain/roles.ts';
import type { Caller, Ctx, InstallationGrant, VisitorGrant } from './context.ts';
import { forbidden, notFound } from './errors.ts';

/**
 * Authorization, written once. Every route loads the object it acts on through these functions,
 * which answer 404 for anything in an organization the caller does not belong to (or content the
 * caller cannot see) and 403 when the caller sees it but their role is too low.
 *
 * The rule (domain/roles.ts `effectiveRole`): the effective role on a space or collection is the
 * highest of the member's organization role, the defaultLevel of the object and of every collection
 * above it, and the roles granted explicitly on the object or any collection above it, to the user
 * or to any team they belong to. Guests (no organization role) get only what is granted.
 */

export function requireRole(role: Role | null, min: Role, action: string): void {
  if (!atLeast(role, min)) throw forbidden(`You need the ${min} role or higher to ${action}`);
}

const asRole = (value: unknown): Role | null => (isRole(value) ? value : null);

/**
 * Whether the caller's token works in this organization: every token of the user's own does; a
 * token minted by an organization's SSO sign-in works in that organization only.
 */
export const inScope = (caller: Caller, organizationId: string): boolean =>
  !caller.visitor && !caller.siteLookup && (caller.organizationId === null || caller.organizationId === organizationId);

/** The caller's role in an organization: a Role, null (guest), or undefined (not a member, or out of the token's scope). */
export async function orgRole(em: Em, caller: Caller, organizationId: string): Promise<Role | null | undefined> {
  if (!inScope(caller, organizationId)) return undefined;
  // A token acting as an installation sees its organization as a guest does: no role of its own.
  if (caller.installation) return null;
  const role = await memberRole(em, organizationId, caller.user.id);
  return role === undefined ? undefined : asRole(role);
}

export async function loadOrganization(em: Em, caller: Caller, organizationId: string) {
  const [organization, role] = await Promise.all([findOrganization(em, organizationId), orgRole(em, caller, organizationId)]);
  if (!organization || role === undefined) throw notFound('Organization');
  // The organization a change of this request is recorded in (src/db/audit.ts), when it is one.
  noteAuditOrganization(em, organization.id);
  return { organization, role };
}

/**
 * The preamble of every organization-level operation in one call: the organization, 404 unless the
 * caller is a member; with `min`, 403 unless their role is at least that (`action` names what they
 * tried, for the message).
 */
export async function requireOrganization(ctx: Ctx, organizationId: string, min?: Role, action = 'do this') {
  const found = await loadOrganization(ctx.em, ctx.caller, organizationId);
  if (min) requireRole(found.role, min, action);
  return found;
}

/** Whose access is computed: a user and their role in the organization (undefined: not a member). */
export interface Viewer {
  userId: string;
  role: Role | null | undefined;
}

function roleFrom(role: Role | null | undefined, item: ContentItem, facts: AccessFacts | undefined): Role | null {
  return effectiveRole({
    orgRole: role,
    defaultLevels: [asRole(item.defaultLevel), ...(facts?.levels ?? []).map(asRole)],
    grants: (facts?.grants ?? []).filter(isRole),
  });
}

/**
 * Loads a space with the caller's effective role on it, in one statement; 404 when it does not
 * exist for the caller. Every space route goes through here, so it is kept to one round trip.
 */
export async function loadSpace(em: Em, caller: Caller, spaceId: string, state: DeletedFilter = 'live') {
  const found = await spaceWithAccessFacts(em, spaceId, caller.user.id, state);
  if (caller.visitor) return visitorSpace(caller.visitor, found, state);
  if (caller.installation) return installationSpace(caller.installation, found, state);
  if (!found?.facts.is_member || !inScope(caller, found.space.organizationId)) throw notFound('Space');
  const role = roleFrom(asRole(found.facts.org_role), found.space, found.facts);
  if (!atLeast(role, 'read')) throw notFound('Space');
  noteAuditOrganization(em, found.space.organizationId);
  return { space: found.space, role, gitSync: found.gitSync };
}

/**
 * A site visitor reads a space only while it is published by the visitor's site (one of its live
 * site-spaces) in the visitor's organization; the role is never above read. Everything else is
 * 404, as for a space that does not exist.
 */
function visitorSpace(grant: VisitorGrant, found: Awaited<ReturnType<typeof spaceWithAccessFacts>>, state: DeletedFilter) {
  if (!found || state !== 'live' || found.space.deletedAt != null) throw notFound('Space');
  if (found.space.organizationId !== grant.organizationId || !grant.spaceIds.includes(found.space.id)) throw notFound('Space');
  return { space: found.space, role: 'read' as Role | null, gitSync: found.gitSync };
}

/**
 * The role on a space of a token acting as an installation, from its integration's scopes:
 * `edit` with `space:content:write` or `space:metadata:write` (never above: settings, access and
 * deletion stay with members), `read` with `space:content:read` or `space:metadata:read`. Only
 * live spaces of the installation's organization it is enabled on (all of them with
 * `space_selection: all`); everything else is 404, as for a space that does not exist.
 */
function installationSpace(grant: InstallationGrant, found: Awaited<ReturnType<typeof spaceWithAccessFacts>>, state: DeletedFilter) {
  if (!found || state !== 'live' || found.space.deletedAt != null) throw notFound('Space');
  if (found.space.organizationId !== grant.organizationId) throw notFound('Space');
  if (grant.spaces !== 'all' && !grant.spaces.includes(found.space.id)) throw notFound('Space');
  const role = installationSpaceRole(grant.scopes);
  if (!role) throw notFound('Space');
  return { space: found.space, role: role as Role | null, gitSync: found.gitSync };
}

/**
 * Content reads (pages, files, revisions, change requests, search) of a token acting as an
 * installation need the integration's `space:content:read` or `space:content:write`: a space's
 * metadata scope shows it the space, not its content (403). Every other caller passes.
 */
export function requireContentScope(caller: Caller): void {
  if (caller.installation && !readsSpaceContent(caller.installation.scopes)) {
    throw forbidden("The integration's scopes do not include space:content:read: it reads this space's metadata only");
  }
}

/**
 * The space a site visitor's token vouches for at `revisionId`, known without reading it: the
 * revision its lookup answered with, of a space its site still publishes (the site's state, and
 * with it the spaces it publishes, is read again within AUTH_CACHE_TTL, as the token itself is:
 * a space deleted or unpublished is refused within that time, as a revoked token is). Undefined
 * for every other caller and revision: those load the space (loadSpace).
 */
export function vouchedSpace(caller: Caller, spaceId: string, revisionId: string): { id: string; revisionId: string } | undefined {
  const grant = caller.visitor;
  if (!grant || grant.revision.spaceId !== spaceId || grant.revision.revisionId !== revisionId) return undefined;
  if (!grant.spaceIds.includes(spaceId)) return undefined;
  return { id: spaceId, revisionId };
}

/**
 * Whether the caller may read this revision of a space it has loaded (loadSpace). Members read
 * every revision of a space they see. A site visitor reads what the site publishes: the space's
 * current revision, and the one its lookup answered with (so a page being read while the space
 * moves on still loads). Never older revisions: they may hold content that was removed on purpose.
 * A preview's token reads every revision of the spaces its site shows (`~/revisions/<id>/`, a
 * change request's revision).
 */
export function requireVisibleRevision(ctx: Ctx, space: { id: string; revisionId: string }, revisionId: string): void {
  const grant = ctx.caller.visitor;
  if (!grant || grant.preview || revisionId === space.revisionId) return;
  if (grant.revision.spaceId === space.id && grant.revision.revisionId === revisionId) return;
  throw notFound('Revision');
}

/** Loads a collection with the caller's effective role on it; 404 when it does not exist for them. */
export async function loadCollection(em: Em, caller: Caller, collectionId: string) {
  const collection = await findCollection(em, collectionId);
  if (!collection || !inScope(caller, collection.organizationId)) throw notFound('Collection');
  const facts = await itemAccessFacts(em, 'collection', collection, caller.user.id);
  const role = facts?.is_member ? roleFrom(asRole(facts.org_role), collection, facts) : undefined;
  if (role === undefined || !atLeast(role, 'read')) throw notFound('Collection');
  noteAuditOrganization(em, collection.organizationId);
  return { collection, role };
}

/**
 * A viewer's effective role on every given space or collection (all of one kind and one
 * organization), in one statement. Empty when the viewer is not a member.
 */
export async function contentRoles(em: Em, viewer: Viewer, kind: ContentKind, items: ContentItem[]): Promise<Map<string, Role | null>> {
  const out = new Map<string, Role | null>();
  if (viewer.role === undefined || items.length === 0) return out;
  const facts = await accessFacts(em, kind, items, viewer.userId);
  for (const item of items) out.set(item.id, roleFrom(viewer.role, item, facts.get(item.id)));
  return out;
}

export { grantedContent, type ContentItem, type ContentKind, type DeletedFilter } from '../db/access.ts';

import type { InviteLinkRow, PendingInviteRow } from '../../db/invites.ts';
import { atLeast, isRole, type Role } from '../../domain/roles.ts';
import type { presentCollection } from '../collections/present.ts';
import type { presentSpace } from '../spaces/present.ts';

/** Invite-link objects from rows: pure; the link's id, unsealed, the caller's role and the link's content (presented) are passed in. */

export const linkRole = (row: Pick<InviteLinkRow, 'role'>): Role | null => (isRole(row.role) ? row.role : null);

/** What a content link invites to; undefined for a link to the organization. */
export function linkContentOf(
  row: Pick<InviteLinkRow, 'spaceId' | 'collectionId'>,
): { kind: 'space' | 'collection'; id: string } | undefined {
  if (row.spaceId) return { kind: 'space', id: row.spaceId };
  if (row.collectionId) return { kind: 'collection', id: row.collectionId };
  return undefined;
}

/** The content of a content link as shown, with the caller's role on it. */
export type LinkContent =
  | { kind: 'space'; space: ReturnType<typeof presentSpace>; role: Role | null }
  | { kind: 'collection'; collection: ReturnType<typeof presentCollection>; role: Role | null };

/**
 * GitBook's OrganizationInviteLink: InviteLinkToOrganization (`role`), InviteLinkToSpace or
 * InviteLinkToCollection (`level` and the content). `redundant`: the caller already holds the role
 * (on the content, for a content link). `callerRole` is the caller's role in the organization;
 * a content link needs its content, loaded.
 */
export function presentInviteLink(row: InviteLinkRow, id: string, callerRole: Role | null, content?: LinkContent) {
  const role = linkRole(row);
  const common = {
    object: 'invite' as const,
    id,
    expiresAt: row.expiresAt === null ? null : new Date(row.expiresAt).toISOString(),
    disabled: row.disabled,
    createdAt: new Date(row.createdAt).toISOString(),
  };
  const target = linkContentOf(row);
  if (!target) return { ...common, role, redundant: role === null || atLeast(callerRole, role) };
  if (!content) throw new Error(`The ${target.kind} of invite link ${row.keyHash} was not loaded`);
  const redundant = role !== null && atLeast(content.role, role);
  return content.kind === 'space'
    ? { ...common, level: role, redundant, space: content.space }
    : { ...common, level: role, redundant, collection: content.collection };
}

/** An invitation by email as its invited user sees it: the organization (id and title) and the role accepting gives. */
export function presentPendingInvite(row: PendingInviteRow) {
  return {
    object: 'organization-invite' as const,
    id: row.id,
    organization: { id: row.organizationId, title: row.organizationTitle },
    role: isRole(row.role) ? row.role : null,
    createdAt: new Date(row.createdAt).toISOString(),
  };
}

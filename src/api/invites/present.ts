import type { InviteLinkRow } from '../../db/invites.ts';
import { atLeast, isRole, type Role } from '../../domain/roles.ts';

/** Invite-link objects from rows: pure; the link's id, unsealed, and the caller's role are passed in. */

export const linkRole = (row: Pick<InviteLinkRow, 'role'>): Role | null => (isRole(row.role) ? row.role : null);

export function presentInviteLink(row: InviteLinkRow, id: string, callerRole: Role | null) {
  const role = linkRole(row);
  return {
    object: 'invite' as const,
    id,
    role,
    redundant: role === null || atLeast(callerRole, role),
    expiresAt: row.expiresAt === null ? null : new Date(row.expiresAt).toISOString(),
    disabled: row.disabled,
    createdAt: new Date(row.createdAt).toISOString(),
  };
}

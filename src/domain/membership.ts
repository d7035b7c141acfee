import { atLeast, type Role } from './roles.ts';

/**
 * Rules about organization membership and teams that do not need the database: who may manage a
 * team, when a change would leave an organization without an administrator, and how a search
 * string becomes a LIKE pattern.
 */

export type TeamRole = 'owner' | 'member';

/** Team managers: administrators of the organization and the team's own owners. */
export function canManageTeam(orgRole: Role | null | undefined, teamRole: TeamRole | null | undefined): boolean {
  if (orgRole === undefined) return false;
  return atLeast(orgRole, 'admin') || teamRole === 'owner';
}

/** The permissions object of a team, for a caller with `orgRole` and (maybe) a role in the team. */
export function teamPermissions(orgRole: Role | null | undefined, teamRole: TeamRole | null | undefined) {
  return {
    admin: canManageTeam(orgRole, teamRole),
    view: orgRole !== undefined && (atLeast(orgRole, 'read') || teamRole != null),
  };
}

/**
 * True when changing `userId` to `next` (a role, null for guest, or `removed`) would leave the
 * organization with no active administrator. `activeAdmins` lists the current ones.
 */
export function leavesNoAdmin(activeAdmins: readonly string[], userId: string, next: Role | null | 'removed'): boolean {
  if (!activeAdmins.includes(userId)) return false;
  if (next === 'admin') return false;
  return activeAdmins.length <= 1;
}

/** A case-insensitive `contains` pattern for ILIKE, with the wildcards of the input escaped. */
export function containsPattern(search: string): string {
  return `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

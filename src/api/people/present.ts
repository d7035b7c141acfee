import type { MemberCounts, MemberRow, TeamMemberRow } from '../../db/members.ts';
import type { MemberTeamRow, TeamFacts } from '../../db/teams.ts';
import { teamPermissions } from '../../domain/membership.ts';
import { isRole, type Role } from '../../domain/roles.ts';
import { presentUser } from '../users/present.ts';
import type { Urls } from '../object-urls.ts';

/**
 * Members and teams as the API shows them, wherever they appear: in their own lists, in each
 * other's (a team's members, a member's teams) and in the grants on spaces and collections.
 */

/** The role a member acts with: undefined when the membership is disabled (no access at all). */
export function activeRole(row: Pick<MemberRow, 'role' | 'disabled'>): Role | null | undefined {
  if (row.disabled) return undefined;
  return isRole(row.role) ? row.role : null;
}

/**
 * A member with their counts. `spaces` is what the member can access: every live space for a
 * member with a role, the spaces reached through grants for a guest, none for a disabled member.
 * `sites` likewise: a site is reached through the organization role only (no site is granted to a
 * guest), so every site of the organization for a member with a role, none for a guest or a
 * disabled member.
 */
export function presentMember(row: MemberRow, counts: MemberCounts | undefined, urls: Urls) {
  const role = activeRole(row);
  return {
    object: 'member' as const,
    id: row.userId,
    role: isRole(row.role) ? row.role : null,
    user: presentUser({ id: row.userId, displayName: row.displayName, email: row.email, photoUrl: row.photoUrl }, urls),
    disabled: row.disabled,
    joinedAt: new Date(row.joinedAt).toISOString(),
    ...(row.lastSeenAt ? { lastSeenAt: new Date(row.lastSeenAt).toISOString() } : {}),
    sso: row.sso,
    spaces: role === undefined ? 0 : role === null ? (counts?.granted ?? 0) : (counts?.allSpaces ?? 0),
    teams: counts?.teams ?? 0,
    sites: role === undefined ? 0 : role === null ? (counts?.grantedSites ?? 0) : (counts?.allSites ?? 0),
  };
}

/** What a team needs to be shown. */
export interface TeamFields {
  id: string;
  title: string;
  createdAt: Date | string;
}

/** A team with its facts (counts and the caller's team role), for a caller with `callerOrgRole` in the organization. */
export function presentTeam(team: TeamFields, facts: TeamFacts | undefined, callerOrgRole: Role | null) {
  return {
    object: 'team' as const,
    id: team.id,
    title: team.title,
    members: facts?.members ?? 0,
    spaces: facts?.spaces ?? 0,
    createdAt: new Date(team.createdAt).toISOString(),
    permissions: teamPermissions(callerOrgRole, facts?.callerRole ?? null),
  };
}

const teamRole = (role: string) => (role === 'owner' ? ('owner' as const) : ('member' as const));

/** An item of a team's member list: the member and their role in the team. */
export function presentTeamMember(row: TeamMemberRow, counts: MemberCounts | undefined, urls: Urls) {
  return {
    organization: presentMember(row, counts, urls),
    team: { role: teamRole(row.teamRole) },
    permissions: { view: true },
  };
}

/** An item of a member's team list: the team and the member's role in it. */
export function presentMemberTeam(row: MemberTeamRow, facts: TeamFacts | undefined, callerOrgRole: Role | null) {
  return {
    team: presentTeam(row, facts, callerOrgRole),
    member: { role: teamRole(row.teamRole) },
  };
}

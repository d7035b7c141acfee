import type { MemberCounts, MemberRow, TeamMemberRow } from '../../db/members.ts';
import { isRole, type Role } from '../../domain/roles.ts';
import { presentUser } from '../users/present.ts';
import type { Urls } from '../object-urls.ts';

/** The role a member acts with: undefined when the membership is disabled (no access at all). */
export function activeRole(row: Pick<MemberRow, 'role' | 'disabled'>): Role | null | undefined {
  if (row.disabled) return undefined;
  return isRole(row.role) ? row.role : null;
}

/**
 * A member with their counts. `spaces` is what the member can access: every live space for a
 * member with a role, the spaces reached through grants for a guest, none for a disabled member.
 */
export function presentMember(row: MemberRow, counts: MemberCounts | undefined, urls: Urls) {
  const role = activeRole(row);
  return {
    object: 'member' as const,
    id: row.user_id,
    role: isRole(row.role) ? row.role : null,
    user: presentUser({ id: row.user_id, displayName: row.display_name, email: row.email, photoUrl: row.photo_url }, urls),
    disabled: row.disabled,
    joinedAt: new Date(row.joined_at).toISOString(),
    ...(row.last_seen_at ? { lastSeenAt: new Date(row.last_seen_at).toISOString() } : {}),
    sso: row.sso,
    spaces: role === undefined ? 0 : role === null ? (counts?.granted ?? 0) : (counts?.allSpaces ?? 0),
    teams: counts?.teams ?? 0,
    sites: 0,
  };
}

/** An item of a team's member list: the member and their role in the team. */
export function presentTeamMember(row: TeamMemberRow, counts: MemberCounts | undefined, urls: Urls) {
  return {
    organization: presentMember(row, counts, urls),
    team: { role: row.team_role === 'owner' ? ('owner' as const) : ('member' as const) },
    permissions: { view: true },
  };
}

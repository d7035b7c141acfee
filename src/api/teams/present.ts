import type { MemberTeamRow, TeamFacts, TeamRow } from '../../db/teams.ts';
import { teamPermissions } from '../../domain/membership.ts';
import type { Role } from '../../domain/roles.ts';

/** What a team needs to be shown (a Team entity has it). */
export interface TeamFields {
  id: string;
  title: string;
  createdAt: Date | string;
}

export const teamFromRow = (row: TeamRow): TeamFields => ({ id: row.id, title: row.title, createdAt: row.created_at });

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

/** An item of a member's team list: the team and the member's role in it. */
export function presentMemberTeam(row: MemberTeamRow, facts: TeamFacts | undefined, callerOrgRole: Role | null) {
  return {
    team: presentTeam(teamFromRow(row), facts, callerOrgRole),
    member: { role: row.team_role === 'owner' ? ('owner' as const) : ('member' as const) },
  };
}

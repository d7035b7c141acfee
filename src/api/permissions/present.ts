import type { TeamGrantRow, UserGrantRow } from '../../db/permissions.ts';
import type { TeamFacts } from '../../db/teams.ts';
import type { Role } from '../../domain/roles.ts';
import { presentTeam } from '../people/present.ts';
import { presentUser } from '../users/present.ts';
import type { Urls } from '../object-urls.ts';

/** A grant to a user: the role granted and the user. */
export function presentUserGrant(row: UserGrantRow, urls: Urls) {
  return {
    permission: row.role,
    user: presentUser({ id: row.userId, displayName: row.displayName, email: row.email, photoUrl: row.photoUrl }, urls),
  };
}

/** A grant to a team: the role granted and the team, as a caller with `callerOrgRole` sees it. */
export function presentTeamGrant(row: TeamGrantRow, facts: TeamFacts | undefined, callerOrgRole: Role | null) {
  return {
    permission: row.role,
    team: presentTeam({ id: row.teamId, title: row.title, createdAt: row.createdAt }, facts, callerOrgRole),
  };
}

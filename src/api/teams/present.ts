import type { Team } from '../../db/team-entities.ts';
import type { Em } from '../../db/orm.ts';
import { teamPermissions, type TeamRole } from '../../domain/membership.ts';
import type { Role } from '../../domain/roles.ts';
import { grantReachCte } from '../../db/access.ts';
import { textArray } from '../../db/sql.ts';

/** What a team row needs to be shown. */
export interface TeamRow {
  id: string;
  organizationId: string;
  title: string;
  createdAt: Date;
}

export interface TeamFacts {
  members: number;
  spaces: number;
  /** The caller's role in the team, if they are in it. */
  callerRole: TeamRole | null;
}

/** Member counts, reached-space counts and the caller's team role for a page of teams, in one statement. */
export async function teamFacts(em: Em, teamIds: string[], callerId: string): Promise<Map<string, TeamFacts>> {
  const out = new Map<string, TeamFacts>();
  if (teamIds.length === 0) return out;
  const ids = textArray(teamIds);
  const rows = await em.execute<{ id: string; members: string | number; spaces: string | number; caller_role: string | null }[]>(
    `${grantReachCte('select p.team_id, p.space_id, p.collection_id from content_permission p where p.team_id = any(?::text[])')}
     select t.id,
       (select count(*) from team_member tm where tm.team_id = t.id) as members,
       (select count(*) from reach r join space s on s.id = r.id and s.organization_id = t.organization_id and s.deleted_at is null
         where r.principal = t.id and r.kind = 'space') as spaces,
       (select tm.role from team_member tm where tm.team_id = t.id and tm.user_id = ?) as caller_role
       from team t where t.id = any(?::text[])`,
    [ids, callerId, ids],
  );
  for (const row of rows) {
    out.set(row.id, {
      members: Number(row.members),
      spaces: Number(row.spaces),
      callerRole: row.caller_role === 'owner' || row.caller_role === 'member' ? row.caller_role : null,
    });
  }
  return out;
}

export function presentTeam(team: TeamRow | Team, facts: TeamFacts | undefined, callerOrgRole: Role | null) {
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

/** Presents a page of teams for a caller with `callerOrgRole`. */
export async function presentTeams(em: Em, teams: (TeamRow | Team)[], callerId: string, callerOrgRole: Role | null) {
  const facts = await teamFacts(em, teams.map((t) => t.id), callerId);
  return teams.map((t) => presentTeam(t, facts.get(t.id), callerOrgRole));
}

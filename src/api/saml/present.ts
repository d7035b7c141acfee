import type { SamlProvider } from '../../db/saml-entities.ts';
import type { Em } from '../../db/orm.ts';
import { atLeast, isRole, type Role } from '../../domain/roles.ts';
import { providerStatus } from '../../domain/saml.ts';
import type { Urls } from '../urls.ts';

export interface TeamRow {
  id: string;
  title: string;
  created_at: Date | string;
  members: number;
  spaces: number;
}

/** The default teams of the given providers, with their member and space counts, in one query. */
export async function loadTeams(em: Em, teamIds: (string | null | undefined)[]): Promise<Map<string, TeamRow>> {
  const ids = [...new Set(teamIds.filter((id): id is string => !!id))];
  const out = new Map<string, TeamRow>();
  if (ids.length === 0) return out;
  const rows = await em.getConnection().execute<TeamRow[]>(
    `select t.id, t.title, t.created_at,
            (select count(*) from team_member tm where tm.team_id = t.id)::int as members,
            (select count(distinct cp.space_id) from content_permission cp where cp.team_id = t.id and cp.space_id is not null)::int as spaces
       from team t where t.id = any(?::text[])`,
    [`{${ids.map((id) => `"${id.replace(/["\\]/g, '')}"`).join(',')}}`],
  );
  for (const row of rows) out.set(row.id, row);
  return out;
}

export function presentTeamRef(team: TeamRow, role: Role | null) {
  return {
    object: 'team' as const,
    id: team.id,
    title: team.title,
    members: Number(team.members),
    spaces: Number(team.spaces),
    createdAt: new Date(team.created_at).toISOString(),
    permissions: { admin: atLeast(role, 'admin'), view: true },
  };
}

export function presentProvider(provider: SamlProvider, team: TeamRow | undefined, role: Role | null, urls: Urls) {
  return {
    object: 'saml-provider' as const,
    id: provider.id,
    label: provider.label,
    ssoURL: provider.ssoUrl ?? '',
    entityID: provider.entityId ?? '',
    certificate: provider.certificate ?? '',
    ...(team ? { defaultTeam: presentTeamRef(team, role) } : {}),
    defaultRole: isRole(provider.defaultRole) ? provider.defaultRole : null,
    createdAt: provider.createdAt.toISOString(),
    status: providerStatus(provider),
    service: urls.samlService(provider.id),
    urls: urls.samlProvider(provider.organizationId, provider.id),
  };
}

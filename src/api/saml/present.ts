import type { SamlProviderRow, TeamSummary } from '../../db/saml.ts';
import { atLeast, isRole, type Role } from '../../domain/roles.ts';
import { providerStatus } from '../../domain/saml.ts';
import type { Urls } from '../object-urls.ts';

export function presentTeamRef(team: TeamSummary, role: Role | null) {
  return {
    object: 'team' as const,
    id: team.id,
    title: team.title,
    members: team.members,
    spaces: team.spaces,
    createdAt: team.createdAt.toISOString(),
    permissions: { admin: atLeast(role, 'admin'), view: true },
  };
}

/** A provider with its default team (loaded by the service, with its counts), if it has one. */
export function presentProvider(provider: SamlProviderRow, team: TeamSummary | undefined, role: Role | null, urls: Urls) {
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

/** How a member signs in with a provider. */
export function presentSsoLogin(provider: SamlProviderRow, urls: Urls) {
  return { id: provider.id, label: provider.label, startURL: urls.samlService(provider.id).startURL };
}

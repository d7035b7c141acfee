import type { Organization } from '../../db/entities.ts';
import { organizationPermissions, type Role } from '../../domain/roles.ts';
import type { Urls } from '../object-urls.ts';

/** What an organization is shown with that its row does not hold (read by orgs/service.ts `organizationFacts`). */
export interface OrganizationFacts {
  /** Whether the organization has an invite link that can be used now (not disabled, not expired). */
  inviteLinks: boolean;
}

/**
 * An organization as GitBook shows it. Left out, as GitBook's `Organization` makes them optional:
 * `sso` ("whether SSO is enforced organization-wide": this service never enforces SAML sign-in,
 * members keep every other way to sign in, whether or not a SAML provider is configured) and `ai`
 * (this service offers no AI feature).
 */
export function presentOrganization(org: Organization, role: Role | null, urls: Urls, facts: OrganizationFacts) {
  return {
    object: 'organization' as const,
    id: org.id,
    title: org.title,
    createdAt: org.createdAt.toISOString(),
    type: 'business',
    emailDomains: [],
    plan: 'free',
    inviteLinks: facts.inviteLinks,
    defaultRole: 'read',
    mergeRules: org.mergeRules ?? { type: 'none' },
    // No billing here, so no trial: GitBook's status for that, and the number of trials consumed, none.
    trial: { status: 'notapplicable', count: 0 },
    urls: urls.organization(org.id),
    permissions: organizationPermissions(role),
  };
}

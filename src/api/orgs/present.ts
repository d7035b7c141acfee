import type { Organization } from '../../db/entities.ts';
import { organizationPermissions, type Role } from '../../domain/roles.ts';
import type { Urls } from '../object-urls.ts';

export function presentOrganization(org: Organization, role: Role | null, urls: Urls) {
  return {
    object: 'organization' as const,
    id: org.id,
    title: org.title,
    createdAt: org.createdAt.toISOString(),
    type: 'business',
    emailDomains: [],
    plan: 'free',
    inviteLinks: false,
    sso: false,
    ai: false,
    defaultRole: 'read',
    mergeRules: org.mergeRules ?? { type: 'none' },
    trial: { status: 'notapplicable', count: 0 },
    urls: urls.organization(org.id),
    permissions: organizationPermissions(role),
  };
}

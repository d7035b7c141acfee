import type { SiteAccessRow } from '../../../db/site-permissions.ts';
import { isRole } from '../../../domain/roles.ts';
import type { Urls } from '../../object-urls.ts';
import { presentUser } from '../../users/present.ts';

export { presentTeamGrant as presentSiteTeamGrant, presentUserGrant as presentSiteUserGrant } from '../../permissions/present.ts';

/**
 * A member who can access a site (GitBook's UserSitePermission): their effective role there and
 * where it comes from: the organization when their organization role is at least as high as any
 * grant, else the grant to them, else the grant to their team.
 */
export function presentSiteAccess(row: SiteAccessRow, site: { id: string; organizationId: string }, urls: Urls) {
  const permission = row.permission;
  const origin =
    isRole(row.orgRole) && row.orgRole === permission
      ? { type: 'organization' as const, organization: site.organizationId }
      : row.userGrant === permission
        ? { type: 'site' as const, site: site.id, reason: 'member' as const }
        : { type: 'site' as const, site: site.id, reason: 'team' as const, ...(row.grantTeam ? { team: row.grantTeam } : {}) };
  return {
    permission,
    user: presentUser({ id: row.userId, displayName: row.displayName, email: row.email, photoUrl: row.photoUrl }, urls),
    origin,
    disabled: row.disabled,
    ...(row.lastSeenAt ? { lastSeenAt: new Date(row.lastSeenAt).toISOString() } : {}),
  };
}

import { Type } from 'typebox';
import { Id, ListOf, Role, Timestamp, UserRef } from '../../schemas.ts';
import { TeamPermissionList, UserPermissionList } from '../../permissions/schemas.ts';

/** GitBook's InviteSiteUsersAndTeams: a role (null removes the grants) for members and teams of the site's organization. */
export const InviteSiteBody = Type.Object({
  role: Type.Union([Role, Type.Null()], {
    description: 'The role to grant on the site; null removes the grants of the given users and teams',
  }),
  users: Type.Optional(Type.Array(Id, { minItems: 1, maxItems: 1000, description: 'Ids of members of the organization' })),
  teams: Type.Optional(Type.Array(Id, { minItems: 1, maxItems: 1000, description: 'Ids of teams of the organization' })),
});

export { UpdateGrantBody as UpdateSiteGrantBody } from '../../permissions/schemas.ts';

/** GitBook's UserSitePermissionOverride and TeamSitePermissionOverride lists. */
export const SiteUserPermissionList = UserPermissionList;
export const SiteTeamPermissionList = TeamPermissionList;

const OrganizationOrigin = Type.Object({ type: Type.Literal('organization'), organization: Type.String() });
const SiteOrigin = Type.Object({
  type: Type.Literal('site'),
  site: Type.String(),
  reason: Type.Union([Type.Literal('member'), Type.Literal('team')], {
    description: '`member`: a grant to the user; `team`: a grant to a team of theirs (named by `team`)',
  }),
  team: Type.Optional(Type.String()),
});

/** GitBook's UserSitePermission: a member's effective role on the site and where it comes from. */
export const SiteAccessList = ListOf(
  Type.Object({
    permission: Role,
    user: UserRef,
    origin: Type.Union([OrganizationOrigin, SiteOrigin], {
      description: 'The organization when the organization role is the highest, else the site grant that gives it',
    }),
    disabled: Type.Boolean(),
    lastSeenAt: Type.Optional(Timestamp),
  }),
);

const Order = Type.Union([Type.Literal('asc'), Type.Literal('desc')], { default: 'desc' });

export const SiteAccessQuery = Type.Object({
  page: Type.Optional(Type.String({ maxLength: 1024, description: 'Cursor from `next.page` of the previous answer' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'Results per page (default 100, at most 1000)' })),
  order: Type.Optional(Order),
  role: Type.Optional(
    Type.Union([Role, Type.Literal('guest')], {
      description: 'Only members with this effective role on the site (`guest`: members without an organization role)',
    }),
  ),
  search: Type.Optional(Type.String({ maxLength: 512, description: 'Case-insensitive contains filter on display name and email' })),
  sort: Type.Optional(
    Type.Union([Type.Literal('joinedAt'), Type.Literal('lastSeenAt'), Type.Literal('name')], {
      default: 'joinedAt',
      description: '`lastSeenAt` lists only members seen at least once',
    }),
  ),
  team: Type.Optional(Type.String({ maxLength: 64, description: 'Only members of this team' })),
});

export const SiteUserGrantParams = Type.Object({ organizationId: Id, siteId: Id, userId: Id });
export const SiteTeamGrantParams = Type.Object({ organizationId: Id, siteId: Id, teamId: Id });

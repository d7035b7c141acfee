import { Type } from 'typebox';
import { Id, ListOf, Role, RoleOrNull, Timestamp, UserRef } from '../schemas.ts';
import { SpaceSchema } from '../spaces/schemas.ts';
import { TeamMemberRole, TeamSchema } from '../teams/schemas.ts';

export const MemberSchema = Type.Object({
  object: Type.Literal('member'),
  id: Type.String({ description: 'The user id' }),
  role: RoleOrNull,
  user: UserRef,
  disabled: Type.Boolean(),
  joinedAt: Timestamp,
  lastSeenAt: Type.Optional(Timestamp),
  sso: Type.Boolean(),
  spaces: Type.Integer({ description: 'Live spaces the member can access (the count of GET …/members/{userId}/spaces)' }),
  teams: Type.Integer({ description: 'Teams of the organization the member belongs to' }),
  sites: Type.Integer({
    description:
      'Sites the member can access: every site of the organization with a role; for a guest, the sites granted to them or their teams',
  }),
});
export const MemberList = ListOf(MemberSchema);

export const OrgMembersParams = Type.Object({ organizationId: Id });
export const MemberParams = Type.Object({ organizationId: Id, userId: Id });

const Order = Type.Union([Type.Literal('asc'), Type.Literal('desc')], { default: 'desc' });

export const ListMembersQuery = Type.Object({
  page: Type.Optional(Type.String({ maxLength: 1024 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
  order: Type.Optional(Order),
  role: Type.Optional(Type.Union([Role, Type.Literal('guest')], { description: 'Only members with this role (`guest`: no role)' })),
  search: Type.Optional(Type.String({ maxLength: 512, description: 'Case-insensitive contains filter on display name and email' })),
  sort: Type.Optional(
    Type.Union([Type.Literal('joinedAt'), Type.Literal('lastSeenAt'), Type.Literal('name')], {
      default: 'joinedAt',
      description: '`lastSeenAt` lists only members seen at least once',
    }),
  ),
});

export const UpdateMemberBody = Type.Object({ role: RoleOrNull });

export const PingResponse = Type.Object({
  serviceVisitorClaims: Type.Optional(Type.String({ description: 'A JWT to attach to the user (not issued by this service)' })),
});

export const MemberSpacesQuery = Type.Object({
  page: Type.Optional(Type.String({ maxLength: 1024 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
  order: Type.Optional(Order),
});
export const MemberSpaceList = ListOf(Type.Object({ permission: Role, space: SpaceSchema }));

export const MemberTeamsQuery = Type.Object({
  page: Type.Optional(Type.String({ maxLength: 1024 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
  title: Type.Optional(Type.String({ maxLength: 64, description: 'Case-insensitive contains filter on the team title' })),
});
export const MemberTeamList = ListOf(Type.Object({ team: TeamSchema, member: Type.Object({ role: TeamMemberRole }) }));

/** Item of GET /v1/orgs/{organizationId}/teams/{teamId}/members. */
export const TeamMemberList = ListOf(
  Type.Object({
    organization: MemberSchema,
    team: Type.Object({ role: TeamMemberRole }),
    permissions: Type.Object({ view: Type.Boolean() }),
  }),
);

import { Type } from 'typebox';
import { Id, ListOf, Timestamp } from '../schemas.ts';

export const TeamTitle = Type.String({ minLength: 1, maxLength: 64 });
export const TeamMemberRole = Type.Union([Type.Literal('owner'), Type.Literal('member')]);

export const TeamSchema = Type.Object({
  object: Type.Literal('team'),
  id: Type.String(),
  title: Type.String(),
  members: Type.Integer({ description: 'Members of the team' }),
  spaces: Type.Integer({ description: 'Live spaces the team reaches through grants (on the space or a collection above it)' }),
  createdAt: Timestamp,
  permissions: Type.Object({
    admin: Type.Boolean({ description: 'The caller can manage the team (organization admin or team owner)' }),
    view: Type.Boolean(),
  }),
});
export const TeamList = ListOf(TeamSchema);

export const OrgTeamsParams = Type.Object({ organizationId: Id });
export const TeamParams = Type.Object({ organizationId: Id, teamId: Id });
export const TeamMemberParams = Type.Object({ organizationId: Id, teamId: Id, userId: Id });

export const ListTeamsQuery = Type.Object({
  page: Type.Optional(Type.String({ maxLength: 1024 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
  owner: Type.Optional(Type.String({ maxLength: 64, description: 'Member id: only teams that member can manage' })),
  title: Type.Optional(Type.String({ maxLength: 64, description: 'Case-insensitive contains filter on the title' })),
});

export const CreateTeamBody = Type.Object({
  title: TeamTitle,
  members: Type.Optional(Type.Array(Id, { maxItems: 1000, description: 'User ids of organization members to add' })),
});

export const UpdateTeamBody = Type.Object({ title: TeamTitle });

/** A user given as an id or an email. */
const UserHandle = Type.String({ minLength: 1, maxLength: 320 });

export const UpdateTeamMembersBody = Type.Object({
  add: Type.Optional(Type.Array(UserHandle, { maxItems: 1000 })),
  remove: Type.Optional(Type.Array(UserHandle, { maxItems: 1000 })),
  memberships: Type.Optional(Type.Record(Type.String({ maxLength: 64 }), Type.Object({ role: TeamMemberRole }))),
});

export const AddTeamMemberBody = Type.Object({ role: Type.Optional(TeamMemberRole) });

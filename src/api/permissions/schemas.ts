import { Type } from 'typebox';
import { Id, ListOf, Role, RoleOrNull, UserRef } from '../schemas.ts';
import { TeamSchema } from '../teams/schemas.ts';

export const InviteBody = Type.Object({
  role: Type.Union([Role, Type.Null()], { description: 'The role to grant; null removes the grants of the given users and teams' }),
  users: Type.Optional(Type.Array(Id, { minItems: 1, maxItems: 1000, description: 'Ids of organization members' })),
  teams: Type.Optional(Type.Array(Id, { minItems: 1, maxItems: 1000, description: 'Ids of teams of the organization' })),
});

export const UpdateGrantBody = Type.Object({ role: RoleOrNull });

export const UserPermissionList = ListOf(Type.Object({ permission: Role, user: UserRef }));
export const TeamPermissionList = ListOf(Type.Object({ permission: Role, team: TeamSchema }));

export const SpaceGrantParams = Type.Object({ spaceId: Id });
export const SpaceUserGrantParams = Type.Object({ spaceId: Id, userId: Id });
export const SpaceTeamGrantParams = Type.Object({ spaceId: Id, teamId: Id });
export const CollectionGrantParams = Type.Object({ collectionId: Id });
export const CollectionUserGrantParams = Type.Object({ collectionId: Id, userId: Id });
export const CollectionTeamGrantParams = Type.Object({ collectionId: Id, teamId: Id });

import { Type } from 'typebox';
import { CollectionSchema } from '../collections/schemas.ts';
import { Id, ListOf, RoleOrNull, Timestamp } from '../schemas.ts';
import { SpaceSchema } from '../spaces/schemas.ts';

export const OrgInvitesParams = Type.Object({ organizationId: Id });
export const InviteParams = Type.Object({ organizationId: Id, inviteId: Id });

const EmailText = Type.String({ minLength: 1, maxLength: 320, description: 'An email address' });

export const InviteUsersBody = Type.Object({
  emails: Type.Array(Type.Union([EmailText, Type.Object({ email: EmailText, role: RoleOrNull })]), {
    minItems: 1,
    maxItems: 1000,
    description: 'Emails to invite, each alone (with the default `role`) or with a role of its own',
  }),
  role: Type.Optional(RoleOrNull),
  sso: Type.Optional(Type.Boolean({ description: 'Not supported: only false is accepted' })),
});

export const InviteUsersResult = Type.Object({
  users: Type.Array(Type.String(), {
    description:
      'Members whose role the invite raised. Everyone else invited gets an invitation to accept, and is not listed: the answer does not tell which emails have an account',
  }),
  invited: Type.Integer({ description: 'How many users are in `users`' }),
});

const ExpiresAt = Type.Union([Timestamp, Type.Null()], {
  description: 'When the link stops joining (null or absent: never)',
});

/** GitBook's CreateOrganizationInvite: `{role}` (the organization), `{level, space}` or `{level, collection}`. */
export const CreateInviteLinkBody = Type.Object({
  role: Type.Optional(RoleOrNull),
  level: Type.Optional(RoleOrNull),
  space: Type.Optional(Id),
  collection: Type.Optional(Id),
  expiresAt: Type.Optional(ExpiresAt),
});

export const UpdateInviteLinkBody = Type.Object({
  role: Type.Optional(RoleOrNull),
  level: Type.Optional(RoleOrNull),
  expiresAt: Type.Optional(ExpiresAt),
  disabled: Type.Optional(Type.Boolean({ description: 'A disabled link no longer joins; false enables it again' })),
});

const LinkFields = {
  object: Type.Literal('invite'),
  id: Type.String({ description: 'The link: whoever holds it can join the organization with it' }),
  redundant: Type.Boolean({ description: 'The caller already holds this role or a higher one (on the content, for a content link)' }),
  expiresAt: Type.Union([Timestamp, Type.Null()]),
  disabled: Type.Boolean(),
  createdAt: Timestamp,
};

/** GitBook's OrganizationInviteLink: to the organization, to a space, or to a collection. */
export const InviteLinkSchema = Type.Union([
  Type.Object({ ...LinkFields, role: RoleOrNull }),
  Type.Object({ ...LinkFields, level: RoleOrNull, space: SpaceSchema }),
  Type.Object({ ...LinkFields, level: RoleOrNull, collection: CollectionSchema }),
]);

/**
 * A link in the organization's list (GitBook's InviteLinkToOrganization): every link has `role`
 * (null for a link to a space or collection: joining with it makes a guest of the organization);
 * a link to a space or collection also has its `level` and its content.
 */
export const ListedInviteLink = Type.Object({
  ...LinkFields,
  role: RoleOrNull,
  level: Type.Optional(RoleOrNull),
  space: Type.Optional(SpaceSchema),
  collection: Type.Optional(CollectionSchema),
});
export const InviteLinkList = ListOf(ListedInviteLink);

export const PendingInviteParams = Type.Object({ inviteId: Id });

/** An invitation by email, as the invited user sees it (not in GitBook's API). */
export const PendingInviteSchema = Type.Object({
  object: Type.Literal('organization-invite'),
  id: Type.String({ description: 'The invitation: accept it with POST /v1/user/invites/{inviteId}, decline it with DELETE' }),
  organization: Type.Object({ id: Type.String(), title: Type.String() }),
  role: RoleOrNull,
  createdAt: Timestamp,
});
export const PendingInviteList = ListOf(PendingInviteSchema);

export const JoinResult = Type.Object({});

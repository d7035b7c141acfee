import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** Invite links of an organization (Migration0021Invites) and invitations by email (Migration0030EmailInvites); read and written in src/db/invites.ts. */

export const OrganizationInviteLink = defineEntity({
  name: 'OrganizationInviteLink',
  tableName: 'organization_invite_link',
  properties: {
    keyHash: p.string().primary(),
    organizationId: p.string(),
    sealedId: p.string(),
    /** The organization role of a link to the organization, or the level of a link to a space or collection. */
    role: p.string().nullable(),
    /** Set on a link to one space (Migration0025ContentInvites). */
    spaceId: p.string().nullable(),
    /** Set on a link to one collection. */
    collectionId: p.string().nullable(),
    expiresAt: p.datetime().nullable(),
    disabled: p.boolean().defaultRaw('false'),
    createdBy: p.string(),
    createdAt: p.datetime().defaultRaw('now()'),
    updatedAt: p.datetime().nullable(),
  },
});
export type OrganizationInviteLink = InferEntity<typeof OrganizationInviteLink>;

/** An invitation by email to a user with an account, waiting for them to accept or decline it. */
export const OrganizationEmailInvite = defineEntity({
  name: 'OrganizationEmailInvite',
  tableName: 'organization_email_invite',
  properties: {
    id: p.string().primary(),
    organizationId: p.string(),
    userId: p.string(),
    /** The organization role accepting gives (null: a guest). */
    role: p.string().nullable(),
    invitedBy: p.string(),
    createdAt: p.datetime().defaultRaw('now()'),
  },
});
export type OrganizationEmailInvite = InferEntity<typeof OrganizationEmailInvite>;

export const entities = [OrganizationInviteLink, OrganizationEmailInvite];

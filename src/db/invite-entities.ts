import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** Invite links of an organization (Migration0021Invites); read and written in src/db/invites.ts. */

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

export const entities = [OrganizationInviteLink];

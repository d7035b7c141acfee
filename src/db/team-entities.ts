import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** Teams, their members, and explicit role grants on spaces and collections (Migration0003Teams). */

export const Team = defineEntity({
  name: 'Team',
  tableName: 'team',
  properties: {
    id: p.string().primary(),
    organizationId: p.string(),
    title: p.string(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type Team = InferEntity<typeof Team>;

export const TEAM_MEMBER_ROLES = ['owner', 'member'] as const;
export type TeamMemberRole = (typeof TEAM_MEMBER_ROLES)[number];

export const TeamMember = defineEntity({
  name: 'TeamMember',
  tableName: 'team_member',
  properties: {
    teamId: p.string().primary(),
    userId: p.string().primary(),
    role: p.string(),
    joinedAt: p.datetime(),
  },
});
export type TeamMember = InferEntity<typeof TeamMember>;

/** A role granted on exactly one space or collection to exactly one user or team. */
export const ContentPermission = defineEntity({
  name: 'ContentPermission',
  tableName: 'content_permission',
  properties: {
    id: p.string().primary(),
    organizationId: p.string(),
    spaceId: p.string().nullable(),
    collectionId: p.string().nullable(),
    userId: p.string().nullable(),
    teamId: p.string().nullable(),
    role: p.string(),
    createdAt: p.datetime(),
  },
});
export type ContentPermission = InferEntity<typeof ContentPermission>;

export const entities = [Team, TeamMember, ContentPermission];

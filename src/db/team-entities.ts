import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/**
 * Teams and their members (Migration0003Teams). Role grants on spaces and collections to users and
 * teams (content_permission, mapped in content-entities.ts) are read and written in
 * src/db/permissions.ts and src/db/access.ts.
 */

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

export const entities = [Team, TeamMember];

import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import type { MergeRulesConfig } from '../domain/merge-rules.ts';

/**
 * Entities map rows; the schema itself is owned by the SQL migrations in ./migrations
 * (constraints, partial indexes, cascades). Foreign keys are plain id columns so every
 * query stays explicit.
 */

export const Organization = defineEntity({
  name: 'Organization',
  tableName: 'organization',
  properties: {
    id: p.string().primary(),
    title: p.string(),
    createdAt: p.datetime(),
    /** The subdomain integrations may be published under (unique when set). */
    subdomain: p.string().nullable(),
    /** GitBook's MergeRules configuration; null is `none`. */
    mergeRules: p.json<MergeRulesConfig>().nullable(),
  },
});
export type Organization = InferEntity<typeof Organization>;

export const User = defineEntity({
  name: 'User',
  tableName: 'app_user',
  properties: {
    id: p.string().primary(),
    displayName: p.string(),
    email: p.string(),
    photoUrl: p.string().nullable(),
    createdAt: p.datetime(),
  },
});
export type User = InferEntity<typeof User>;

export const Member = defineEntity({
  name: 'Member',
  tableName: 'member',
  properties: {
    organizationId: p.string().primary(),
    userId: p.string().primary(),
    role: p.string().nullable(),
    disabled: p.boolean(),
    sso: p.boolean(),
    joinedAt: p.datetime(),
    lastSeenAt: p.datetime().nullable(),
  },
});
export type Member = InferEntity<typeof Member>;

export const ApiToken = defineEntity({
  name: 'ApiToken',
  tableName: 'api_token',
  properties: {
    id: p.string().primary(),
    userId: p.string(),
    /** The one organization the token works in (minted by its SSO sign-in); null: the user's own token. */
    organizationId: p.string().nullable(),
    tokenHash: p.string(),
    label: p.string(),
    createdAt: p.datetime(),
    lastUsedAt: p.datetime().nullable(),
    revokedAt: p.datetime().nullable(),
  },
});
export type ApiToken = InferEntity<typeof ApiToken>;

export const Collection = defineEntity({
  name: 'Collection',
  tableName: 'collection',
  properties: {
    id: p.string().primary(),
    organizationId: p.string(),
    parentId: p.string().nullable(),
    title: p.string(),
    description: p.string().nullable(),
    defaultLevel: p.string().nullable(),
    position: p.string(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type Collection = InferEntity<typeof Collection>;

export const Space = defineEntity({
  name: 'Space',
  tableName: 'space',
  properties: {
    id: p.string().primary(),
    organizationId: p.string(),
    parentId: p.string().nullable(),
    title: p.string(),
    emoji: p.string(),
    visibility: p.string(),
    editMode: p.string(),
    defaultLevel: p.string().nullable(),
    revisionId: p.string(),
    position: p.string(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
    deletedAt: p.datetime().nullable(),
    // Kept by database triggers (see Migration0010SpaceCounters); read-only here.
    changeRequests: p.integer().default(0),
    changeRequestsOpen: p.integer().default(0),
    changeRequestsDraft: p.integer().default(0),
    commentsOpen: p.integer().default(0),
    /** The last change request number handed out in the space (numbers are per space). */
    changeRequestSeq: p.integer().default(0),
    /** GitBook's MergeRules configuration of the space; null is `inherit`. */
    mergeRules: p.json<MergeRulesConfig>().nullable(),
  },
});
export type Space = InferEntity<typeof Space>;

/** One change made through the API or a job (Migration0032AuditLog; src/db/audit.ts). Never updated. */
export const AuditEvent = defineEntity({
  name: 'AuditEvent',
  tableName: 'audit_event',
  properties: {
    id: p.string().primary(),
    organizationId: p.string(),
    occurredAt: p.datetime(),
    action: p.string(),
    actorType: p.string(),
    actorId: p.string(),
    actorLabel: p.string().nullable(),
    /** How the actor signed the request: `api` (a user's own token), `sso` (a token an SSO sign-in minted), `saml` (the sign-in itself). */
    tokenKind: p.string().nullable(),
    source: p.string(),
    targetType: p.string(),
    targetId: p.string(),
    targetLabel: p.string().nullable(),
    ipAddress: p.string().nullable(),
    correlationId: p.string(),
    executionId: p.string().nullable(),
    causedByEventId: p.string().nullable(),
    schemaVersion: p.integer(),
    payload: p.json<Record<string, unknown>>(),
  },
});
export type AuditEvent = InferEntity<typeof AuditEvent>;

export const entities = [Organization, User, Member, ApiToken, Collection, Space, AuditEvent];

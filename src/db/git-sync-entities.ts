import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** Git Sync: a space's repository link, its queued requests and the push-webhook deliveries already seen. */

export const GitSync = defineEntity({
  name: 'GitSync',
  tableName: 'git_sync',
  properties: {
    spaceId: p.string().primary(),
    provider: p.string().nullable(),
    url: p.string().nullable(),
    ref: p.string().nullable(),
    repoName: p.string().nullable(),
    integration: p.string().nullable(),
    projectDirectory: p.string().nullable(),
    lastAppliedAt: p.datetime().nullable(),
    lastCommit: p.string().nullable(),
    lastRevision: p.string().nullable(),
    lastOperation: p.string().nullable(),
    status: p.string().defaultRaw("'idle'::text"),
    lastSyncError: p.json<unknown>().nullable(),
    conflictChangeRequest: p.string().nullable(),
    webhookProvider: p.string().nullable(),
    webhookRepository: p.string().nullable(),
    webhookBranch: p.string().nullable(),
    webhookSecret: p.string().nullable(),
    webhookCredentials: p.string().nullable(),
    createdAt: p.datetime().defaultRaw('now()'),
    updatedAt: p.datetime().defaultRaw('now()'),
  },
});
export type GitSync = InferEntity<typeof GitSync>;

export const GitSyncRequest = defineEntity({
  name: 'GitSyncRequest',
  tableName: 'git_sync_request',
  properties: {
    id: p.string().primary(),
    spaceId: p.string(),
    kind: p.string(),
    requestedAt: p.datetime(),
    params: p.json<unknown>(),
    credentials: p.string().nullable(),
    requestedBy: p.string().nullable(),
    state: p.string().defaultRaw("'queued'::text"),
    revisionId: p.string().nullable(),
    commit: p.string().nullable(),
    detail: p.json<unknown>().nullable(),
    createdAt: p.datetime().defaultRaw('now()'),
    finishedAt: p.datetime().nullable(),
    /** When the request reached the space's sync workflow (null: not known to have; sent again after a while). */
    signalledAt: p.datetime().nullable(),
  },
});
export type GitSyncRequest = InferEntity<typeof GitSyncRequest>;

export const GitWebhookDelivery = defineEntity({
  name: 'GitWebhookDelivery',
  tableName: 'git_webhook_delivery',
  properties: {
    spaceId: p.string().primary(),
    deliveryId: p.string().primary(),
    receivedAt: p.datetime().defaultRaw('now()'),
  },
});
export type GitWebhookDelivery = InferEntity<typeof GitWebhookDelivery>;

export const entities = [GitSync, GitSyncRequest, GitWebhookDelivery];

import { resolve } from 'node:path';
import type { Config } from '../config.ts';
import type { Orm } from '../db/orm.ts';
import type { SharedServices } from '../lib/shared-services.ts';
import { spaceDeletionActivities } from './space-deletion.ts';
import { changeRequestMergeActivities } from './change-request-merge.ts';
import { openapiActivities } from './openapi-processing.ts';
import { pdfActivities } from './pdf-export.ts';
import { contentImportActivities } from './content-import.ts';
import { gitSyncActivities } from './git-sync.ts';
import { searchIndexActivities } from './search-index.ts';
import { blobCollectionActivities } from './blob-collection.ts';
import { deliveryTargets, integrationEventsActivities, type EventLogTap } from './integration-events.ts';
import { integrationTaskActivities } from './integration-task.ts';
import { createIntegrationSandbox, integrationSandboxOptions, type IntegrationSandbox } from '../lib/integration-sandbox.ts';

/**
 * The sandbox integration scripts run in (its instances start on first use): one per worker process,
 * closed with it.
 */
export function workerSandbox(config: Config, logs: EventLogTap): IntegrationSandbox {
  return createIntegrationSandbox(integrationSandboxOptions(config, logs.hear));
}

/**
 * Every activity the worker registers, one module per job (named like its workflow). Each
 * receives its configuration and clients here, once: no activity reads the environment.
 */
export function createActivities(deps: {
  orm: Orm;
  config: Config;
  services: SharedServices;
  sandbox: IntegrationSandbox;
  logs: EventLogTap;
}) {
  const { orm, config } = deps;
  const { blobs, secrets } = deps.services;
  return {
    ...spaceDeletionActivities(orm),
    ...changeRequestMergeActivities(orm, { publicUrl: config.publicUrl }),
    ...searchIndexActivities(orm),
    ...blobCollectionActivities(orm, { blobs, graceMs: config.blobGraceMs }),
    ...openapiActivities(orm, config.fetch),
    ...pdfActivities(orm, { blobs, chromiumPath: config.chromiumPath, publicUrl: config.publicUrl }),
    ...contentImportActivities(orm, { blobs, policy: config.fetch, limits: config.contentImport, secrets }),
    ...gitSyncActivities(orm, {
      blobs,
      cacheDir: resolve(config.gitCacheDir),
      maxFileBytes: config.gitMaxFileBytes,
      markdown: config.gitMarkdown,
      timeoutMs: config.gitTimeoutMs,
      policy: config.fetch,
      secrets,
    }),
    ...integrationEventsActivities(orm, {
      sandbox: deps.sandbox,
      logs: deps.logs,
      target: deliveryTargets(orm, { publicUrl: config.publicUrl, secrets }),
    }),
    ...integrationTaskActivities(orm, { sandbox: deps.sandbox, publicUrl: config.publicUrl, secrets }),
  };
}

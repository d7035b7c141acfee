import type { Config } from '../config.ts';
import { blobRegistry } from '../db/blobs.ts';
import { blobStoreFor, type CollectedBlobStore } from './blob-store.ts';
import { configureTaskPool } from './bounded-parse.ts';
import { lazySecretBox, type SecretBox } from './secrets.ts';
import { lazySigningKey } from './signed-urls.ts';

/**
 * The long-lived clients and keys of a process, built once from its configuration and handed
 * down: to the API's routes in `AppDeps`, to the activities through `createActivities`. `npm start`
 * runs the API and the worker in one process, and they share one set.
 */
export interface SharedServices {
  /**
   * Where file bytes live (`BLOB_STORE`). Every write registers its blob first (src/db/blobs.ts,
   * on a small pool of its own), so the collection never deletes what a writer is storing.
   */
  blobs: CollectedBlobStore;
  /** The box that seals stored secrets with `SECRETS_KEY`, loaded on first use. */
  secrets: () => Promise<SecretBox>;
  /** The key that signs PDF links, derived from `SECRETS_KEY` on first use. */
  pdfSigningKey: () => Promise<Buffer>;
  /** The key that signs the file links handed to site visitors, derived the same way. */
  fileUrlKey: () => Promise<Buffer>;
  /** The service key site visitors' tokens are signed with (per site, see src/api/site-tokens.ts). */
  siteTokenKey: () => Promise<Buffer>;
}

export function sharedServices(config: Config): SharedServices {
  // The process's one parsing pool (./bounded-parse.ts), sized before its first task.
  if (config.parseThreads > 0) configureTaskPool({ threads: config.parseThreads });
  return {
    blobs: blobStoreFor(config, config.databaseUrl ? blobRegistry(config.databaseUrl) : undefined),
    secrets: lazySecretBox(config),
    pdfSigningKey: lazySigningKey(config, 'pdf'),
    fileUrlKey: lazySigningKey(config, 'file-download'),
    siteTokenKey: lazySigningKey(config, 'site-token'),
  };
}

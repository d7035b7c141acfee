import type { BlobStore } from '../lib/blob-store.ts';
import type { FetchPolicy } from '../lib/guarded-fetch.ts';
import type { SecretBox } from '../lib/secrets.ts';

/** What every Git Sync activity is built with (the worker's shared services and settings). */
export interface GitSyncActivityOptions {
  blobs: BlobStore;
  cacheDir: string;
  maxFileBytes: number;
  timeoutMs: number;
  policy: FetchPolicy;
  secrets: () => Promise<SecretBox>;
}

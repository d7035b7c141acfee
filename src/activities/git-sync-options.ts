import type { BlobStore } from '../lib/blob-store.ts';
import type { FetchPolicy } from '../lib/guarded-fetch.ts';
import type { SecretBox } from '../lib/secrets.ts';

/** What every Git Sync activity is built with (the worker's shared services and settings). */
export interface GitSyncActivityOptions {
  blobs: BlobStore;
  cacheDir: string;
  maxFileBytes: number;
  /** What one import reads of markdown (GIT_MAX_MARKDOWN_*): files, bytes of one file, bytes in all. */
  markdown: { maxFiles: number; maxFileBytes: number; maxTotalBytes: number };
  timeoutMs: number;
  policy: FetchPolicy;
  secrets: () => Promise<SecretBox>;
}

import { ActivityCancellationType, CancellationScope, patched, proxyActivities } from '@temporalio/workflow';
import type { ContentImportActivities, ContentImportInput, ContentImportOutcome } from '../activities/content-import.ts';
import { searchIndex, startSearchIndex } from './search-index.ts';

// Reading fetches, unpacks or crawls: long, with heartbeats. Its bounded retries cover a worker
// lost mid-read, and resume from what the lost attempt heartbeated it had finished; what the
// source itself refuses comes back as a `failed` outcome, not retried, including archives and
// documents that outgrow the bounded thread they are parsed in (memory, time, unpacked bytes:
// TOO_LARGE, PARSE_TIMEOUT), which can therefore no longer take the worker down. A cancelled
// import does not wait for the read to stop: it has written blobs only.
const { readContentImport } = proxyActivities<ContentImportActivities>({
  startToCloseTimeout: '15 minutes',
  heartbeatTimeout: '20 seconds',
  retry: { initialInterval: '2s', backoffCoefficient: 2, maximumInterval: '30s', maximumAttempts: 3 },
});

// The write heartbeats so that a cancellation reaches it, and a cancelled import waits for it to
// stop: it rolls back before its commit, so an import that ends cancelled left the target as it
// was (a write that committed before the cancellation reached it answers its outcome).
const { applyContentImport } = proxyActivities<ContentImportActivities>({
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '20 seconds',
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '30s', maximumAttempts: 10 },
});

/**
 * Patch: the search index follows an import into a space's primary content through the
 * `search-index` job (as it follows a merge), no longer inside the import's write. Histories
 * recorded before it replay without starting the job.
 */
const IMPORT_STARTS_SEARCH_INDEX = 'content-import-starts-search-index';

/**
 * Imports content into a space or a change request: read the source (one activity), then write
 * one revision (another, idempotent on the revision id chosen when the import was requested).
 * An import into the space's primary content then starts the `search-index` job of that revision
 * and answers without waiting for it.
 */
export async function contentImport(input: ContentImportInput): Promise<ContentImportOutcome> {
  const read = await readContentImport(input);
  if (read.status === 'failed') return read;
  const outcome = await applyContentImport({ ...input, bundle: read.bundle });
  if (outcome.status === 'imported' && input.changeRequestId === null && patched(IMPORT_STARTS_SEARCH_INDEX)) {
    // The revision is written: its index job starts even if the import was cancelled meanwhile.
    await CancellationScope.nonCancellable(() => startSearchIndex(input.spaceId, outcome.revision));
  }
  return outcome;
}

// A worker bundled from this module alone runs the job it starts too.
export { searchIndex };

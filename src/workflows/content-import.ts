import { proxyActivities } from '@temporalio/workflow';
import type { ContentImportActivities, ContentImportInput, ContentImportOutcome } from '../activities/content-import.ts';

// Reading fetches, unpacks or crawls: long, with heartbeats. Its bounded retries cover a worker
// lost mid-read; what the source itself refuses comes back as a `failed` outcome, not retried,
// including archives and documents that outgrow the bounded thread they are parsed in (memory,
// time, unpacked bytes: TOO_LARGE, PARSE_TIMEOUT), which can therefore no longer take the worker down.
const { readContentImport } = proxyActivities<ContentImportActivities>({
  startToCloseTimeout: '15 minutes',
  heartbeatTimeout: '20 seconds',
  retry: { initialInterval: '2s', backoffCoefficient: 2, maximumInterval: '30s', maximumAttempts: 3 },
});

const { applyContentImport } = proxyActivities<ContentImportActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '30s', maximumAttempts: 10 },
});

/**
 * Imports content into a space or a change request: read the source (one activity), then write
 * one revision (another, idempotent on the revision id chosen when the import was requested).
 */
export async function contentImport(input: ContentImportInput): Promise<ContentImportOutcome> {
  const read = await readContentImport(input);
  if (read.status === 'failed') return read;
  return applyContentImport({ ...input, bundle: read.bundle });
}

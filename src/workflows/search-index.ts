import { proxyActivities } from '@temporalio/workflow';
import type { SearchIndexActivities } from '../activities/search-index.ts';

const { indexSpaceSearch } = proxyActivities<SearchIndexActivities>({
  startToCloseTimeout: '10 minutes',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 20 },
});

/** `search-index/<spaceId>/<revisionId>`: one index job per revision a merge made. */
export const searchIndexWorkflowId = (spaceId: string, revisionId: string) => `search-index/${spaceId}/${revisionId}`;

/**
 * Brings a space's search index up to its current revision after a merge, outside the merge's
 * transaction, so the merge answers without waiting for the index (search catches up within
 * moments). Started by the merge workflow and left running when it ends.
 */
export async function searchIndex(spaceId: string): Promise<{ changed: boolean }> {
  return indexSpaceSearch(spaceId);
}

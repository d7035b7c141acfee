import { createHash } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { contentImport } from '../workflows/content-import.ts';
import type { ContentImportInput, ContentImportOutcome } from '../activities/content-import.ts';
import { JOB_KIND, ORGANIZATION_ID, SPACE_ID } from '../workflows/search-attributes.ts';
import { searchIndexWorkflowId } from './search-index.ts';
import { startAndAwait } from './await-job.ts';

/**
 * `content-import/<spaceId>/<changeRequestId | primary>/<source>-<hash of the URL>`: the same import
 * asked again while it runs joins that run; once finished, asking again imports again.
 */
export function contentImportWorkflowId(input: Pick<ContentImportInput, 'spaceId' | 'changeRequestId' | 'source' | 'url'>): string {
  const key = createHash('sha256').update(input.url).digest('hex').slice(0, 16);
  return `content-import/${input.spaceId}/${input.changeRequestId ?? 'primary'}/${input.source}-${key}`;
}

/**
 * Starts (or joins) an import and waits for its outcome, at most `waitMs`, else answers 503 (see
 * `startAndAwait`). An import into the space's primary content is answered once the search index
 * job it started has caught up too (within the same wait), so that search finds what the answer
 * says was imported.
 */
export async function runContentImport(
  client: Client,
  taskQueue: string,
  input: ContentImportInput,
  context: { organizationId: string; waitMs: number },
): Promise<ContentImportOutcome> {
  return startAndAwait(client, contentImport, {
    taskQueue,
    workflowId: contentImportWorkflowId(input),
    args: [input],
    workflowExecutionTimeout: '30 minutes',
    typedSearchAttributes: [
      { key: ORGANIZATION_ID, value: context.organizationId },
      { key: SPACE_ID, value: input.spaceId },
      { key: JOB_KIND, value: 'content-import' },
    ],
    memo: { requestedBy: input.userId, changeRequestId: input.changeRequestId ?? '', source: input.source, url: input.url },
    waitMs: context.waitMs,
    pendingMessage: `The import is still running after ${Math.round(context.waitMs / 1000)} s; send the same request again to wait for its result`,
    followUp: (outcome) =>
      outcome.status === 'imported' && input.changeRequestId === null ? searchIndexWorkflowId(input.spaceId, outcome.revision) : null,
  });
}

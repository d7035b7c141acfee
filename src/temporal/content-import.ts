import { createHash } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { contentImport } from '../workflows/content-import.ts';
import type { ContentImportInput, ContentImportOutcome } from '../activities/content-import.ts';
import { JOB_KIND, ORGANIZATION_ID, SPACE_ID } from '../workflows/search-attributes.ts';

/**
 * `content-import/<spaceId>/<changeRequestId | primary>/<source>-<hash of the URL>`: the same import
 * asked again while it runs joins that run; once finished, asking again imports again.
 */
export function contentImportWorkflowId(input: Pick<ContentImportInput, 'spaceId' | 'changeRequestId' | 'source' | 'url'>): string {
  const key = createHash('sha256').update(input.url).digest('hex').slice(0, 16);
  return `content-import/${input.spaceId}/${input.changeRequestId ?? 'primary'}/${input.source}-${key}`;
}

/** Starts (or joins) an import and waits for its outcome, at most `waitMs`; null when it is still running then. */
export async function runContentImport(
  client: Client,
  taskQueue: string,
  input: ContentImportInput,
  context: { organizationId: string; waitMs: number },
): Promise<ContentImportOutcome | null> {
  const handle = await client.workflow.start(contentImport, {
    taskQueue,
    workflowId: contentImportWorkflowId(input),
    args: [input],
    workflowIdReusePolicy: 'ALLOW_DUPLICATE',
    workflowIdConflictPolicy: 'USE_EXISTING',
    workflowExecutionTimeout: '30 minutes',
    typedSearchAttributes: [
      { key: ORGANIZATION_ID, value: context.organizationId },
      { key: SPACE_ID, value: input.spaceId },
      { key: JOB_KIND, value: 'content-import' },
    ],
    memo: { requestedBy: input.userId, changeRequestId: input.changeRequestId ?? '', source: input.source, url: input.url },
  });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), context.waitMs);
  });
  try {
    return await Promise.race([handle.result() as Promise<ContentImportOutcome>, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

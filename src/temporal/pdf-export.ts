import type { Client } from '@temporalio/client';
import { pdfExport } from '../workflows/pdf-export.ts';
import type { PdfExportInput, PdfExportOutcome } from '../activities/pdf-export.ts';
import { JOB_KIND, ORGANIZATION_ID, SPACE_ID } from '../workflows/search-attributes.ts';
import { JOB_WAIT_MS, startAndAwait } from './await-job.ts';

/**
 * `pdf-export/<spaceId>/<changeRequestId>/<revisionId>` for the whole content of a change request
 * (`pdf-export/<spaceId>/space/<revisionId>` for the space's own content), `…/<pageId>` for one
 * page alone and `…/<pageId>/subtree` for a page with the pages under it.
 */
export function pdfExportWorkflowId(input: PdfExportInput): string {
  const base = `pdf-export/${input.spaceId}/${input.changeRequestId ?? 'space'}/${input.revisionId}`;
  if (input.pageId === null) return base;
  return input.only ? `${base}/${input.pageId}` : `${base}/${input.pageId}/subtree`;
}

/**
 * Runs a PDF export and waits up to `waitMs` for its outcome, else answers 503. A request while
 * the same export runs joins it; a later one starts a new run, which finds the recorded PDF and
 * returns at once (see `startAndAwait`).
 */
export async function runPdfExport(
  client: Client,
  taskQueue: string,
  input: PdfExportInput,
  context: { organizationId: string; requestedBy: string },
  waitMs = JOB_WAIT_MS,
): Promise<PdfExportOutcome> {
  return startAndAwait(client, pdfExport, {
    taskQueue,
    workflowId: pdfExportWorkflowId(input),
    args: [input],
    workflowExecutionTimeout: '10 minutes',
    typedSearchAttributes: [
      { key: ORGANIZATION_ID, value: context.organizationId },
      { key: SPACE_ID, value: input.spaceId },
      { key: JOB_KIND, value: 'pdf-export' },
    ],
    memo: { requestedBy: context.requestedBy, changeRequestId: input.changeRequestId },
    waitMs,
    pendingMessage: `The PDF is being printed but was not ready within ${waitMs / 1000} s; ask again shortly`,
  });
}

import type { Client } from '@temporalio/client';
import { pdfExport } from '../workflows/pdf-export.ts';
import type { PdfExportInput, PdfExportOutcome } from '../activities/pdf.ts';
import { JOB_KIND, ORGANIZATION_ID, SPACE_ID } from '../workflows/search-attributes.ts';

/**
 * `pdf-export/<spaceId>/<changeRequestId>/<revisionId>` for the whole content,
 * `…/<pageId>` for one page alone and `…/<pageId>/subtree` for a page with the pages under it.
 */
export function pdfExportWorkflowId(input: PdfExportInput): string {
  const base = `pdf-export/${input.spaceId}/${input.changeRequestId}/${input.revisionId}`;
  if (input.pageId === null) return base;
  return input.only ? `${base}/${input.pageId}` : `${base}/${input.pageId}/subtree`;
}

/**
 * Runs a PDF export and waits for its outcome. A request while the same export runs joins it;
 * a later one starts a new run, which finds the recorded PDF and returns at once.
 */
export async function runPdfExport(
  client: Client,
  taskQueue: string,
  input: PdfExportInput,
  context: { organizationId: string; requestedBy: string },
): Promise<PdfExportOutcome> {
  return client.workflow.execute(pdfExport, {
    taskQueue,
    workflowId: pdfExportWorkflowId(input),
    args: [input],
    workflowIdReusePolicy: 'ALLOW_DUPLICATE',
    workflowIdConflictPolicy: 'USE_EXISTING',
    workflowExecutionTimeout: '10 minutes',
    typedSearchAttributes: [
      { key: ORGANIZATION_ID, value: context.organizationId },
      { key: SPACE_ID, value: input.spaceId },
      { key: JOB_KIND, value: 'pdf-export' },
    ],
    memo: { requestedBy: context.requestedBy, changeRequestId: input.changeRequestId },
  });
}

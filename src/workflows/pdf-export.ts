import { proxyActivities } from '@temporalio/workflow';
import type { PdfActivities, PdfExportInput, PdfExportOutcome } from '../activities/pdf-export.ts';

const { exportChangeRequestPdf } = proxyActivities<PdfActivities>({
  startToCloseTimeout: '2 minutes',
  // The activity heartbeats every few seconds while it waits for and drives the browser.
  heartbeatTimeout: '30 seconds',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '20s', maximumAttempts: 5 },
});

/**
 * Prints a change request's content at one revision to PDF (one activity: reuse a recorded PDF,
 * or load, convert, print, store and record). Its id names the space, change request, revision
 * and page, so concurrent requests for the same PDF join one run.
 */
export async function pdfExport(input: PdfExportInput): Promise<PdfExportOutcome> {
  return exportChangeRequestPdf(input);
}

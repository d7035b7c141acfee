import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { PdfActivities, PdfExportInput, PdfExportOutcome } from '../../src/activities/pdf-export.ts';
import { HttpError } from '../../src/api/errors.ts';
import { pdfExportWorkflowId, runPdfExport } from '../../src/temporal/pdf-export.ts';
import { JOB_KIND, ORGANIZATION_ID, SPACE_ID } from '../../src/workflows/search-attributes.ts';
import { gate, recordingClient, startWorkflowWorker, type WorkflowWorker } from '../support/workflow-worker.ts';

/**
 * The pdf-export workflow as the API runs it (runPdfExport): the outcome of the export activity,
 * retries, the workflow id per revision and page, and waiting (503, then joining the same run).
 */
let w: WorkflowWorker;
type Step = (input: PdfExportInput) => Promise<PdfExportOutcome> | PdfExportOutcome;
const scripts = new Map<string, Step[]>();
const calls: PdfExportInput[] = [];

const activities: PdfActivities = {
  async exportChangeRequestPdf(input) {
    const steps = scripts.get(input.changeRequestId ?? '')!;
    const attempt = calls.filter((c) => c.changeRequestId === input.changeRequestId).length;
    calls.push(input);
    return steps[Math.min(attempt, steps.length - 1)](input);
  },
};

beforeAll(async () => {
  w = await startWorkflowWorker('pdf-export', 'pdf-export.ts', activities);
});
afterAll(() => w.stop());

let n = 0;
function exportOf(steps: Step[], page: { pageId: string; only: boolean } | null = null): PdfExportInput {
  const changeRequestId = `cr-${++n}-${Date.now()}`;
  scripts.set(changeRequestId, steps);
  return { spaceId: `space-${n}`, changeRequestId, revisionId: `rev-${n}`, pageId: page?.pageId ?? null, only: page?.only ?? false };
}
const callsOf = (input: PdfExportInput) => calls.filter((c) => c.changeRequestId === input.changeRequestId);
const context = { organizationId: 'org-1', requestedBy: 'user-1' };
const ready: PdfExportOutcome = { status: 'ready', sha256: 'a'.repeat(64), size: 1234, pages: 3, reused: false };

describe('pdf-export workflow', () => {
  it('answers the printed PDF, its run named after the revision, with search attributes', async () => {
    const input = exportOf([() => ready]);
    expect(await runPdfExport(w.client, w.taskQueue, input, context)).toEqual(ready);
    expect(callsOf(input)).toEqual([input]);
    const description = await w.client.workflow.getHandle(pdfExportWorkflowId(input)).describe();
    expect(description.workflowId).toBe(`pdf-export/${input.spaceId}/${input.changeRequestId}/${input.revisionId}`);
    expect(description.type).toBe('pdfExport');
    expect(description.typedSearchAttributes.get(ORGANIZATION_ID)).toBe('org-1');
    expect(description.typedSearchAttributes.get(SPACE_ID)).toBe(input.spaceId);
    expect(description.typedSearchAttributes.get(JOB_KIND)).toBe('pdf-export');
  });

  it('names one page and a page with its subtree apart', () => {
    const base = { spaceId: 's', changeRequestId: 'c', revisionId: 'r' };
    expect(pdfExportWorkflowId({ ...base, pageId: 'p', only: true })).toBe('pdf-export/s/c/r/p');
    expect(pdfExportWorkflowId({ ...base, pageId: 'p', only: false })).toBe('pdf-export/s/c/r/p/subtree');
  });

  it('passes "not found" through as an outcome', async () => {
    const input = exportOf([() => ({ status: 'not-found', what: 'page' })], { pageId: 'gone', only: true });
    expect(await runPdfExport(w.client, w.taskQueue, input, context)).toEqual({ status: 'not-found', what: 'page' });
  });

  it('prints again when an attempt fails (the browser crashed)', async () => {
    const input = exportOf([
      () => {
        throw new Error('Target page, context or browser has been closed');
      },
      () => ready,
    ]);
    expect(await runPdfExport(w.client, w.taskQueue, input, context)).toEqual(ready);
    expect(callsOf(input)).toHaveLength(2);
  });

  it('answers 503 when printing outlasts the wait, and the next request joins the same run', async () => {
    const held = gate();
    const input = exportOf([
      async () => {
        await held.opened;
        return ready;
      },
    ]);
    // The run each request's start reached, as Temporal answered it.
    const { client, runs, started } = recordingClient(w.client);
    const first = await runPdfExport(client, w.taskQueue, input, context, 300).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(first).toBeInstanceOf(HttpError);
    expect(first).toMatchObject({ statusCode: 503, message: 'The PDF is being printed but was not ready within 0.3 s; ask again shortly' });
    const second = runPdfExport(client, w.taskQueue, input, context);
    // Printing ends only once the second request has reached the run (were it to arrive after the
    // run had ended, it would rightly start another).
    await started(2);
    held.open();
    expect(await second).toEqual(ready);
    expect(runs[1]).toBe(runs[0]);
    expect(callsOf(input)).toHaveLength(1);
  });
});

/**
 * PDF: `GET …/change-requests/{id}/pdf` end to end (HTTP → workflow → activity → Chromium → blob
 * store) for a change request of `pdfPages` pages, against Chromium printing the prepared HTML of
 * the same pages in this process (src/lib/pdf-printer.ts, browser already running). The recorded
 * export is deleted before each round, so every round prints; one unmeasured round warms both up,
 * and each timed print starts after a short pause.
 *
 * Each round also says where the API's time went: before the activity started (HTTP, workflow
 * start, workflow task, activity task: from the workflow's history), the activity's phases (its
 * result's `timings`: loading and converting the pages, readying a page, loading the HTML,
 * printing, storing), and after it (workflow completion, the answer); and Chromium alone's own
 * phases (readying a page, loading the HTML, printing, closing).
 */
import { Client, Connection } from '@temporalio/client';
import type { PdfExportOutcome, PdfTimings } from '../../src/activities/pdf-export.ts';
import { loadConfig } from '../../src/config.ts';
import { loadPageMap } from '../../src/db/content.ts';
import { sql } from '../../test/support/sql.ts';
import { printDocumentHtml, selectPrintPages } from '../../src/domain/content/html.ts';
import { closePdfPrinter, printPdf, type PrintResult } from '../../src/lib/pdf-printer.ts';
import { pdfExportWorkflowId } from '../../src/temporal/pdf-export.ts';
import { median } from '../lib.ts';
import { generatePages, seedSpace } from '../corpus.ts';
import type { RunOptions, Row } from '../load.ts';
import type { Stack } from '../stack.ts';

/** Where one round's time went, in milliseconds. */
interface ApiPhases extends PdfTimings {
  total: number;
  /** From sending the request to the activity starting. */
  beforeActivity: number;
  activity: number;
  /** From the activity completing to the answer arriving. */
  afterActivity: number;
}
type DirectPhases = PrintResult['timings'] & { total: number };

/**
 * A pause before each timed print: a browser's page processes exit a moment after their context is
 * closed, and neither measurement should pay for the other's teardown.
 */
const SETTLE_MS = 300;
const settle = () => new Promise((resolve) => setTimeout(resolve, SETTLE_MS));

const ms = (t: { seconds?: unknown; nanos?: number | null } | null | undefined) => Number(t?.seconds ?? 0) * 1000 + (t?.nanos ?? 0) / 1e6;
const r0 = (n: number) => Math.round(n);

function describeApi(p: ApiPhases): string {
  return (
    `API ${r0(p.total)} ms = before the activity ${r0(p.beforeActivity)} + activity ${r0(p.activity)} ` +
    `[load ${p.loadMs}, convert ${p.convertMs}, print slot ${p.waitMs}, page ready ${p.prepareMs}, HTML into page ${p.contentMs}, ` +
    `print ${p.printMs}, close ${p.closeMs}, store ${p.storeMs}] + after ${r0(p.afterActivity)}`
  );
}
const describeDirect = (p: DirectPhases) =>
  `Chromium alone ${r0(p.total)} ms = page ready ${p.prepareMs} + HTML into page ${p.contentMs} + print ${p.printMs} + close ${p.closeMs}`;

/** The median of every field over the rounds. */
function medians<T extends object>(rounds: T[]): T {
  const keys = Object.keys(rounds[0]) as (keyof T)[];
  return Object.fromEntries(keys.map((k) => [k, r0(median(rounds.map((r) => r[k] as number)))])) as T;
}

export async function measurePdf(stack: Stack, options: RunOptions, log: (line: string) => void): Promise<Row[]> {
  const { call } = stack;
  const chromium = loadConfig({ ...process.env, DATABASE_URL: stack.databaseUrl }).chromiumPath;
  const space = await call('POST', `/v1/orgs/${stack.orgId}/spaces`, { title: 'PDF benchmark', empty: true });
  await seedSpace(stack.orm, space.id, generatePages(options.pdfPages, 'd'));
  const cr = await call('POST', `/v1/spaces/${space.id}/change-requests`, { subject: 'PDF benchmark' });
  const crRow = await call('GET', `/v1/spaces/${space.id}/change-requests/${cr.id}`);
  const map = await loadPageMap(stack.orm.em.fork(), crRow.revision, true);
  const pages = selectPrintPages(map, {})!;
  const html = printDocumentHtml({ title: 'PDF benchmark', subtitle: `PDF benchmark · Change request #${cr.number}`, pages });
  const workflowId = pdfExportWorkflowId({
    spaceId: space.id,
    changeRequestId: cr.id,
    revisionId: crRow.revision,
    pageId: null,
    only: false,
  });
  const connection = await Connection.connect({ address: stack.temporalAddress });
  const client = new Client({ connection, namespace: 'default' });

  /** The round's run of the workflow (the latest): its outcome's timings and when its activity ran. */
  const apiPhases = async (sent: number, answered: number): Promise<ApiPhases> => {
    const handle = client.workflow.getHandle(workflowId);
    const outcome = (await handle.result()) as PdfExportOutcome;
    if (outcome.status !== 'ready' || !outcome.timings) throw new Error(`pdf: the round did not print (${JSON.stringify(outcome)})`);
    const events = (await handle.fetchHistory()).events ?? [];
    const started = events.find((e) => e.activityTaskStartedEventAttributes);
    const completed = events.find((e) => e.activityTaskCompletedEventAttributes);
    const activityStarted = ms(started?.eventTime);
    const activityCompleted = ms(completed?.eventTime);
    return {
      total: answered - sent,
      beforeActivity: activityStarted - sent,
      activity: activityCompleted - activityStarted,
      afterActivity: answered - activityCompleted,
      ...outcome.timings,
    };
  };

  const viaApi: ApiPhases[] = [];
  const direct: DirectPhases[] = [];
  try {
    for (let round = 0; round <= options.rounds; round++) {
      await sql(stack.orm.em.fork(), 'delete from pdf_export where change_request_id = ?', [cr.id]);
      await settle();
      const sent = Date.now();
      let t = performance.now();
      await call('GET', `/v1/spaces/${space.id}/change-requests/${cr.id}/pdf`);
      const api = performance.now() - t;
      const phases = { ...(await apiPhases(sent, sent + api)), total: api };
      await settle();
      t = performance.now();
      const printed = await printPdf(html, { executablePath: chromium });
      const alone = { ...printed.timings, total: performance.now() - t };
      if (round === 0) continue; // warm-up: both browsers launched
      viaApi.push(phases);
      direct.push(alone);
      log(`pdf: round ${round}: ${describeApi(phases)}; ${describeDirect(alone)}`);
    }
  } finally {
    await closePdfPrinter();
    await connection.close();
  }
  const e2e = median(viaApi.map((p) => p.total));
  const chrome = median(direct.map((p) => p.total));
  const ratio = e2e / chrome;
  const note = `medians: ${describeApi(medians(viaApi))}; ${describeDirect(medians(direct))}`;
  log(`pdf: ${note}`);
  return [
    {
      measure: `PDF of a ${options.pdfPages}-page change request (GET …/pdf)`,
      value: e2e / 1000,
      unit: 's',
      baseline: 'Chromium printing the prepared HTML',
      baselineValue: chrome / 1000,
      ratio,
      target: 'ratio ≤ 1.3',
      met: ratio <= 1.3,
      perRound: viaApi.map((p, i) => p.total / direct[i].total),
      note,
    },
  ];
}

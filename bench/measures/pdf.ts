/**
 * PDF: `GET …/change-requests/{id}/pdf` end to end (HTTP → workflow → activity → Chromium → blob
 * store) for a change request of `pdfPages` pages, against Chromium printing the prepared HTML of
 * the same pages in this process (src/lib/pdf-printer.ts, browser already running). The recorded
 * export is deleted before each round, so every round prints; one unmeasured round warms both up.
 */
import { loadConfig } from '../../src/config.ts';
import { loadPageMap } from '../../src/db/content.ts';
import { sql } from '../../test/support/sql.ts';
import { printDocumentHtml, selectPrintPages } from '../../src/domain/content/html.ts';
import { closePdfPrinter, printPdf } from '../../src/lib/pdf-printer.ts';
import { median } from '../lib.ts';
import { generatePages, seedSpace } from '../corpus.ts';
import type { RunOptions, Row } from '../load.ts';
import type { Stack } from '../stack.ts';

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

  const viaApi: number[] = [];
  const direct: number[] = [];
  try {
    for (let round = 0; round <= options.rounds; round++) {
      await sql(stack.orm.em.fork(), 'delete from pdf_export where change_request_id = ?', [cr.id]);
      let t = performance.now();
      await call('GET', `/v1/spaces/${space.id}/change-requests/${cr.id}/pdf`);
      const api = performance.now() - t;
      t = performance.now();
      await printPdf(html, { executablePath: chromium });
      const chromiumMs = performance.now() - t;
      if (round === 0) continue; // warm-up: both browsers launched
      viaApi.push(api);
      direct.push(chromiumMs);
      log(`pdf: round ${round}: API ${api.toFixed(0)} ms, Chromium alone ${chromiumMs.toFixed(0)} ms`);
    }
  } finally {
    await closePdfPrinter();
  }
  const e2e = median(viaApi);
  const chrome = median(direct);
  const ratio = e2e / chrome;
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
      perRound: viaApi.map((ms, i) => ms / direct[i]),
    },
  ];
}

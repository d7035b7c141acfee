/**
 * Space search: p95 of `GET /v1/spaces/{id}/search` over a space of `searchPages` pages, against the
 * same queries answered by an ILIKE scan of the same documents in SQL (no HTTP, no index). The scan
 * reads every document (about 2 s a query at 100,000 pages), so the baseline runs an evenly spaced
 * sample of the queries (`ILIKE_SAMPLE`) rather than all of them: its p95 is the sample's.
 */
import { sql } from '../../test/support/sql.ts';
import { percentile } from '../lib.ts';
import { generatePages, seedSpace, word } from '../corpus.ts';
import type { RunOptions, Row } from '../load.ts';
import type { Stack } from '../stack.ts';

/** Queries of the ILIKE baseline (an evenly spaced sample of the searched ones). */
const ILIKE_SAMPLE = 10;

export async function measureSearch(stack: Stack, options: RunOptions, log: (line: string) => void): Promise<Row[]> {
  const pages = options.searchPages;
  const queryCount = options.quick ? 60 : 300;
  const space = await stack.call('POST', `/v1/orgs/${stack.orgId}/spaces`, { title: 'Search benchmark', empty: true });
  const started = Date.now();
  const revision = await seedSpace(stack.orm, space.id, generatePages(pages, 'p'), 'bulk');
  log(`search: ${pages} pages seeded and indexed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  const queries = Array.from({ length: queryCount }, (_, i) => (i % 3 === 0 ? `${word()} ${word()}` : word()));
  const search = (query: string) => stack.call('GET', `/v1/spaces/${space.id}/search?query=${encodeURIComponent(query)}&limit=20`);
  await search(queries[0]);
  const viaApi: number[] = [];
  const viaIlike: number[] = [];
  // Each in a pass of its own: a scan of every document between two searches would measure the
  // searches with the index's pages pushed out of the caches by the baseline.
  for (const query of queries) {
    const t = performance.now();
    await search(query);
    viaApi.push(performance.now() - t);
  }
  const slowest = queries.map((query, i) => ({ query, ms: viaApi[i] })).sort((a, b) => b.ms - a.ms);
  log(
    `search: slowest queries: ${slowest
      .slice(0, 8)
      .map((s) => `"${s.query}" ${s.ms.toFixed(1)} ms`)
      .join(', ')}`,
  );
  const step = Math.max(1, Math.floor(queries.length / ILIKE_SAMPLE));
  for (const query of queries.filter((_, i) => i % step === 0).slice(0, ILIKE_SAMPLE)) {
    const terms = query.split(' ');
    const t = performance.now();
    await sql(
      stack.orm.em.fork(),
      // The same answer without the index: every matching page found (for the total), first 20 returned.
      `select rp.page_id, rp.meta->>'title' as title, count(*) over () as total from revision_page rp
         join page_document d on d.space_id = ? and d.hash = rp.document_hash
        where rp.revision_id = ? and ${terms.map(() => "(d.markdown ilike ? or rp.meta->>'title' ilike ?)").join(' and ')}
        order by rp.meta->>'title' limit 20`,
      [space.id, revision, ...terms.flatMap((w) => [`%${w}%`, `%${w}%`])],
    );
    viaIlike.push(performance.now() - t);
  }
  const p95 = percentile(Float64Array.from(viaApi).sort(), 95);
  const ilike = percentile(Float64Array.from(viaIlike).sort(), 95);
  return [
    {
      measure: `space search p95, ${pages.toLocaleString('en')} pages (HTTP)`,
      value: p95,
      unit: 'ms',
      baseline: 'ILIKE scan p95 (SQL only)',
      baselineValue: ilike,
      ratio: p95 / ilike,
      target: 'value ≤ 30 ms',
      met: p95 <= 30,
      note: `${queryCount} queries, one at a time; p50 ${percentile(Float64Array.from(viaApi).sort(), 50).toFixed(1)} ms; ILIKE baseline over ${viaIlike.length} of them`,
    },
  ];
}

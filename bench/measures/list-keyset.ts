/**
 * A list endpoint's first page against its 1,000th page (keyset pagination): the collections of
 * one organization, seeded with one `INSERT … SELECT generate_series` (a million rows in a full run).
 * The 1,000th page's cursor is the one `next.page` would give there, built from the row before it.
 */
import { encodeCursor } from '../../src/domain/cursor.ts';
import { sql } from '../../test/support/sql.ts';
import { compare, load, ratios, type RunOptions, type Row } from '../load.ts';
import type { Stack } from '../stack.ts';

const LIMIT = 100;

export async function measureListKeyset(stack: Stack, options: RunOptions, log: (line: string) => void): Promise<Row[]> {
  const orgId = stack.orgId;
  const started = Date.now();
  const em = stack.orm.em.fork();
  // Inside one collection of their own, so that their made-up position keys never neighbour what
  // the other benchmarks create at the organization's root.
  const parent = await stack.call('POST', `/v1/orgs/${orgId}/collections`, { title: 'List benchmark' });
  await sql(
    em,
    `insert into collection (id, organization_id, parent_id, title, position, created_at, updated_at)
     select 'benchcoll' || lpad(g::text, 8, '0'), ?, ?, 'Collection ' || g, lpad(g::text, 8, '0'),
            timestamptz '2026-01-01' + g * interval '1 second', now()
       from generate_series(1, ?) g`,
    [orgId, parent.id, options.listRows],
  );
  await sql(em, 'analyze collection');
  log(`list: ${options.listRows} collections seeded in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  const pageNumber = Math.min(1000, Math.floor(options.listRows / LIMIT));
  // The row just before the page: every key of the sort (created_at, id).
  const [before] = await sql<{ id: string; created_at: Date }>(
    em,
    'select id, created_at from collection where organization_id = ? order by created_at, id offset ? limit 1',
    [orgId, (pageNumber - 1) * LIMIT - 1],
  );
  const cursor = encodeCursor([new Date(before.created_at).toISOString(), before.id]);
  const path = `/v1/orgs/${orgId}/collections?limit=${LIMIT}`;
  const deep = await stack.call('GET', `${path}&page=${encodeURIComponent(cursor)}`);
  if (deep.items.length !== LIMIT) throw new Error(`page ${pageNumber} has ${deep.items.length} items`);
  const auth = { authorization: `Bearer ${stack.token}` };
  const run = { connections: Math.min(8, options.connections), duration: options.duration, headers: auth };
  const [first, nth] = await compare(
    options.rounds,
    () => load(`${stack.api.url}${path}`, run),
    () => load(`${stack.api.url}${path}&page=${encodeURIComponent(cursor)}`, run),
  );
  const ratio = nth.mean / first.mean;
  return [
    {
      measure: `list page ${pageNumber} of ${options.listRows.toLocaleString('en')} rows, mean latency`,
      value: nth.mean,
      unit: 'ms',
      baseline: 'first page, mean latency',
      baselineValue: first.mean,
      ratio,
      target: 'ratio ≤ 1.5',
      met: ratio <= 1.5,
      note: `${nth.rps.toFixed(0)} vs ${first.rps.toFixed(0)} req/s`,
      perRound: ratios(nth.rounds, first.rounds, (r) => r.mean),
    },
  ];
}

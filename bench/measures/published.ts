/**
 * Published-URL resolution: `POST /v1/urls/published` resolving a page three levels deep in a
 * public site of sections × site-spaces × 500 pages (10 × 5 in a full run), with the admin's API
 * token, against the bare Fastify server answering a POST with the same body with one indexed read
 * through a `pg.Pool` (bench/server.ts; rounds alternate).
 */
import { writeRevision } from '../../src/db/content.ts';
import { sql } from '../../test/support/sql.ts';
import { newId } from '../../src/domain/ids.ts';
import { positionBetween } from '../../src/domain/positions.ts';
import type { PageMap } from '../../src/domain/content/tree.ts';
import { compare, load, ratios, type RunOptions, type Row } from '../load.ts';
import type { Stack } from '../stack.ts';

/** 500 pages: 10 top-level pages, 7 children each, 6 grandchildren each. */
function sitePages(): { map: PageMap; deepPath: string } {
  const map: PageMap = {};
  const add = (parentId: string | null, count: number, prefix: string, depth: number) => {
    let last: string | null = null;
    for (let i = 0; i < count; i++) {
      const id = newId();
      last = positionBetween(last, null);
      const slug = `${prefix}${i}`;
      map[id] = { id, parentId, position: last, type: 'document', title: `Page ${slug}`, slug, markdown: `# Page ${slug}\n\nBody.\n` };
      if (depth === 0) add(id, 7, `${slug}-c`, 1);
      else if (depth === 1) add(id, 6, `${slug}-g`, 2);
    }
  };
  add(null, 10, 'p', 0);
  return { map, deepPath: 'p7/p7-c3/p7-c3-g5' };
}

export async function measurePublished(stack: Stack, options: RunOptions, log: (line: string) => void): Promise<Row[]> {
  const { call, orgId } = stack;
  const sections = options.quick ? 2 : 10;
  const perSection = options.quick ? 2 : 5;
  const started = Date.now();
  const { map, deepPath } = sitePages();
  const spaceIds: string[] = [];
  for (let i = 0; i < sections * perSection; i++)
    spaceIds.push((await call('POST', `/v1/orgs/${orgId}/spaces`, { title: `Space ${i}` })).id);
  for (const spaceId of spaceIds) {
    await stack.orm.em.fork().transactional(async (tx) => {
      const current = (await sql<{ revision_id: string }>(tx, 'select revision_id from space where id = ?', [spaceId]))[0].revision_id;
      const revision = await writeRevision(tx, { spaceId, parents: [current], type: 'edits', base: null, pages: structuredClone(map) });
      await sql(tx, 'update space set revision_id = ? where id = ?', [revision, spaceId]);
    });
  }
  const site = await call('POST', `/v1/orgs/${orgId}/sites`, { title: 'Benchmark site', visibility: 'public' });
  const sectionPaths: string[] = [];
  for (let s = 0; s < sections; s++) {
    const section = await call('POST', `/v1/orgs/${orgId}/sites/${site.id}/sections`, {
      spaceId: spaceIds[s * perSection],
      title: `Section ${s}`,
    });
    sectionPaths.push(section.path);
    for (let v = 1; v < perSection; v++)
      await call('POST', `/v1/orgs/${orgId}/sites/${site.id}/site-spaces`, {
        spaceId: spaceIds[s * perSection + v],
        sectionId: section.id,
      });
  }
  await call('POST', `/v1/orgs/${orgId}/sites/${site.id}/publish`);
  const last = spaceIds.length - 1;
  const target = `http://docs.bench/sites/${orgId}/${site.id}/${sectionPaths[sections - 1]}/space-${last}/${deepPath}`;
  const check = await call('POST', '/v1/urls/published', { url: target });
  if (check.space !== spaceIds[last] || check.pathname !== deepPath) throw new Error(`resolution check failed: ${JSON.stringify(check)}`);
  log(`published: ${sections} sections × ${perSection} site-spaces × 500 pages seeded in ${((Date.now() - started) / 1000).toFixed(1)} s`);

  const auth = { authorization: `Bearer ${stack.token}` };
  const run = (serverPid: number | undefined) => ({ connections: options.connections, duration: options.duration, serverPid });
  const body = JSON.stringify({ url: target });
  const post = { method: 'POST' as const, headers: { ...auth, 'content-type': 'application/json' }, body };
  const [published, bare] = await compare(
    options.rounds,
    () => load(`${stack.api.url}/v1/urls/published`, { ...run(stack.api.child.pid), ...post }),
    () => load(`${stack.bare.url}/bare/published/${spaceIds[last]}`, { ...run(stack.bare.child.pid), ...post }),
  );
  const ratio = published.rps / bare.rps;
  // The servers' own CPU per answer: what each request costs the process, whatever share of the
  // machine's cores the load generator took from it.
  const cpu =
    published.serverCpu !== undefined && bare.serverCpu !== undefined
      ? `${published.serverCpu.toFixed(1)} vs ${bare.serverCpu.toFixed(1)} µs`
      : 'not read';
  log(`published: ${published.rps.toFixed(0)} vs ${bare.rps.toFixed(0)} req/s, server CPU per answer ${cpu}`);
  return [
    {
      measure: 'POST /v1/urls/published (3 levels deep)',
      value: published.rps,
      unit: 'req/s',
      baseline: 'bare Fastify + pg: a POST with the same body, one indexed read',
      baselineValue: bare.rps,
      ratio,
      target: 'ratio ≥ 0.9',
      met: ratio >= 0.9,
      note: `${sections} sections × ${perSection} site-spaces × 500 pages; p99 ${published.p99} ms vs ${bare.p99} ms; server CPU per answer ${cpu}`,
      perRound: ratios(published.rounds, bare.rounds, (r) => r.rps),
    },
  ];
}

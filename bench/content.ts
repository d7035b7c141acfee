/**
 * `npm run bench:content`: the content hot paths, each against a baseline measured in the same run.
 *
 * 1. Search: p50/p95 of `GET /v1/spaces/{id}/search` over a space of 10,000 pages (target p95
 *    ≤ 30 ms), against the same queries answered by an `ILIKE` scan of the same documents.
 * 2. Merge: `POST …/change-requests/{id}/merge` end to end (HTTP → workflow → activity → database)
 *    for a change request touching 500 pages of a 5,000-page space that itself moved on since
 *    (target ≤ 2 s), against the in-memory three-way merge of the same page maps.
 *
 * Infrastructure like `npm test`: DATABASE_URL's server with a fresh database (dropped at the
 * end) or an embedded PostgreSQL; TEMPORAL_ADDRESS or a dev server; a worker child process.
 * Options: BENCH_PAGES (10000), BENCH_QUERIES (300), BENCH_MERGE_PAGES (5000), BENCH_MERGE_CHANGES (500),
 * BENCH_MERGE_ROUNDS (3), BENCH_ONLY (search | merge). Figures are reported, not asserted.
 */
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createScratchDatabase, freePort, startEmbeddedPostgres, startTemporalDevServer } from '../src/lib/infra.ts';
import { initOrm, migrate, type Orm } from '../src/db/orm.ts';
import { createOrganization, findOrCreateUser, issueToken, setMembership } from '../src/db/accounts.ts';
import { loadConfig } from '../src/config.ts';
import { buildApp } from '../src/api/app.ts';
import { connectTemporal } from '../src/temporal/client.ts';
import { loadPageMap, writeRevision } from '../src/db/content.ts';
import { reindexSpace } from '../src/db/search.ts';
import { sql } from '../src/db/sql.ts';
import { mergePageMaps } from '../src/domain/content/merge.ts';
import { positionBetween } from '../src/domain/positions.ts';
import type { PageMap } from '../src/domain/content/tree.ts';
import { cleanupStack, median, percentile } from './lib.ts';

const env = process.env;
const PAGES = Number(env.BENCH_PAGES ?? 10_000);
const QUERIES = Number(env.BENCH_QUERIES ?? 300);
const MERGE_PAGES = Number(env.BENCH_MERGE_PAGES ?? 5_000);
const MERGE_CHANGES = Number(env.BENCH_MERGE_CHANGES ?? 500);
const MERGE_ROUNDS = Number(env.BENCH_MERGE_ROUNDS ?? 3);
const ONLY = env.BENCH_ONLY; // 'search' or 'merge' to run one part

const cleanup = cleanupStack();
const runId = `${Date.now().toString(36)}${process.pid}`;
const scratch = mkdtempSync(join(tmpdir(), 'docs-bench-content-'));
if (process.getuid?.() === 0) chmodSync(scratch, 0o755);
cleanup.push(() => rmSync(scratch, { recursive: true, force: true }));
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void cleanup.run().then(() => process.exit(130)));
const watchdog = setTimeout(() => {
  console.error('bench:content: no result after 15 minutes, giving up');
  void cleanup.run().then(() => process.exit(1));
}, 15 * 60_000);
watchdog.unref();

// A deterministic vocabulary and pseudo-random generator, so every run searches the same corpus.
let seed = 42;
const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648;
const WORDS = Array.from({ length: 4000 }, (_, i) => `w${i.toString(36)}${'xyzqv'[i % 5]}`);
const word = () => WORDS[Math.floor(random() ** 2 * WORDS.length)];
const sentence = (n: number) => Array.from({ length: n }, word).join(' ');
const pageMarkdown = (i: number) =>
  `# Page ${i}\n\n${sentence(40)}.\n\n## Setup ${word()}\n\n${sentence(60)}.\n\n## Usage ${word()}\n\n${sentence(60)}.\n`;

function generatePages(count: number, prefix: string): PageMap {
  const pages: PageMap = {};
  let position: string | null = null;
  const parents: string[] = [];
  for (let i = 0; i < count; i++) {
    const id = `${prefix}${i.toString(36).padStart(5, '0')}`;
    const parentId = i % 10 === 0 || parents.length === 0 ? null : parents[parents.length - 1];
    position = positionBetween(position, null);
    pages[id] = { id, parentId, position, type: 'document', title: `Page ${i} ${word()}`, slug: `page-${i}`, markdown: pageMarkdown(i) };
    if (i % 10 === 0) parents.push(id);
  }
  return pages;
}

async function seedSpace(orm: Orm, spaceId: string, pages: PageMap): Promise<string> {
  return orm.em.fork().transactional(async (em) => {
    const current = (await sql<{ revision_id: string }>(em, 'select revision_id from space where id = ?', [spaceId]))[0].revision_id;
    const before = await loadPageMap(em, current, false);
    const revision = await writeRevision(em, { spaceId, parents: [current], type: 'edits', base: null, pages });
    await sql(em, 'update space set revision_id = ? where id = ?', [revision, spaceId]);
    await reindexSpace(em, spaceId, before, await loadPageMap(em, revision, false));
    return revision;
  });
}

const fmt = (n: number, digits = 1) => n.toFixed(digits);

let exitCode = 1;
try {
  // Infrastructure
  let databaseUrl: string;
  if (env.DATABASE_URL) {
    const scratchDb = await createScratchDatabase(env.DATABASE_URL, `docs_bench_${runId}`);
    cleanup.push(() => scratchDb.stop());
    databaseUrl = scratchDb.url;
  } else {
    const embedded = await startEmbeddedPostgres(join(scratch, 'pg'), await freePort());
    cleanup.push(() => embedded.stop());
    databaseUrl = embedded.url;
  }
  let temporalAddress = env.TEMPORAL_ADDRESS;
  if (!temporalAddress) {
    const server = await startTemporalDevServer({ cliPath: env.TEMPORAL_CLI_PATH, namespace: 'default' });
    cleanup.push(() => server.stop());
    temporalAddress = server.address;
  }
  const orm = await initOrm({ databaseUrl, poolMax: 8 });
  cleanup.push(() => orm.close());
  await migrate(orm);
  const taskQueue = `bench-content-${runId}`;
  const childEnv = {
    ...env,
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: temporalAddress,
    TEMPORAL_TASK_QUEUE: taskQueue,
    LOG_LEVEL: 'warn',
  };
  const worker = spawn(process.execPath, ['src/worker.ts'], { env: childEnv, stdio: 'ignore' });
  cleanup.push(async () => {
    if (worker.exitCode === null) {
      worker.kill('SIGTERM');
      await new Promise((r) => worker.once('exit', r));
    }
  });
  const config = loadConfig({ ...childEnv, PUBLIC_URL: 'http://bench.local', BLOB_DIR: join(scratch, 'blobs') });
  const { client, connection } = await connectTemporal({ address: temporalAddress, namespace: 'default' });
  cleanup.push(() => connection.close());
  const app = await buildApp({ config, orm, temporal: client }, { authCacheTtlMs: 5000 });
  await app.listen({ host: '127.0.0.1', port: 0 });
  cleanup.push(() => app.close());
  const origin = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;

  const em = orm.em.fork();
  const org = await createOrganization(em, 'Bench org');
  const user = await findOrCreateUser(em, `bench-${runId}@example.com`, 'Bench');
  await setMembership(em, org.id, user.id, 'admin');
  const { token } = await issueToken(em, user.id, 'bench');
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${origin}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const json = await res.json().catch(() => undefined);
    if (res.status >= 400) throw new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(json)}`);
    return json as any;
  };
  const newSpace = async (title: string) => (await call('POST', `/v1/orgs/${org.id}/spaces`, { title, empty: true })).id as string;

  // 1. Search
  if (ONLY !== 'merge') {
    console.log(`search: seeding ${PAGES} pages…`);
    const searchSpaceId = await newSpace('Search bench');
    const seeded = Date.now();
    const searchRevision = await seedSpace(orm, searchSpaceId, generatePages(PAGES, 'p'));
    console.log(`search: seeded and indexed in ${((Date.now() - seeded) / 1000).toFixed(1)} s`);
    const queries = Array.from({ length: QUERIES }, (_, i) => (i % 3 === 0 ? `${word()} ${word()}` : word()));
    const viaApi: number[] = [];
    const viaIlike: number[] = [];
    await call('GET', `/v1/spaces/${searchSpaceId}/search?query=${encodeURIComponent(queries[0])}`);
    for (const query of queries) {
      let t = performance.now();
      await call('GET', `/v1/spaces/${searchSpaceId}/search?query=${encodeURIComponent(query)}&limit=20`);
      viaApi.push(performance.now() - t);
      t = performance.now();
      const terms = query.split(' ');
      await sql(
        orm.em.fork(),
        // The same answer without the index: every matching page found (for the total), first 20 returned.
        `select rp.page_id, rp.meta->>'title' as title, count(*) over () as total from revision_page rp
         join page_document d on d.space_id = ? and d.hash = rp.document_hash
        where rp.revision_id = ? and ${terms.map(() => "(d.markdown ilike ? or rp.meta->>'title' ilike ?)").join(' and ')}
        order by rp.meta->>'title' limit 20`,
        [searchSpaceId, searchRevision, ...terms.flatMap((w) => [`%${w}%`, `%${w}%`])],
      );
      viaIlike.push(performance.now() - t);
    }
    const apiSorted = Float64Array.from(viaApi).sort();
    const ilikeSorted = Float64Array.from(viaIlike).sort();
    console.log(`search over ${PAGES} pages, ${QUERIES} queries:`);
    console.log(
      `  GET /v1/spaces/{id}/search   p50 ${fmt(percentile(apiSorted, 50))} ms   p95 ${fmt(percentile(apiSorted, 95))} ms (target p95 <= 30 ms)`,
    );
    console.log(`  ILIKE scan (baseline, SQL)   p50 ${fmt(percentile(ilikeSorted, 50))} ms   p95 ${fmt(percentile(ilikeSorted, 95))} ms`);
    console.log(
      `  ratio ILIKE/search at p95: ${fmt(percentile(ilikeSorted, 95) / percentile(apiSorted, 95), 2)} (how many times faster the indexed search is, measured end to end over HTTP, than the scan in SQL alone)`,
    );
  }

  // 2. Merge
  if (ONLY !== 'search') {
    console.log(`merge: seeding ${MERGE_PAGES} pages…`);
    const mergeSpaceId = await newSpace('Merge bench');
    const base = generatePages(MERGE_PAGES, 'm');
    await seedSpace(orm, mergeSpaceId, base);
    const ids = Object.keys(base);
    const endToEnd: number[] = [];
    const inMemory: number[] = [];
    for (let round = 0; round < MERGE_ROUNDS; round++) {
      // The change request edits MERGE_CHANGES pages; meanwhile the space merges edits to other pages.
      const mine = await call('POST', `/v1/spaces/${mergeSpaceId}/change-requests`, { subject: `bench ${round}` });
      const theirs = await call('POST', `/v1/spaces/${mergeSpaceId}/change-requests`, { subject: `main ${round}` });
      const offset = (round * 2 * MERGE_CHANGES) % ids.length;
      const pick = (start: number) => Array.from({ length: MERGE_CHANGES }, (_, i) => ids[(start + i) % ids.length]);
      const edits = (pages: string[], tag: string) =>
        pages.map((page) => ({ operation: 'update_page', page, document: { markdown: `${pageMarkdown(0)}\n${tag} ${sentence(10)}\n` } }));
      for (const [cr, pages, tag] of [
        [mine, pick(offset), 'mine'],
        [theirs, pick(offset + MERGE_CHANGES), 'theirs'],
      ] as const) {
        const all = edits(pages, tag);
        for (let i = 0; i < all.length; i += 50)
          await call('POST', `/v1/spaces/${mergeSpaceId}/change-requests/${cr.id}/content`, { changes: all.slice(i, i + 50) });
      }
      await call('POST', `/v1/spaces/${mergeSpaceId}/change-requests/${theirs.id}/merge`);
      const crRow = await call('GET', `/v1/spaces/${mergeSpaceId}/change-requests/${mine.id}`);
      const spaceRevision = (await call('GET', `/v1/spaces/${mergeSpaceId}`)).revision;
      const e2 = orm.em.fork();
      const [b, o, t] = await Promise.all([
        loadPageMap(e2, crRow.revisionInitial, true),
        loadPageMap(e2, spaceRevision, true),
        loadPageMap(e2, crRow.revision, true),
      ]);
      let time = performance.now();
      const pure = mergePageMaps(b, o, t);
      inMemory.push(performance.now() - time);
      if (pure.conflicts.length) throw new Error(`unexpected conflicts: ${pure.conflicts.length}`);
      time = performance.now();
      const result = await call('POST', `/v1/spaces/${mergeSpaceId}/change-requests/${mine.id}/merge`);
      endToEnd.push(performance.now() - time);
      if (result.result !== 'merge') throw new Error(`merge answered ${JSON.stringify(result)}`);
      console.log(
        `  round ${round + 1}: end to end ${fmt(endToEnd[round], 0)} ms, in-memory merge (text loaded) ${fmt(inMemory[round], 0)} ms`,
      );
    }
    const e2e = median(endToEnd);
    console.log(`merge of ${MERGE_CHANGES} changed pages into a ${MERGE_PAGES}-page space that moved on (${MERGE_ROUNDS} rounds, median):`);
    console.log(`  POST …/merge end to end   ${fmt(e2e, 0)} ms (target <= 2000 ms)`);
    console.log(`  in-memory three-way merge ${fmt(median(inMemory), 0)} ms (baseline)`);
    console.log(`  ratio end-to-end/in-memory: ${fmt(e2e / median(inMemory), 2)}; ratio to the 2 s target: ${fmt(e2e / 2000, 2)}`);
  }
  exitCode = 0;
} catch (error) {
  console.error('bench:content:', error instanceof Error ? error.stack : error);
}
await cleanup.run();
process.exit(exitCode);

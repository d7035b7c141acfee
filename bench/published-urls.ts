/**
 * `node bench/published-urls.ts [-- --duration 10s --warmup 2s --connections 32 --rounds 2]`:
 * requests per second of `POST /v1/urls/published` resolving a page three levels deep in a public
 * site of 10 sections × 5 site-spaces × 500 pages, against the authenticated `GET /v1/spaces/{id}`
 * measured on the same API server in the same run (rounds alternate). Target ratio ≥ 0.5.
 *
 * Infrastructure as in bench/run.ts: DATABASE_URL's server with a fresh database (dropped at the
 * end) or an embedded PostgreSQL; TEMPORAL_ADDRESS or a dev server. The API runs in a child
 * process (bench/server.ts); this process seeds the data and generates the load.
 * The ratio is reported, not asserted.
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort, portOpen, startEmbeddedPostgres, startTemporalDevServer } from '../src/lib/infra.ts';
import { initOrm, migrate } from '../src/db/orm.ts';
import { createOrganization, findOrCreateUser, issueToken, setMembership } from '../src/db/accounts.ts';
import { writeRevision } from '../src/db/content.ts';
import { sql } from '../src/db/sql.ts';
import { newId } from '../src/domain/ids.ts';
import { positionBetween } from '../src/domain/positions.ts';
import type { PageMap } from '../src/domain/content/tree.ts';
import { cleanupStack, median, percentile, readOptions, runLoad, startServerChild, type RoundResult, type ServerChild } from './lib.ts';

const TARGET_RATIO = 0.5;
const SECTIONS = 10;
const SITE_SPACES = 5;
const options = readOptions();
const cleanup = cleanupStack();
const log = (line: string) => console.log(line);
const runId = `${Date.now().toString(36)}${process.pid}`;
const scratch = mkdtempSync(join(tmpdir(), 'docs-bench-sites-'));
if (process.getuid?.() === 0) chmodSync(scratch, 0o755);
cleanup.push(() => rmSync(scratch, { recursive: true, force: true }));
const children: ServerChild[] = [];
process.on('exit', () => {
  for (const { child } of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void cleanup.run().then(() => process.exit(130)));
const watchdog = setTimeout(
  () => {
    console.error('bench: no result in time, giving up');
    void cleanup.run().then(() => process.exit(1));
  },
  5 * 60_000 + 2 * options.rounds * (options.warmupMs + options.durationMs + 15_000),
);
watchdog.unref();

async function database(): Promise<string> {
  const base = process.env.DATABASE_URL;
  if (!base) {
    const port = await freePort();
    const embedded = await startEmbeddedPostgres(join(scratch, 'pg'), port);
    cleanup.push(async () => (await portOpen(port)) && embedded.stop());
    return embedded.url;
  }
  const name = `docs_bench_sites_${runId}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  cleanup.push(async () => {
    const c = new pg.Client({ connectionString: base });
    await c.connect();
    await c.query(`drop database if exists ${name} with (force)`);
    await c.end();
  });
  const url = new URL(base);
  url.pathname = `/${name}`;
  return url.toString();
}

async function temporal(): Promise<string> {
  if (process.env.TEMPORAL_ADDRESS) return process.env.TEMPORAL_ADDRESS;
  const server = await startTemporalDevServer({ cliPath: process.env.TEMPORAL_CLI_PATH, namespace: 'default' });
  cleanup.push(() => server.stop());
  return server.address;
}

/** 500 pages: 10 top-level pages, 7 children each, 6 grandchildren each. */
function pages(): { map: PageMap; deepPath: string } {
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

async function call(origin: string, token: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${origin}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
    signal: AbortSignal.timeout(30_000),
  });
  const json = (await res.json().catch(() => undefined)) as any;
  if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(json)}`);
  return json;
}

let exitCode = 1;
try {
  const [dbUrl, temporalAddress] = await Promise.all([database(), temporal()]);
  const orm = await initOrm({ databaseUrl: dbUrl, poolMax: 2 });
  let orgId: string;
  let token: string;
  try {
    await migrate(orm);
    const em = orm.em.fork();
    const org = await createOrganization(em, 'Sites benchmark org');
    const user = await findOrCreateUser(em, `bench-sites-${runId}@example.com`, 'Bench admin');
    await setMembership(em, org.id, user.id, 'admin');
    orgId = org.id;
    token = (await issueToken(em, user.id, 'bench')).token;
  } finally {
    await orm.close();
  }

  const api = await startServerChild('api', {
    ...process.env,
    DATABASE_URL: dbUrl,
    TEMPORAL_ADDRESS: temporalAddress,
    TEMPORAL_NAMESPACE: 'default',
    TEMPORAL_TASK_QUEUE: `bench-sites-${runId}`,
    SECRETS_KEY: Buffer.alloc(32, 1).toString('base64'),
  });
  children.push(api);
  cleanup.push(() => api.stop());

  // 50 spaces of 500 pages each, written straight into their revisions.
  const started = Date.now();
  const { map, deepPath } = pages();
  const spaceIds: string[] = [];
  for (let i = 0; i < SECTIONS * SITE_SPACES; i++)
    spaceIds.push((await call(api.url, token, 'POST', `/v1/orgs/${orgId}/spaces`, { title: `Space ${i}` })).id);
  const seeder = await initOrm({ databaseUrl: dbUrl, poolMax: 2 });
  try {
    for (const spaceId of spaceIds) {
      await seeder.em.fork().transactional(async (tx) => {
        const current = (await sql<{ revision_id: string }>(tx, 'select revision_id from space where id = ?', [spaceId]))[0].revision_id;
        const revision = await writeRevision(tx, { spaceId, parents: [current], type: 'edits', base: null, pages: structuredClone(map) });
        await sql(tx, 'update space set revision_id = ? where id = ?', [revision, spaceId]);
      });
    }
  } finally {
    await seeder.close();
  }
  const site = await call(api.url, token, 'POST', `/v1/orgs/${orgId}/sites`, { title: 'Benchmark site', visibility: 'public' });
  const sectionPaths: string[] = [];
  for (let s = 0; s < SECTIONS; s++) {
    const section = await call(api.url, token, 'POST', `/v1/orgs/${orgId}/sites/${site.id}/sections`, {
      spaceId: spaceIds[s * SITE_SPACES],
      title: `Section ${s}`,
    });
    sectionPaths.push(section.path);
    for (let v = 1; v < SITE_SPACES; v++) {
      await call(api.url, token, 'POST', `/v1/orgs/${orgId}/sites/${site.id}/site-spaces`, {
        spaceId: spaceIds[s * SITE_SPACES + v],
        sectionId: section.id,
      });
    }
  }
  await call(api.url, token, 'POST', `/v1/orgs/${orgId}/sites/${site.id}/publish`);
  const target = `http://docs.bench/sites/${orgId}/${site.id}/${sectionPaths[7]}/space-38/${deepPath}`;
  const check = await call(api.url, token, 'POST', '/v1/urls/published', { url: target });
  if (check.space !== spaceIds[38] || check.pathname !== deepPath) throw new Error(`resolution check failed: ${JSON.stringify(check)}`);
  await call(api.url, token, 'GET', `/v1/spaces/${spaceIds[0]}`);
  log(
    `seeded ${SECTIONS} sections × ${SITE_SPACES} site-spaces × 500 pages in ${((Date.now() - started) / 1000).toFixed(1)} s; resolving ${target}`,
  );
  log(
    `load: ${options.connections} connections, ${options.warmupMs / 1000} s warm-up + ${options.durationMs / 1000} s per round, ${options.rounds} rounds per target`,
  );

  const auth = { authorization: `Bearer ${token}` };
  const targets = {
    space: { label: 'GET /v1/spaces/{id}', path: `/v1/spaces/${spaceIds[0]}`, headers: auth, method: 'GET' as const, body: undefined },
    published: {
      label: 'POST /v1/urls/published',
      path: '/v1/urls/published',
      headers: { ...auth, 'content-type': 'application/json' },
      method: 'POST' as const,
      body: JSON.stringify({ url: target }),
    },
  };
  const results: Record<keyof typeof targets, RoundResult[]> = { space: [], published: [] };
  for (let round = 1; round <= options.rounds; round++) {
    for (const name of ['space', 'published'] as const) {
      const t = targets[name];
      const r = await runLoad(api.url, t.path, t.headers, { ...options, method: t.method, body: t.body });
      if (r.errors > 0) throw new Error(`${name}: ${r.errors} failed request(s); first: ${r.firstError}`);
      const sorted = Float64Array.from(r.latencies).sort();
      log(
        `  round ${round} ${t.label.padEnd(26)} ${r.rps.toFixed(0).padStart(7)} rps  p50 ${percentile(sorted, 50).toFixed(2)} ms  p99 ${percentile(sorted, 99).toFixed(2)} ms`,
      );
      results[name].push(r);
    }
  }
  const space = median(results.space.map((r) => r.rps));
  const published = median(results.published.map((r) => r.rps));
  log('');
  log(`GET /v1/spaces/{id}       ${space.toFixed(0)} rps (median)`);
  log(`POST /v1/urls/published   ${published.toFixed(0)} rps (median)`);
  log(`ratio published/space: ${(published / space).toFixed(2)} (target >= ${TARGET_RATIO})`);
  exitCode = 0;
} catch (error) {
  console.error('bench:', error instanceof Error ? error.message : error);
}
await cleanup.run();
process.exit(exitCode);

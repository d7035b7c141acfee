/**
 * One benchmark target, run by bench/run.ts in a child process of its own:
 *
 * - `api`: the real API (buildApp with PostgreSQL through MikroORM and a Temporal client), logger off;
 * - `bare`: a bare Fastify 5 server with `GET /bare/spaces/:id` doing the same single indexed query
 *   (`select * from space where id = $1`) through a `pg.Pool` and returning the row as JSON, and
 *   `POST /bare/published/:id` doing the same for a POST with a JSON body.
 *
 * Both listen on 127.0.0.1 on a free port, with database pools of the same size (BENCH_POOL_MAX,
 * default 10 as in the production API process). The child reports its URL over IPC and stops on
 * a `stop` message, SIGTERM, or when the parent goes away.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { getHeapSpaceStatistics, writeHeapSnapshot } from 'node:v8';
import Fastify, { type FastifyInstance } from 'fastify';
import pg from 'pg';
import { loadConfig } from '../src/config.ts';
import { initOrm } from '../src/db/orm.ts';
import { buildApp } from '../src/api/app.ts';
import { connectTemporal } from '../src/temporal/client.ts';
import type { MemoryReport, ServerMessage } from './lib.ts';

const kind = process.argv[2];
const poolMax = Number(process.env.BENCH_POOL_MAX || 10);
const send = (message: ServerMessage) => process.send?.(message);
const closers: (() => Promise<unknown>)[] = [];

async function startApi(): Promise<FastifyInstance> {
  const config = loadConfig({ ...process.env, PUBLIC_URL: process.env.PUBLIC_URL || 'http://docs.bench', LOG_LEVEL: 'silent' });
  const orm = await initOrm({
    databaseUrl: config.databaseUrl!,
    poolMax,
    debug: process.env.BENCH_ORM_DEBUG === '1',
    logger: (m) => console.error(m),
  });
  closers.push(() => orm.close());
  const { client, connection } = await connectTemporal({ address: config.temporalAddress!, namespace: config.temporalNamespace });
  closers.push(() => connection.close());
  const app = await buildApp({ config, orm, temporal: client }, { logger: false, authCacheTtlMs: config.authCacheTtlMs });
  return app;
}

async function startBare(): Promise<FastifyInstance> {
  const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: poolMax });
  // An idle connection that the server drops (PostgreSQL stopping first on Ctrl-C) must not crash the process.
  pool.on('error', () => {});
  closers.push(() => pool.end());
  const app = Fastify({ logger: false });
  app.get('/bare/spaces/:id', async (request, reply) => {
    const { id } = request.params as { id: string };
    const { rows } = await pool.query('select * from space where id = $1', [id]);
    if (rows.length === 0) return reply.status(404).send({ error: 'not found' });
    return rows[0];
  });
  // The framework alone: the same fixed answer to a GET and to a POST with a JSON body (validated as
  // the API validates one), for the published row's note (what a request body costs in Fastify here).
  const fixed = JSON.stringify({ answer: 'x'.repeat(1000) });
  app.get('/bare/answer', async (_request, reply) => reply.type('application/json').send(fixed));
  app.post(
    '/bare/answer',
    { schema: { body: { type: 'object', properties: { url: { type: 'string' } }, required: ['url'] } } },
    async (_request, reply) => reply.type('application/json').send(fixed),
  );
  // The published row's baseline: a POST with the lookup's body (validated as the API validates
  // one) answered with one indexed read, the row of the space named in the path.
  app.post(
    '/bare/published/:id',
    { schema: { body: { type: 'object', properties: { url: { type: 'string' } }, required: ['url'] } } },
    async (request, reply) => {
      const { id } = request.params as { id: string };
      const { rows } = await pool.query('select * from space where id = $1', [id]);
      if (rows.length === 0) return reply.status(404).send({ error: 'not found' });
      return rows[0];
    },
  );
  return app;
}

async function shutdown(code = 0) {
  for (const close of closers.reverse()) {
    try {
      await close();
    } catch (error) {
      console.error(`bench ${kind} server: ${(error as Error).message}`);
    }
  }
  process.exit(code);
}

/**
 * Memory tracing for the memory row's profile. BENCH_MEMORY_TRACE=1: every 100 ms the server
 * samples process.memoryUsage() and keeps each figure's peak (and the V8 heap spaces when the
 * resident size peaked) until the bench asks for them. BENCH_HEAP_SNAPSHOT=<dir> (implies the
 * trace): a heap snapshot is written there whenever the used heap has grown by a quarter and
 * 16 MB over the last one written (at most 8), and at the end of each benchmark module.
 */
const snapshotDir = process.env.BENCH_HEAP_SNAPSHOT;
const tracing = process.env.BENCH_MEMORY_TRACE === '1' || !!snapshotDir;
const emptyUsage = (): NodeJS.MemoryUsage => ({ rss: 0, heapTotal: 0, heapUsed: 0, external: 0, arrayBuffers: 0 });
let peak = emptyUsage();
let spacesAtPeak: MemoryReport['spacesAtPeak'];
let snapshots: string[] = [];
let snapshotCount = 0;
let lastSnapshotHeap = 0;
let phase = 'start';
function snapshot(label: string): string | undefined {
  if (!snapshotDir) return undefined;
  mkdirSync(snapshotDir, { recursive: true });
  const used = process.memoryUsage().heapUsed;
  const file = writeHeapSnapshot(join(snapshotDir, `${kind}-${++snapshotCount}-${label}-${Math.round(used / 2 ** 20)}MB.heapsnapshot`));
  lastSnapshotHeap = used;
  snapshots.push(file);
  return file;
}
if (tracing && kind === 'api') {
  setInterval(() => {
    const now = process.memoryUsage();
    if (now.rss > peak.rss) {
      spacesAtPeak = Object.fromEntries(
        getHeapSpaceStatistics().map((s) => [s.space_name, { used: s.space_used_size, size: s.space_size }]),
      );
    }
    for (const key of Object.keys(peak) as (keyof NodeJS.MemoryUsage)[]) peak[key] = Math.max(peak[key], now[key]);
    if (snapshotDir && snapshotCount < 8 && now.heapUsed > lastSnapshotHeap * 1.25 && now.heapUsed > lastSnapshotHeap + 16 * 2 ** 20) {
      snapshot(`${phase}-grew`);
    }
  }, 100).unref();
}

process.on('message', (message: { type?: string; id?: number; ended?: string; starting?: string }) => {
  if (message?.type === 'stop') void shutdown();
  if (message?.type === 'memory') {
    if (message.ended) snapshot(`${message.ended}-end`);
    if (message.starting) phase = message.starting;
    const memory: MemoryReport = { now: process.memoryUsage(), ...(tracing ? { peak, spacesAtPeak, snapshots } : {}) };
    peak = emptyUsage();
    spacesAtPeak = undefined;
    snapshots = [];
    send({ type: 'memory', id: message.id ?? 0, memory });
  }
  if (message?.type === 'cpu') {
    const { user, system } = process.cpuUsage();
    send({ type: 'cpu', id: message.id ?? 0, micros: user + system });
  }
});
process.on('disconnect', () => void shutdown());
process.on('SIGTERM', () => void shutdown());
process.on('SIGINT', () => {}); // the parent handles Ctrl-C and stops us in order

try {
  if (kind !== 'api' && kind !== 'bare') throw new Error(`unknown target "${kind}" (api or bare)`);
  const app = kind === 'api' ? await startApi() : await startBare();
  closers.push(() => app.close());
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  send({ type: 'listening', url });
} catch (error) {
  send({ type: 'failed', error: (error as Error).stack ?? String(error) });
  await shutdown(1);
}

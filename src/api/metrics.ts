import type { FastifyInstance } from 'fastify';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { taskPoolState } from '../lib/bounded-parse.ts';
import type { ReadCache } from '../domain/read-cache.ts';

/**
 * Prometheus metrics at /metrics: process metrics, request latency per route and status, and the
 * answers kept between writes (`kept_answers_total`: served from a cache, or asked for and read
 * afresh), by cache, and the parsing pool (`parsing_pool_threads`, `parsing_pool_tasks` by lane and
 * state: its threads hold memory of their own until they have been idle for a while).
 */
export function registerMetrics(app: FastifyInstance, caches: Record<string, Pick<ReadCache<NonNullable<unknown>>, 'stats'>> = {}): void {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  new Counter({
    name: 'kept_answers_total',
    help: 'Answers kept between writes: served from the cache, or missed (read afresh), by cache',
    labelNames: ['cache', 'outcome'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [cache, answers] of Object.entries(caches)) {
        this.inc({ cache, outcome: 'served' }, answers.stats.served);
        this.inc({ cache, outcome: 'missed' }, answers.stats.missed);
      }
    },
  });
  new Gauge({
    name: 'parsing_pool_threads',
    help: 'Threads of the parsing pool (each ends once idle for a while; user input is parsed and converted there)',
    registers: [registry],
    collect() {
      this.set(taskPoolState().threads);
    },
  });
  new Gauge({
    name: 'parsing_pool_tasks',
    help: 'Tasks of the parsing pool, by lane and state (running, or queued for a thread)',
    labelNames: ['lane', 'state'] as const,
    registers: [registry],
    collect() {
      const state = taskPoolState();
      for (const lane of ['interactive', 'job'] as const) {
        this.set({ lane, state: 'running' }, state[lane].running);
        this.set({ lane, state: 'queued' }, state[lane].queued);
      }
    },
  });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration in seconds, by method, route and status code',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    duration.observe({ method: request.method, route, status: String(reply.statusCode) }, reply.elapsedTime / 1000);
  });
  app.get('/metrics', { schema: { hide: true }, config: { public: true } }, async (_request, reply) => {
    reply.type(registry.contentType);
    return registry.metrics();
  });
}

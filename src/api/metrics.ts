import type { FastifyInstance } from 'fastify';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';
import type { ReadCache } from '../domain/read-cache.ts';

/**
 * Prometheus metrics at /metrics: process metrics, request latency per route and status, and the
 * answers kept between writes (`kept_answers_total`: served from a cache, or asked for and read
 * afresh), by cache.
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

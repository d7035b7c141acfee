import underPressure from '@fastify/under-pressure';
import type { FastifyInstance } from 'fastify';
import { unavailable } from './errors.ts';

/**
 * Load shedding: while the process's event loop lags past `maxDelayMs` (the mean delay of
 * Node's event-loop monitor over each sample), every request is answered at once with 503 and
 * Retry-After in the API's error shape instead of joining a queue it would wait in, and `/readyz`
 * says the process is not ready (so a balancer sends the traffic elsewhere). `/healthz` and
 * `/metrics` still answer: a busy process is alive, and restarting it would lose its work. Work
 * whose cost depends on user input runs in the parsing pool, off this loop (src/lib/bounded-parse.ts);
 * this is the guard for whatever still slows it.
 */
export interface OverloadOptions {
  /** 0 turns shedding off. */
  maxDelayMs: number;
}

const STILL_ANSWERED = new Set(['/healthz', '/metrics', '/readyz']);

export async function registerLoadShedding(app: FastifyInstance, { maxDelayMs }: OverloadOptions): Promise<void> {
  if (maxDelayMs <= 0) return;
  await app.register(underPressure, {
    maxEventLoopDelay: maxDelayMs,
    // Sampled four times per bound (at least every 10 ms, at most every second), so a stall is seen soon after it begins.
    sampleInterval: Math.min(1000, Math.max(10, Math.round(maxDelayMs / 4))),
    // A rejected promise goes on to the API's one error path (its shape, Retry-After); a resolved one lets the request through.
    pressureHandler: async (request, _reply, _type, value) => {
      if (STILL_ANSWERED.has(request.routeOptions.url ?? '')) return;
      const delay = typeof value === 'number' && Number.isFinite(value) ? `${Math.round(value)} ms` : 'too long';
      throw unavailable(`The service is overloaded (its event loop is delayed by ${delay}, past ${maxDelayMs} ms); retry shortly`);
    },
  });
}

/** Whether the process is shedding load now (for /readyz). */
export const overloaded = (app: FastifyInstance): boolean => typeof app.isUnderPressure === 'function' && app.isUnderPressure();

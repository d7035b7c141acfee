import type { FastifyInstance } from 'fastify';
import {
  DEFAULT_MEMORY_REDUCER_POLICY,
  shouldReduceMemory,
  type MemoryReducerPolicy,
  type MemoryReducerState,
} from '../domain/memory-reducer.ts';

/** V8's `gc` function: present when the process runs with `--expose-gc` (npm run api, npm start, the image). */
type Gc = (options: { type: 'major'; flavor: 'last-resort' }) => void;

/**
 * Gives the heap's pooled pages back to the system once the API is idle after its resident size
 * grew, or has no request in flight after a large one (a body over `largeBody` bytes;
 * domain/memory-reducer.ts): a timer looks every `checkMs` and, when the policy says so, runs
 * one memory-reducing collection (V8's last-resort flavour: full collections that compact the heap
 * and release the pages it pools). Requests count as work from their start to the close of their
 * response; probes (`isProbe`: /healthz and the like, every few seconds and next to free) do not.
 * Without `--expose-gc` there is nothing to call, and this does nothing.
 */
export function registerMemoryReducer(
  app: FastifyInstance,
  options: { isProbe: (route: string) => boolean; largeBody: number; policy?: MemoryReducerPolicy; checkMs?: number },
): void {
  const { isProbe, largeBody, policy = DEFAULT_MEMORY_REDUCER_POLICY, checkMs = 250 } = options;
  const gc = (globalThis as { gc?: Gc }).gc;
  if (typeof gc !== 'function') {
    app.log.debug('idle memory reduction off: the process runs without --expose-gc');
    return;
  }
  const started = Date.now();
  const state: MemoryReducerState = {
    inFlight: 0,
    lastActivityAt: started,
    lastReducedAt: started,
    residentAfterLast: process.memoryUsage.rss(),
    largeRequestEnded: false,
  };
  // A callback hook, not an async one: no promise per request on the hot path.
  app.addHook('onRequest', (request, reply, done) => {
    if (isProbe(request.routeOptions.url ?? '')) return done();
    state.inFlight++;
    state.lastActivityAt = Date.now();
    const large = Number(request.headers['content-length']) > largeBody;
    // 'close' comes once for every response: sent, failed or aborted by the client.
    reply.raw.once('close', () => {
      state.inFlight--;
      state.lastActivityAt = Date.now();
      if (large) state.largeRequestEnded = true;
    });
    done();
  });
  const timer = setInterval(() => {
    const now = Date.now();
    const before = process.memoryUsage.rss();
    if (!shouldReduceMemory(state, before, now, policy)) return;
    gc({ type: 'major', flavor: 'last-resort' });
    state.lastReducedAt = Date.now();
    state.residentAfterLast = process.memoryUsage.rss();
    state.largeRequestEnded = false;
    app.log.info(
      { residentBefore: before, residentAfter: state.residentAfterLast, ms: state.lastReducedAt - now },
      'idle after growing: unused heap pages returned to the system',
    );
  }, checkMs);
  timer.unref();
  app.addHook('onClose', async () => clearInterval(timer));
}

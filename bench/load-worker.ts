/**
 * One autocannon load, run in a worker thread of its own by bench/load.ts: a warm-up second, then
 * the measured run, whose figures it posts back. The bench process holds a large heap (the
 * service's modules, the corpora it seeds); run there, autocannon's garbage (a buffer for every
 * read of every answer) made V8 mark that whole heap again and again, and the load measured the
 * bench's own collector. A worker's heap holds autocannon alone.
 */
import { createRequire } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';
import autocannon, { type Options } from 'autocannon';

/**
 * autocannon appends every response's body to a string (`Buffer#toString` per chunk), kept only
 * for `onResponse`, `verifyBody` and `expectBody`, none of which these loads use. With the
 * reader's compressed answers (84 kB) that decoding alone held the load generator's core at 100%
 * while the API sat at a third of its own: the load measured autocannon. Bodies are still read
 * and their bytes counted; they are just not decoded.
 */
const PipelinedRequestsQueue = createRequire(import.meta.url)('autocannon/lib/pipelinedRequestsQueue.js') as {
  prototype: { addBody(data: Buffer): void };
};
PipelinedRequestsQueue.prototype.addBody = () => {};

/** What bench/load.ts reads of a run. */
export interface WorkerLoadResult {
  rps: number;
  /** Answers completed in the measured run. */
  requests: number;
  mean: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  timeouts: number;
}

/** A run's result as autocannon gives it in a worker thread (the fields read here). */
interface RawResult {
  totalCompletedRequests: number;
  /** Seconds. */
  duration: number;
}

const { options: given, duration, staggered } = workerData as { options: Options; duration: number; staggered?: boolean };
/**
 * With `staggered`, each connection starts its sequence at a step of its own, spread evenly over
 * it: connections walking a long list of different requests do not ask for the same one at the
 * same time (autocannon starts every connection at the first).
 */
const options: Options =
  staggered && given.requests && given.requests.length > 1
    ? {
        ...given,
        setupClient: (() => {
          const steps = given.requests!;
          const stride = Math.max(1, Math.floor(steps.length / (given.connections ?? 1)));
          let made = 0;
          return (client) => {
            const start = (made++ * stride) % steps.length;
            client.setRequests([...steps.slice(start), ...steps.slice(0, start)]);
          };
        })(),
      }
    : given;
await autocannon({ ...options, duration: 1 });
// The measured run starts now (bench/load.ts reads the server's CPU from here).
parentPort!.postMessage('measuring');
// In a worker thread autocannon answers its run as it would to its own workers' parent: counts, and
// the latencies' histogram encoded (aggregateResult decodes it). Its per-second samples of requests
// do not come with it, so the rate is the answers completed over the run's measured duration.
const raw = (await autocannon({ ...options, duration })) as unknown as RawResult;
const r = autocannon.aggregateResult([raw], { ...options, duration });
const result: WorkerLoadResult = {
  rps: raw.totalCompletedRequests / raw.duration,
  requests: raw.totalCompletedRequests,
  mean: r.latency.average,
  p50: r.latency.p50,
  p99: r.latency.p99,
  non2xx: r.non2xx,
  errors: r.errors,
  timeouts: r.timeouts,
};
parentPort!.postMessage(result);

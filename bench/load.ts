/** The row every benchmark module returns, the run's sizes, and an autocannon wrapper. */
import { Worker } from 'node:worker_threads';
import type { Options } from 'autocannon';
import { median, processCpu } from './lib.ts';
import type { WorkerLoadResult } from './load-worker.ts';

export interface Row {
  measure: string;
  value: number | null;
  unit: string;
  /** What the measure is compared with, measured in the same run. */
  baseline: string;
  baselineValue: number | null;
  ratio: number | null;
  /** e.g. "ratio ≥ 0.85", "value ≤ 30 ms". */
  target: string;
  /** null when not measured. */
  met: boolean | null;
  note?: string;
  /**
   * Each round's figure that the target judges (its ratio, or its value for a value target), so the
   * table shows next to the median how far rounds spread; absent for rows measured once.
   */
  perRound?: number[];
}

export interface RunOptions {
  quick: boolean;
  rounds: number;
  /** Seconds of load per autocannon round. */
  duration: number;
  connections: number;
  /** Pages of the search space (100,000 in a full run). */
  searchPages: number;
  /** Rows of the list endpoint's table (1,000,000 in a full run). */
  listRows: number;
  /** Pages of the generated repository of the git import row (2,000 in a full run). */
  gitPages: number;
  mergePages: number;
  mergeChanges: number;
  pdfPages: number;
}

export interface LoadResult {
  rps: number;
  /** Mean latency, ms (autocannon's percentiles are whole milliseconds). */
  mean: number;
  p50: number;
  p99: number;
  /** With `serverPid`: the CPU time (µs, every thread) that process used per answer of the measured run. */
  serverCpu?: number;
}

/** One request of a sequence a connection repeats (`path` is relative to the load's URL's origin). */
export interface SequenceStep {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

/**
 * One autocannon run (after a 1 s warm-up run), in a worker thread of its own (bench/load-worker.ts);
 * every answer must be 2xx. With `sequence`, each connection sends those requests in turn, over and
 * over (a reader's page view), and `rps` counts every request. With `serverPid`, the CPU time that
 * process used per answer is read from /proc over the measured run: the server's own cost, which
 * the load generator sharing the machine's cores does not blur.
 */
export async function load(
  url: string,
  options: {
    connections: number;
    duration: number;
    method?: 'GET' | 'POST';
    headers?: Record<string, string>;
    body?: string;
    sequence?: SequenceStep[];
    /** Each connection starts `sequence` at a step of its own, spread evenly over it (load-worker.ts). */
    staggered?: boolean;
    serverPid?: number;
  },
): Promise<LoadResult> {
  const base: Options = {
    url,
    connections: options.connections,
    method: options.method ?? 'GET',
    headers: options.headers ?? {},
    ...(options.body === undefined ? {} : { body: options.body }),
    ...(options.sequence === undefined ? {} : { requests: options.sequence }),
  };
  const { serverPid } = options;
  let cpuAtStart: number | undefined;
  const r = await new Promise<WorkerLoadResult>((resolve, reject) => {
    const worker = new Worker(new URL('./load-worker.ts', import.meta.url), {
      workerData: { options: base, duration: options.duration, staggered: options.staggered === true },
    });
    worker.on('message', (message: 'measuring' | WorkerLoadResult) => {
      if (message !== 'measuring') return resolve(message);
      if (serverPid !== undefined) cpuAtStart = processCpu(serverPid);
    });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the load worker exited (code ${code}) without a result`)));
  });
  if (r.non2xx || r.errors || r.timeouts)
    throw new Error(`${url}: ${r.non2xx} non-2xx answers, ${r.errors} errors, ${r.timeouts} timeouts`);
  const serverCpu = serverPid !== undefined && cpuAtStart !== undefined ? (processCpu(serverPid) - cpuAtStart) / r.requests : undefined;
  return { rps: r.rps, mean: r.mean, p50: r.p50, p99: r.p99, ...(serverCpu !== undefined ? { serverCpu } : {}) };
}

/** Medians over the rounds, and each round's results. */
export type Compared = LoadResult & { rounds: LoadResult[] };

/** Alternating rounds (a, b, a, b, …) of two targets; medians of each figure over the rounds. */
export async function compare(rounds: number, a: () => Promise<LoadResult>, b: () => Promise<LoadResult>): Promise<[Compared, Compared]> {
  const runs: [LoadResult[], LoadResult[]] = [[], []];
  for (let i = 0; i < rounds; i++) {
    runs[0].push(await a());
    runs[1].push(await b());
  }
  const med = (list: LoadResult[]): Compared => ({
    rps: median(list.map((r) => r.rps)),
    mean: median(list.map((r) => r.mean)),
    p50: median(list.map((r) => r.p50)),
    p99: median(list.map((r) => r.p99)),
    ...(list.every((r) => r.serverCpu !== undefined) ? { serverCpu: median(list.map((r) => r.serverCpu!)) } : {}),
    rounds: list,
  });
  return [med(runs[0]), med(runs[1])];
}

/** Each round's ratio of `value` between two compared series. */
export const ratios = (a: LoadResult[], b: LoadResult[], value: (r: LoadResult) => number) => a.map((r, i) => value(r) / value(b[i]));

export const atLeast = (value: number, min: number) => value >= min;
export const atMost = (value: number, max: number) => value <= max;

export function notMeasured(measure: string, target: string, note: string): Row {
  return { measure, value: null, unit: '', baseline: '-', baselineValue: null, ratio: null, target, met: null, note };
}

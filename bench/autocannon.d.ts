/** The part of autocannon's API the benchmarks use (the package ships no type declarations). */
declare module 'autocannon' {
  export interface Options {
    url: string;
    connections?: number;
    duration?: number;
    method?: 'GET' | 'POST';
    headers?: Record<string, string>;
    body?: string;
    /** A sequence of requests each connection sends in turn, over and over. */
    requests?: { method: 'GET' | 'POST'; path: string; headers?: Record<string, string>; body?: string }[];
    /** Called with each connection's client as it is made. */
    setupClient?: (client: { setRequests(requests: NonNullable<Options['requests']>): void }) => void;
  }
  interface Histogram {
    average: number;
    p50: number;
    p90: number;
    p97_5: number;
    p99: number;
  }
  export interface Result {
    requests: Histogram & { total: number };
    latency: Histogram;
    errors: number;
    timeouts: number;
    non2xx: number;
  }
  /** In a worker thread, the result's histograms come encoded: `aggregateResult` reads them. */
  function autocannon(options: Options): Promise<Result>;
  namespace autocannon {
    function aggregateResult(results: unknown[], options?: Options): Result;
  }
  export default autocannon;
}

import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { parseDuration } from '../src/domain/duration.ts';

/** Helpers of `npm run bench`: options, a bounded keep-alive load generator, statistics, child servers. */

export interface BenchOptions {
  durationMs: number;
  warmupMs: number;
  connections: number;
  rounds: number;
  /** Spaces walked by `bench:api`, a different one each request (1: the same space, its answer kept). */
  spaces: number;
}

/** Reads `--name=value` / `--name value` flags first, then BENCH_* variables, then the defaults. */
export function readOptions(argv: string[] = process.argv.slice(2), env: NodeJS.ProcessEnv = process.env): BenchOptions {
  const flags = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const m = /^--([a-z-]+)(?:=(.*))?$/.exec(argv[i]);
    if (!m) throw new Error(`unknown argument ${argv[i]} (flags: --duration, --warmup, --connections, --rounds, --spaces)`);
    flags.set(m[1], m[2] ?? argv[++i] ?? '');
  }
  const pick = (flag: string, variable: string, fallback: string) => flags.get(flag) ?? (env[variable] || fallback);
  const durationMs = parseDuration(pick('duration', 'BENCH_DURATION', '10s'));
  const warmupMs = parseDuration(pick('warmup', 'BENCH_WARMUP', '2s'));
  const connections = Number(pick('connections', 'BENCH_CONNECTIONS', '32'));
  const rounds = Number(pick('rounds', 'BENCH_ROUNDS', '2'));
  const spaces = Number(pick('spaces', 'BENCH_SPACES', '1'));
  const problems: string[] = [];
  if (!(durationMs >= 500 && durationMs <= 600_000)) problems.push('duration must be between 0.5s and 10m');
  if (!(warmupMs >= 0 && warmupMs <= 60_000)) problems.push('warm-up must be between 0 and 1m');
  if (!Number.isInteger(connections) || connections < 1 || connections > 1024)
    problems.push('connections must be an integer from 1 to 1024');
  if (!Number.isInteger(rounds) || rounds < 1 || rounds > 20) problems.push('rounds must be an integer from 1 to 20');
  if (!Number.isInteger(spaces) || spaces < 1 || spaces > 10_000) problems.push('spaces must be an integer from 1 to 10000');
  if (problems.length) throw new Error(`invalid benchmark options: ${problems.join('; ')}`);
  return { durationMs, warmupMs, connections, rounds, spaces };
}

export interface RoundResult<S = unknown> {
  requests: number;
  errors: number;
  rps: number;
  /** Latencies in ms of every measured request. */
  latencies: Float64Array;
  /** The first failure, if any: status and (part of) the body, or the thrown error. */
  firstError?: string;
  /** What `sample` returned at the start and at the end of the measured window. */
  samples?: [S, S];
}

/**
 * Runs `connections` concurrent request loops over as many keep-alive connections against one
 * loopback origin: a warm-up (not counted), then `durationMs` measured. Each loop issues its next
 * request when the previous one has completed, so at most `connections` requests are in flight.
 * Given several paths, each loop walks all of them in turn, starting at a place of its own.
 * It stops at the end of the duration, or at the first response that is not 200.
 */
export async function runLoad<S = unknown>(
  origin: string,
  path: string | readonly string[],
  headers: Record<string, string>,
  options: {
    connections: number;
    durationMs: number;
    warmupMs: number;
    sample?: () => Promise<S>;
    signal?: AbortSignal;
    method?: 'GET' | 'POST';
    body?: string;
  },
): Promise<RoundResult<S>> {
  const url = new URL(origin);
  if (url.hostname !== '127.0.0.1' && url.hostname !== 'localhost' && url.hostname !== '[::1]') {
    throw new Error(`the benchmark only targets loopback addresses, not ${origin}`);
  }
  const pool = new Pool(origin, {
    connections: options.connections,
    pipelining: 1,
    keepAliveTimeout: 60_000,
    headersTimeout: 10_000,
    bodyTimeout: 10_000,
    connectTimeout: 5_000,
  });
  let latencies = new Float64Array(1 << 16);
  let count = 0;
  let errors = 0;
  let firstError: string | undefined;
  let measuring = false;
  let stopped = false;
  let measureStart = 0;
  let measureEnd = 0;

  const record = (ms: number) => {
    if (count === latencies.length) {
      const bigger = new Float64Array(latencies.length * 2);
      bigger.set(latencies);
      latencies = bigger;
    }
    latencies[count++] = ms;
  };
  const fail = (message: string) => {
    errors++;
    firstError ??= message;
    stopped = true;
  };

  const paths = typeof path === 'string' ? [path] : path;
  async function loop(index: number) {
    let next = Math.floor((index * paths.length) / options.connections);
    while (!stopped) {
      const started = performance.now();
      try {
        const { statusCode, body } = await pool.request({
          path: paths[next++ % paths.length],
          method: options.method ?? 'GET',
          headers,
          body: options.body,
        });
        const text = await body.text();
        if (statusCode !== 200) {
          fail(`HTTP ${statusCode}: ${text.slice(0, 300)}`);
          break;
        }
      } catch (error) {
        if (stopped) break;
        fail(`request failed: ${(error as Error).message}`);
        break;
      }
      // A request counts when it both started and completed inside the measured window.
      if (measuring && started >= measureStart && !stopped) record(performance.now() - started);
    }
  }

  let startSample: Promise<S> | undefined;
  let endSample: Promise<S> | undefined;
  const timers: NodeJS.Timeout[] = [];
  const loops = Array.from({ length: options.connections }, (_, index) => loop(index));
  const finished = Promise.all(loops);
  await new Promise<void>((done) => {
    timers.push(
      setTimeout(() => {
        measureStart = performance.now();
        measuring = true;
        startSample = options.sample?.();
        timers.push(
          setTimeout(() => {
            measureEnd = performance.now();
            stopped = true;
            endSample = options.sample?.();
            done();
          }, options.durationMs),
        );
      }, options.warmupMs),
    );
    void finished.then(() => done());
    options.signal?.addEventListener('abort', () => {
      stopped = true;
      done();
    });
  });
  for (const timer of timers) clearTimeout(timer);
  if (!measureEnd) measureEnd = performance.now();
  // Bounded: in-flight requests are given a moment to finish, then the pool is torn down.
  await Promise.race([finished, new Promise((r) => setTimeout(r, 11_000).unref())]);
  await pool.destroy().catch(() => {});
  const elapsedS = measuring ? (measureEnd - measureStart) / 1000 : 0;
  const samples = startSample && endSample ? ([await startSample, await endSample] as [S, S]) : undefined;
  return {
    requests: count,
    errors,
    rps: elapsedS > 0 ? count / elapsedS : 0,
    latencies: latencies.subarray(0, count),
    firstError,
    samples,
  };
}

/** One answer of a `timedClient` request: its status, headers, body and how long it took end to end. */
export interface TimedAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  ms: number;
}

/**
 * A client for requests timed one at a time (latency rows, probes, seeding calls): one keep-alive
 * connection pool per origin, through undici's `request`. Not `fetch`: after a load phase, the
 * load generator's `fetch` responses kept this process in back-to-back full collections (every
 * 50 ms, 20–40 ms each), which showed up as the server's latency.
 */
export function timedClient(origin: string, connections = 1) {
  const pool = new Pool(origin, { connections, pipelining: 1, keepAliveTimeout: 60_000, headersTimeout: 120_000, bodyTimeout: 120_000 });
  return {
    async request(
      method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
      path: string,
      headers: Record<string, string> = {},
      body?: string,
    ): Promise<TimedAnswer> {
      const started = performance.now();
      const res = await pool.request({ method, path, headers, body });
      const chunks: Buffer[] = [];
      for await (const chunk of res.body) chunks.push(chunk as Buffer);
      return { status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks), ms: performance.now() - started };
    },
    close: () => pool.close(),
  };
}

export function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index];
}

export function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

export function concat(parts: Float64Array[]): Float64Array {
  const out = new Float64Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out.sort();
}

/** Messages between bench/run.ts and a bench/server.ts child. */
export type ServerMessage =
  | { type: 'listening'; url: string }
  | { type: 'failed'; error: string }
  | { type: 'cpu'; id: number; micros: number }
  | { type: 'memory'; id: number; memory: MemoryReport };

/** A server's memory as it reports it (bytes): now, and each figure's peak since the previous report. */
export interface MemoryReport {
  now: NodeJS.MemoryUsage;
  /** Peaks sampled every 100 ms in the server since its previous report (BENCH_MEMORY_TRACE=1 only). */
  peak?: NodeJS.MemoryUsage;
  /** The V8 heap spaces (used / committed) when the resident size peaked. */
  spacesAtPeak?: Record<string, { used: number; size: number }>;
  /** Heap snapshots written since the previous report (BENCH_HEAP_SNAPSHOT=<dir>). */
  snapshots?: string[];
}

export interface ServerChild {
  url: string;
  child: ChildProcess;
  /** CPU time (user + system, µs) the server process has used so far. */
  cpu(): Promise<number>;
  /**
   * What the server reports of its memory (and resets its peaks). `phases` names the benchmark
   * module that just ended (a heap snapshot is written for it under BENCH_HEAP_SNAPSHOT) and the
   * one about to start.
   */
  memory(phases?: { ended?: string; starting?: string }): Promise<MemoryReport>;
  stop(): Promise<void>;
}

/**
 * The Node flags `npm run api` starts the service with (package.json's `api` script: the heap
 * settings and the preload, with its compile cache) and the variables it sets ahead of them (the
 * allocator's), so both bench targets run under them.
 */
function apiCommand(): { env: Record<string, string>; wrapper: string | null; flags: string[] } {
  const packageJson = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { scripts: Record<string, string> };
  const words = packageJson.scripts.api.split(/\s+/);
  // Variables set ahead of the command (NAME=value) go into the children's environment.
  const env: Record<string, string> = {};
  while (/^[A-Z_][A-Z0-9_]*=/.test(words[0] ?? '')) {
    const [name, ...value] = words.shift()!.split('=');
    env[name] = value.join('=');
  }
  const local = (path: string) =>
    path.startsWith('./') || path.startsWith('scripts/')
      ? fileURLToPath(new URL(`../${path.replace(/^\.\//, '')}`, import.meta.url))
      : path;
  // A shell script the command runs through (`sh scripts/jemalloc.sh node …`): the children run through it too.
  let wrapper: string | null = null;
  if (words[0] === 'sh' && words[1]?.endsWith('.sh')) {
    wrapper = local(words[1]);
    words.splice(0, 2);
  }
  if (words[0] !== 'node') throw new Error(`package.json: the api script does not run node: ${packageJson.scripts.api}`);
  return { env, wrapper, flags: words.slice(1, -1).map(local) };
}

/**
 * Starts bench/server.ts in a child process of its own (both targets run the same way, so the
 * load generator in this process never shares an event loop with the server it measures).
 */
export async function startServerChild(kind: 'api' | 'bare', env: NodeJS.ProcessEnv, timeoutMs = 60_000): Promise<ServerChild> {
  // BENCH_CPU_PROF=<dir>: each server writes a V8 CPU profile there when it stops (open it in Chrome DevTools).
  const profileDir = env.BENCH_CPU_PROF;
  const profile = profileDir ? ['--cpu-prof', '--cpu-prof-dir', profileDir, '--cpu-prof-name', `${kind}-${Date.now()}.cpuprofile`] : [];
  // BENCH_NODE_FLAGS: extra Node flags for both servers, after the api script's (to try heap settings).
  const extra = (env.BENCH_NODE_FLAGS ?? '').split(/\s+/).filter(Boolean);
  const api = apiCommand();
  const execArgv = [...api.flags, ...extra, ...profile];
  // Through the api script's wrapper when it has one: `sh <wrapper> node <flags> server.ts <kind>`.
  const child = fork(new URL('./server.ts', import.meta.url), [kind], {
    env: { ...api.env, ...env },
    ...(api.wrapper ? { execPath: '/bin/sh', execArgv: [api.wrapper, process.execPath, ...execArgv] } : { execArgv }),
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    if (child.connected) child.send({ type: 'stop' });
    else child.kill('SIGTERM');
    const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(kill);
  };
  try {
    const url = await new Promise<string>((done, fail) => {
      const timer = setTimeout(() => fail(new Error(`${kind} server did not start within ${timeoutMs} ms`)), timeoutMs);
      child.on('message', (message: ServerMessage) => {
        if (message.type !== 'cpu') clearTimeout(timer);
        if (message.type === 'listening') done(message.url);
        else if (message.type === 'failed') fail(new Error(`${kind} server failed: ${message.error}`));
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        fail(new Error(`${kind} server exited with code ${code} before listening`));
      });
    });
    let nextId = 0;
    const waiting = new Map<number, (answer: ServerMessage) => void>();
    child.on('message', (message: ServerMessage) => {
      if (message.type === 'cpu' || message.type === 'memory') waiting.get(message.id)?.(message);
    });
    const ask = (request: { type: 'cpu' | 'memory'; ended?: string; starting?: string }, timeoutMs: number) =>
      new Promise<ServerMessage>((done, fail) => {
        const id = ++nextId;
        const timer = setTimeout(() => fail(new Error(`${kind} server did not answer ${request.type}`)), timeoutMs);
        waiting.set(id, (answer) => {
          clearTimeout(timer);
          waiting.delete(id);
          done(answer);
        });
        child.send({ ...request, id });
      });
    const cpu = async () => {
      const answer = await ask({ type: 'cpu' }, 5_000);
      return answer.type === 'cpu' ? answer.micros : 0;
    };
    // A heap snapshot of a large heap takes a while.
    const memory = async (phases: { ended?: string; starting?: string } = {}) => {
      const answer = await ask({ type: 'memory', ...phases }, 300_000);
      if (answer.type !== 'memory') throw new Error(`${kind} server answered ${answer.type} to memory`);
      return answer.memory;
    };
    return { url, child, cpu, memory, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Cleanup steps run in reverse order, once, whatever ends the run; no step may take longer than `stepTimeoutMs`. */
export function cleanupStack(stepTimeoutMs = 20_000) {
  const steps: (() => Promise<unknown> | unknown)[] = [];
  let running: Promise<void> | undefined;
  return {
    push(step: () => Promise<unknown> | unknown) {
      steps.push(step);
    },
    run(): Promise<void> {
      running ??= (async () => {
        for (const step of steps.reverse()) {
          let timer: NodeJS.Timeout | undefined;
          try {
            await Promise.race([
              Promise.resolve().then(step),
              new Promise(
                (_, fail) => (timer = setTimeout(() => fail(new Error(`a step took over ${stepTimeoutMs} ms, skipped`)), stepTimeoutMs)),
              ),
            ]);
          } catch (error) {
            console.error('cleanup:', (error as Error).message);
          } finally {
            clearTimeout(timer);
          }
        }
      })();
      return running;
    },
  };
}

/**
 * CPU time (µs) used so far by the PostgreSQL backends serving the current database, read from
 * /proc; undefined when the server is not on this machine (or /proc is not readable).
 */
export async function databaseCpu(client: {
  query(sql: string): Promise<{ rows: { pid: number }[] }>;
}): Promise<Map<number, number> | undefined> {
  const { rows } = await client.query('select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()');
  const out = new Map<number, number>();
  for (const { pid } of rows) {
    try {
      if (!readFileSync(`/proc/${pid}/cmdline`, 'latin1').includes('postgres')) return undefined;
      out.set(pid, processCpu(pid));
    } catch {
      // the backend ended meanwhile, or this is not a local server
    }
  }
  return out.size > 0 || rows.length === 0 ? out : undefined;
}

/** CPU time (µs, user and system, every thread) process `pid` has used so far, read from /proc. */
export function processCpu(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields 14 and 15 of /proc/<pid>/stat (utime, stime), counted from field 3 (state).
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / CLOCK_TICKS;
}

const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** CPU used between two databaseCpu snapshots; a backend that appeared meanwhile counts whole. */
export function databaseCpuDelta(before: Map<number, number> | undefined, after: Map<number, number> | undefined): number | undefined {
  if (!before || !after) return undefined;
  let total = 0;
  for (const [pid, micros] of after) total += micros - (before.get(pid) ?? 0);
  return total;
}

/**
 * Work whose cost depends on user input (parsing archives and documents, converting markdown,
 * validating specs) runs in the process's one pool of worker threads (Piscina), never on the event
 * loop the API or the worker needs. Each task has a heap of its own size (`resourceLimits`; tasks
 * of one heap size share threads) and a wall-clock budget that starts when the task starts in its
 * thread (its module loaded; starting a thread and loading a module are bounded apart), so
 * input that slips past the byte limits costs one thread for a bounded time, never the process.
 * The thread imports `task.module` (once: it stays loaded for the thread's next tasks), calls its
 * export `task.name` with the arguments (structured-cloned; `transfer` hands buffers over without a
 * copy) and answers the result (every own-buffer Uint8Array in it moved).
 *
 * Admission: at most `threads` tasks run at once in each lane (`interactive`: the API's reads,
 * short budgets; `job`: imports and processing, long budgets), so a long import never holds up a
 * reader's conversion; the rest wait in order, at most `queueLimit` of them and at most
 * `queueWaitMs` each. What can go wrong becomes a BoundedParseError:
 *
 * - `out-of-memory`: the thread reached its heap limit (V8 stops it; the process lives on);
 * - `timeout`: the budget passed and the thread was terminated;
 * - `aborted`: the caller's signal fired (an activity cancelled) and the thread was terminated;
 * - `rejected`: the task threw; `code` is the error's own string `code` (ZipError, DocxError, …)
 *   or PARSE_FAILED, so callers report what the input did wrong;
 * - `busy`: the pool's queue was full, or the task waited longer than allowed: not the input's
 *   fault, so the API answers 503 with Retry-After and jobs are retried;
 * - `crashed`: the thread could not start or load the task, or died otherwise: not the input's
 *   fault, so callers let it be retried.
 *
 * Defaults (overridable per call): 512 MiB old generation and 32 MiB young generation, about 15
 * times what a 30 MiB document needs to convert; 2 minutes of wall clock. Memory outside the JS
 * heap (ArrayBuffers) is not covered by `resourceLimits`: the parsers bound it themselves (zip
 * entries are counted by the bytes they inflate to, see domain/content-import/zip.ts).
 *
 * The threads run TypeScript as the rest of the project does (Node's type stripping), so a task
 * module is any module of the project whose export takes and returns cloneable values. They do not
 * see the process's environment (secrets stay out of reach of parser code).
 */
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { Piscina } from 'piscina';

export interface ParseBounds {
  /** The thread's old-generation heap, in MiB. */
  maxOldGenerationSizeMb: number;
  /** The thread's young-generation heap, in MiB. */
  maxYoungGenerationSizeMb: number;
  /** Wall clock, in ms, from the moment the task starts in its thread: past it the thread is terminated. */
  timeoutMs: number;
}

export const DEFAULT_PARSE_BOUNDS: ParseBounds = { maxOldGenerationSizeMb: 512, maxYoungGenerationSizeMb: 32, timeoutMs: 120_000 };

export type BoundedParseFailure = 'out-of-memory' | 'timeout' | 'aborted' | 'rejected' | 'busy' | 'crashed';

export class BoundedParseError extends Error {
  readonly reason: BoundedParseFailure;
  /** For `rejected`: the code of the task's error (PARSE_FAILED when it had none); else the reason in capitals. */
  readonly code: string;
  constructor(reason: BoundedParseFailure, code: string, message: string) {
    super(message);
    this.name = 'BoundedParseError';
    this.reason = reason;
    this.code = code;
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any function shape: the types flow from F
export type ParseFunction = (...args: any[]) => unknown;

/** A function a pool thread can run: the module that exports it and its export name. */
export interface ParseTask<F extends ParseFunction> {
  module: string;
  name: string;
  /** Carries F for type inference only. */
  readonly _type?: F;
}

/** `boundedTask<typeof fn>(new URL('./module.ts', import.meta.url), 'fn')`. */
export function boundedTask<F extends ParseFunction>(module: URL, name: string): ParseTask<F> {
  return { module: module.href, name };
}

/** What a thread is given (see bounded-parse-worker.ts). */
export interface PoolJob {
  module: string;
  name: string;
  args: unknown[];
  /** Told `started` once the task's module is loaded and the task begins: its budget starts then. */
  port: MessagePort;
}

/** What a thread answers (see bounded-parse-worker.ts). */
export type ThreadMessage =
  { ok: true; result: unknown } | { ok: false; stage: 'load' | 'run'; name: string; code: string | null; message: string };

/** Which admission lane a task waits in. */
export type TaskLane = 'interactive' | 'job';

export interface RunOptions extends Partial<ParseBounds> {
  /** Buffers of the arguments to move into the thread instead of copying (unusable here afterwards). */
  transfer?: ArrayBuffer[];
  /** Terminates the thread when it fires. */
  signal?: AbortSignal;
  /** `job` by default. */
  lane?: TaskLane;
}

export interface PoolSettings {
  /** Tasks running at once in each lane. */
  threads: number;
  /** Tasks waiting at once in each lane; one more is refused as `busy`. */
  queueLimit: number;
  /** How long a task may wait for a thread before it is refused as `busy`. */
  queueWaitMs: number;
  /** An idle thread ends after this long. */
  idleMs: number;
}

const settings: PoolSettings = { threads: Math.max(2, availableParallelism()), queueLimit: 1000, queueWaitMs: 30_000, idleMs: 30_000 };

/** Sets the pool's sizes; called once when a process starts, before its first task. */
export function configureTaskPool(change: Partial<PoolSettings>): void {
  Object.assign(settings, change);
}

/** How much lower the pool's threads are scheduled than the process's own (Linux `nice`). */
const THREAD_NICENESS = 10;

const WORKER = fileURLToPath(new URL('./bounded-parse-worker.ts', import.meta.url));

/** Piscina pools by heap size: tasks of one heap size share their threads. */
const pools = new Map<string, Piscina<PoolJob, ThreadMessage>>();

function poolFor(bounds: ParseBounds): Piscina<PoolJob, ThreadMessage> {
  const key = `${bounds.maxOldGenerationSizeMb}/${bounds.maxYoungGenerationSizeMb}`;
  let pool = pools.get(key);
  if (!pool) {
    pool = new Piscina<PoolJob, ThreadMessage>({
      filename: WORKER,
      minThreads: 0,
      // Admission (below) keeps at most `threads` tasks of each lane in the pools.
      maxThreads: 2 * settings.threads,
      idleTimeout: settings.idleMs,
      resourceLimits: { maxOldGenerationSizeMb: bounds.maxOldGenerationSizeMb, maxYoungGenerationSizeMb: bounds.maxYoungGenerationSizeMb },
      env: {},
      atomics: 'disabled',
      // Below the event loops of the process: a thread busy with hostile input gives way to the
      // threads that answer requests and run workflow tasks, on a machine with few cores.
      niceIncrement: THREAD_NICENESS,
    });
    // A thread that dies between tasks is replaced; the event must not go unheard (it would end the process).
    pool.on('error', () => {});
    pools.set(key, pool);
  }
  return pool;
}

/** Per lane: tasks running, and the ones waiting for a thread. */
class Lane {
  running = 0;
  private readonly waiting: { start: () => void; timer: NodeJS.Timeout }[] = [];

  get queued(): number {
    return this.waiting.length;
  }

  /** Resolves when a thread is free for the task (the caller must call `release` after). */
  acquire(what: string): Promise<void> {
    if (this.running < settings.threads) {
      this.running++;
      return Promise.resolve();
    }
    if (this.waiting.length >= settings.queueLimit)
      return Promise.reject(
        new BoundedParseError('busy', 'BUSY', `${what}: ${this.waiting.length} tasks are waiting for a thread already`),
      );
    return new Promise((resolve, reject) => {
      const entry = {
        start: () => {
          clearTimeout(entry.timer);
          resolve();
        },
        timer: setTimeout(() => {
          const at = this.waiting.indexOf(entry);
          if (at >= 0) this.waiting.splice(at, 1);
          reject(new BoundedParseError('busy', 'BUSY', `${what} waited ${settings.queueWaitMs} ms for a thread`));
        }, settings.queueWaitMs),
      };
      this.waiting.push(entry);
    });
  }

  release(): void {
    const next = this.waiting.shift();
    if (next) next.start();
    else this.running--;
  }
}

const lanes: Record<TaskLane, Lane> = { interactive: new Lane(), job: new Lane() };

/** What the pool holds now, for metrics and tests. */
export function taskPoolState(): Record<TaskLane, { running: number; queued: number }> & { threads: number } {
  let threads = 0;
  for (const pool of pools.values()) threads += pool.threads.length;
  return {
    interactive: { running: lanes.interactive.running, queued: lanes.interactive.queued },
    job: { running: lanes.job.running, queued: lanes.job.queued },
    threads,
  };
}

/** Ends every thread of the pool (a process shutting down, a test's end). */
export async function closeTaskPool(): Promise<void> {
  const all = [...pools.values()];
  pools.clear();
  await Promise.all(all.map((pool) => pool.destroy()));
}

type PiscinaTransferList = NonNullable<Parameters<Piscina['run']>[1]>['transferList'];
/**
 * Piscina wants an array (it checks `Array.isArray`); its type is inferred from MessagePort's
 * `postMessage`, whose last overload in today's Node types takes an options object instead.
 */
const transferList = (items: (ArrayBuffer | MessagePort)[]): PiscinaTransferList => items as unknown as PiscinaTransferList;

/** How long a thread may take to start and load a task's module before the task is given up (a machine in trouble, not the input). */
const LOAD_TIMEOUT_MS = 60_000;

/** Runs `task(...args)` in a pool thread; resolves with its result or rejects with a BoundedParseError. */
export async function runBounded<F extends ParseFunction>(
  task: ParseTask<F>,
  args: Parameters<F>,
  options: RunOptions = {},
): Promise<Awaited<ReturnType<F>>> {
  const bounds: ParseBounds = {
    maxOldGenerationSizeMb: options.maxOldGenerationSizeMb ?? DEFAULT_PARSE_BOUNDS.maxOldGenerationSizeMb,
    maxYoungGenerationSizeMb: options.maxYoungGenerationSizeMb ?? DEFAULT_PARSE_BOUNDS.maxYoungGenerationSizeMb,
    timeoutMs: options.timeoutMs ?? DEFAULT_PARSE_BOUNDS.timeoutMs,
  };
  const what = `${task.name} (${task.module.replace(/^.*\//, '')})`;
  const aborted = () => new BoundedParseError('aborted', 'ABORTED', `${what} was cancelled`);
  if (options.signal?.aborted) throw aborted();

  const lane = lanes[options.lane ?? 'job'];
  await lane.acquire(what);
  try {
    if (options.signal?.aborted) throw aborted();
    const stop = new AbortController();
    let stopped: BoundedParseError | null = null;
    const halt = (error: BoundedParseError) => {
      stopped ??= error;
      stop.abort();
    };
    // The budget runs from the moment the task starts in its thread: starting a thread and loading
    // the task's module (once per thread) are the pool's cost, bounded on their own.
    let timer = setTimeout(
      () => halt(new BoundedParseError('crashed', 'CRASHED', `${what} could not be started within ${LOAD_TIMEOUT_MS} ms`)),
      LOAD_TIMEOUT_MS,
    );
    const channel = new MessageChannel();
    channel.port1.once('message', () => {
      clearTimeout(timer);
      timer = setTimeout(
        () => halt(new BoundedParseError('timeout', 'TIMEOUT', `${what} did not finish within ${bounds.timeoutMs} ms and was stopped`)),
        bounds.timeoutMs,
      );
    });
    const onAbort = () => halt(aborted());
    options.signal?.addEventListener('abort', onAbort, { once: true });
    let message: ThreadMessage;
    try {
      message = await poolFor(bounds).run(
        { module: task.module, name: task.name, args, port: channel.port2 },
        { signal: stop.signal, transferList: transferList([...(options.transfer ?? []), channel.port2]) },
      );
    } catch (error) {
      if (stopped) throw stopped;
      const code = (error as { code?: unknown }).code;
      if (code === 'ERR_WORKER_OUT_OF_MEMORY')
        throw new BoundedParseError(
          'out-of-memory',
          'OUT_OF_MEMORY',
          `${what} needed more than the ${bounds.maxOldGenerationSizeMb} MiB of memory it may use and was stopped`,
        );
      throw new BoundedParseError('crashed', 'CRASHED', `${what} failed: ${(error as Error).message}`);
    } finally {
      clearTimeout(timer);
      channel.port1.close();
      options.signal?.removeEventListener('abort', onAbort);
    }
    if (message.ok) return message.result as Awaited<ReturnType<F>>;
    if (message.stage === 'load') throw new BoundedParseError('crashed', 'CRASHED', `${what} could not be loaded: ${message.message}`);
    throw new BoundedParseError('rejected', message.code ?? 'PARSE_FAILED', message.message);
  } finally {
    lane.release();
  }
}

/**
 * Parses of untrusted input (archives, documents) run in a `node:worker_threads` thread of their
 * own, with a heap of its own (`resourceLimits`) and a wall-clock deadline, so that a bomb that
 * slips past the byte limits of the parser costs one thread, never the process. The thread
 * imports `task.module`, calls its export `task.name` with the arguments (structured-cloned;
 * `transfer` hands buffers over without a copy) and posts the result back (every own-buffer
 * Uint8Array in it transferred). What can go wrong becomes a BoundedParseError:
 *
 * - `out-of-memory`: the thread reached its heap limit (V8 stops it; the process lives on);
 * - `timeout`: the deadline passed and the thread was terminated;
 * - `aborted`: the caller's signal fired (an activity cancelled) and the thread was terminated;
 * - `rejected`: the task threw; `code` is the error's own string `code` (ZipError, DocxError, …)
 *   or PARSE_FAILED, so callers report what the input did wrong;
 * - `crashed`: the thread could not start or load the task, or died otherwise: not the input's
 *   fault, so callers let it be retried.
 *
 * Limits (chosen here, overridable per call): 512 MiB old generation and 32 MiB young generation,
 * about 15 times what a 30 MiB document needs to convert; 2 minutes of wall clock. Memory outside
 * the JS heap (ArrayBuffers) is not covered by `resourceLimits`: the parsers bound it themselves
 * (zip entries are counted by the bytes they inflate to, see domain/content-import/zip.ts).
 *
 * The thread runs TypeScript as the rest of the project does (Node's type stripping), so a task
 * module is any module of the project whose export takes and returns cloneable values.
 */
import { Worker } from 'node:worker_threads';

export interface ParseBounds {
  /** The thread's old-generation heap, in MiB. */
  maxOldGenerationSizeMb: number;
  /** The thread's young-generation heap, in MiB. */
  maxYoungGenerationSizeMb: number;
  /** Wall clock, in ms, from the thread's start: past it the thread is terminated. */
  timeoutMs: number;
}

export const DEFAULT_PARSE_BOUNDS: ParseBounds = { maxOldGenerationSizeMb: 512, maxYoungGenerationSizeMb: 32, timeoutMs: 120_000 };

export type BoundedParseFailure = 'out-of-memory' | 'timeout' | 'aborted' | 'rejected' | 'crashed';

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

/** A function a bounded thread can run: the module that exports it and its export name. */
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

/** What the thread posts back (see bounded-parse-worker.ts). */
export type ThreadMessage =
  { ok: true; result: unknown } | { ok: false; stage: 'load' | 'run'; name: string; code: string | null; message: string };

const WORKER = new URL('./bounded-parse-worker.ts', import.meta.url);

export interface RunOptions extends Partial<ParseBounds> {
  /** Buffers of the arguments to move into the thread instead of copying (unusable here afterwards). */
  transfer?: ArrayBuffer[];
  /** Terminates the thread when it fires. */
  signal?: AbortSignal;
}

/** Runs `task(...args)` in a bounded thread; resolves with its result or rejects with a BoundedParseError. */
export function runBounded<F extends ParseFunction>(
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
  if (options.signal?.aborted) return Promise.reject(new BoundedParseError('aborted', 'ABORTED', `${what} was cancelled`));

  return new Promise((resolve, reject) => {
    let settled: BoundedParseError | { result: unknown } | null = null;
    const worker = new Worker(WORKER, {
      workerData: { module: task.module, name: task.name, args },
      transferList: options.transfer ?? [],
      resourceLimits: {
        maxOldGenerationSizeMb: bounds.maxOldGenerationSizeMb,
        maxYoungGenerationSizeMb: bounds.maxYoungGenerationSizeMb,
      },
      // The thread does not see the process's environment (secrets stay out of reach of parser code).
      env: {},
    });
    const settle = (outcome: BoundedParseError | { result: unknown }) => {
      if (settled !== null) return;
      settled = outcome;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      // Terminating a thread that already finished is harmless; one still running is stopped at once.
      void worker.terminate();
      if (outcome instanceof BoundedParseError) reject(outcome);
      else resolve(outcome.result as Awaited<ReturnType<F>>);
    };
    const timer = setTimeout(
      () => settle(new BoundedParseError('timeout', 'TIMEOUT', `${what} did not finish within ${bounds.timeoutMs} ms and was stopped`)),
      bounds.timeoutMs,
    );
    const onAbort = () => settle(new BoundedParseError('aborted', 'ABORTED', `${what} was cancelled`));
    options.signal?.addEventListener('abort', onAbort, { once: true });

    worker.on('message', (message: ThreadMessage) => {
      if (message.ok) settle({ result: message.result });
      else if (message.stage === 'load')
        settle(new BoundedParseError('crashed', 'CRASHED', `${what} could not be loaded: ${message.message}`));
      else settle(new BoundedParseError('rejected', message.code ?? 'PARSE_FAILED', message.message));
    });
    worker.on('error', (error: Error & { code?: string }) => {
      if (error.code === 'ERR_WORKER_OUT_OF_MEMORY') {
        settle(
          new BoundedParseError(
            'out-of-memory',
            'OUT_OF_MEMORY',
            `${what} needed more than the ${bounds.maxOldGenerationSizeMb} MiB of memory it may use and was stopped`,
          ),
        );
      } else {
        settle(new BoundedParseError('crashed', 'CRASHED', `${what} failed: ${error.message}`));
      }
    });
    worker.on('exit', (code) => settle(new BoundedParseError('crashed', 'CRASHED', `${what} ended (exit code ${code}) without an answer`)));
  });
}

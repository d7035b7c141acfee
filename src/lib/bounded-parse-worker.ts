/**
 * The thread of `runBounded` (bounded-parse.ts): imports the task's module, calls the export with
 * the arguments and posts the result, its own-buffer Uint8Arrays transferred rather than copied.
 * A thrown error is posted with its name, message and string `code`; the thread then ends.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { ThreadMessage } from './bounded-parse.ts';

interface Job {
  module: string;
  name: string;
  args: unknown[];
}

/** ArrayBuffers of the result that can move to the caller: each whole buffer once, never a pool shared with other views. */
function transferables(result: unknown): ArrayBuffer[] {
  const out = new Set<ArrayBuffer>();
  const seen = new Set<object>();
  const walk = (value: unknown, depth: number) => {
    if (value === null || typeof value !== 'object' || seen.has(value) || depth > 8) return;
    seen.add(value);
    if (ArrayBuffer.isView(value)) {
      const buffer = value.buffer;
      if (buffer instanceof ArrayBuffer && value.byteOffset === 0 && value.byteLength === buffer.byteLength) out.add(buffer);
      return;
    }
    for (const inner of Array.isArray(value) ? value : Object.values(value)) walk(inner, depth + 1);
  };
  walk(result, 0);
  return [...out];
}

const errorFields = (error: unknown) => ({
  name: error instanceof Error ? error.name : 'Error',
  code: typeof (error as { code?: unknown })?.code === 'string' ? (error as { code: string }).code : null,
  message: error instanceof Error ? error.message : String(error),
});

const job = workerData as Job;
const post = (message: ThreadMessage, transfer: ArrayBuffer[] = []) => parentPort!.postMessage(message, transfer);

let task: (...args: unknown[]) => unknown;
try {
  const loaded = (await import(job.module)) as Record<string, unknown>;
  if (typeof loaded[job.name] !== 'function') throw new Error(`${job.module} has no function export ${job.name}`);
  task = loaded[job.name] as typeof task;
} catch (error) {
  post({ ok: false, stage: 'load', ...errorFields(error) });
  process.exit(0);
}

try {
  const result = await task(...job.args);
  post({ ok: true, result }, transferables(result));
} catch (error) {
  post({ ok: false, stage: 'run', ...errorFields(error) });
}

/**
 * The task entry of the pool's threads (bounded-parse.ts): imports the task's module (once per
 * thread: the module cache keeps it), calls the export with the arguments and answers the result,
 * its own-buffer Uint8Arrays moved rather than copied. A thrown error is answered as a value with
 * its name, message and string `code` (an Error crossing the thread would lose its `code`); the
 * thread then waits for its next task.
 */
import { move, transferableSymbol, valueSymbol } from 'piscina';
import type { PoolJob, ThreadMessage } from './bounded-parse.ts';

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

/** A message whose buffers move to the caller (Piscina's movable protocol). */
function moving(message: ThreadMessage, transfer: ArrayBuffer[]): unknown {
  if (transfer.length === 0) return message;
  return move({
    get [transferableSymbol]() {
      return transfer;
    },
    get [valueSymbol]() {
      return message;
    },
  });
}

export default async function runTask(job: PoolJob): Promise<unknown> {
  let task: (...args: unknown[]) => unknown;
  try {
    const loaded = (await import(job.module)) as Record<string, unknown>;
    if (typeof loaded[job.name] !== 'function') throw new Error(`${job.module} has no function export ${job.name}`);
    task = loaded[job.name] as typeof task;
  } catch (error) {
    job.port.close();
    return { ok: false, stage: 'load', ...errorFields(error) } satisfies ThreadMessage;
  }
  job.port.postMessage('started');
  job.port.close();
  try {
    const result = await task(...job.args);
    return moving({ ok: true, result }, transferables(result));
  } catch (error) {
    return { ok: false, stage: 'run', ...errorFields(error) } satisfies ThreadMessage;
  }
}

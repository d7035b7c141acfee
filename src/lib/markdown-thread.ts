/**
 * Page markdown to sanitized HTML trees (`markdownToSafeTree`) for many pages at once, on this
 * thread and on one helper thread together, so that converting the pages of a PDF takes about
 * half the wall time on a machine with a second core. Parsing is pure CPU work (micromark), about
 * a millisecond per kilobyte; the trees come back structured-cloned, which costs a few percent of
 * parsing them.
 *
 * The helper is started on first use and kept (unreferenced: it never keeps the process alive) so
 * that its code stays compiled; `closeMarkdownThread()` stops it. It sees none of the process's
 * environment, and its heap is bounded. Whatever goes wrong with it (it cannot start, crashes,
 * runs out of memory) costs nothing but time: its share is parsed here instead, and the next call
 * starts a new one.
 */
import type { Root } from 'hast';
import { availableParallelism } from 'node:os';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import { markdownToSafeTree } from '../domain/content/html.ts';

/** Below this many pages a helper is not worth a message round trip. */
const MIN_PAGES_FOR_HELPER = 16;
/** The loop here yields this often, so that I/O (a browser readying a page meanwhile) keeps moving. */
const YIELD_EVERY_MS = 4;

interface Pending {
  resolve: (trees: Root[]) => void;
  reject: (error: Error) => void;
}

let helper: { worker: Worker; pending: Map<number, Pending> } | undefined;
let nextId = 0;
/** Pages the helper parsed, and pages it was given but that were parsed here because it failed. */
const stats = { helperPages: 0, fallbackPages: 0 };

/** How much of the work the helper thread did since the process started. */
export function markdownThreadStats(): Readonly<typeof stats> {
  return { ...stats };
}

function startHelper(): NonNullable<typeof helper> {
  const worker = new Worker(new URL('./markdown-thread-worker.ts', import.meta.url), {
    env: {},
    resourceLimits: { maxOldGenerationSizeMb: 512, maxYoungGenerationSizeMb: 32 },
  });
  worker.unref();
  const current = { worker, pending: new Map<number, Pending>() };
  const fail = (error: Error) => {
    if (helper === current) helper = undefined;
    for (const { reject } of current.pending.values()) reject(error);
    current.pending.clear();
  };
  worker.on('message', (message: { id: number; trees?: Root[]; error?: string }) => {
    const waiting = current.pending.get(message.id);
    if (!waiting) return;
    current.pending.delete(message.id);
    if (message.trees) waiting.resolve(message.trees);
    else waiting.reject(new Error(message.error ?? 'markdown thread failed'));
  });
  worker.on('error', fail);
  worker.on('exit', (code) => fail(new Error(`markdown thread exited (${code})`)));
  return current;
}

function parseOnHelper(markdowns: string[]): Promise<Root[]> {
  helper ??= startHelper();
  const { worker, pending } = helper;
  const id = nextId++;
  return new Promise<Root[]>((resolve, reject) => {
    pending.set(id, { resolve, reject });
    worker.postMessage({ id, markdowns });
  });
}

async function parseHere(markdowns: string[]): Promise<Root[]> {
  const trees: Root[] = [];
  let since = performance.now();
  for (const markdown of markdowns) {
    trees.push(markdownToSafeTree(markdown));
    if (performance.now() - since >= YIELD_EVERY_MS) {
      await yieldToEventLoop();
      since = performance.now();
    }
  }
  return trees;
}

/** The sanitized HTML tree of each markdown, in order (as `markdownToSafeTree`, half of them parsed on the helper thread). */
export async function markdownToSafeTrees(markdowns: string[]): Promise<Root[]> {
  if (markdowns.length < MIN_PAGES_FOR_HELPER || availableParallelism() < 2) return parseHere(markdowns);
  // The helper takes the second half, this thread the first; by size, not count, so both finish together.
  const total = markdowns.reduce((sum, m) => sum + m.length, 0);
  let split = 0;
  for (let bytes = 0; split < markdowns.length && bytes < total / 2; split++) bytes += markdowns[split].length;
  const theirs = markdowns.slice(split);
  const there = parseOnHelper(theirs).catch(() => null);
  const here = await parseHere(markdowns.slice(0, split));
  const helped = await there;
  if (helped) stats.helperPages += theirs.length;
  else stats.fallbackPages += theirs.length;
  return [...here, ...(helped ?? (await parseHere(theirs)))];
}

/** Stops the helper thread, if one runs (the worker calls this when it stops). */
export async function closeMarkdownThread(): Promise<void> {
  const current = helper;
  helper = undefined;
  await current?.worker.terminate();
}

import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * Work someone waits for, and the background work of the same process that steps aside for it.
 *
 * A worker process runs every job on one event loop. A merge is answered when it is done, and the
 * search-index job of the merge before it may still be parsing that merge's pages: each step of
 * the new merge then waited for a slice of that parse (a merge of 500 pages into 5,000 took 0.6 to
 * 0.8 s beside an index job, 0.2 s without). Foreground work runs in `inForeground`; background
 * work calls `stepAside` between its slices, which waits while foreground work runs in this process,
 * at most `maxWaitMs` at a time so that a long merge cannot hold the index back for good, and
 * otherwise only gives the event loop a turn.
 */
let running = 0;
let waiting: (() => void)[] = [];

/** Runs `work` as foreground work of this process: background work steps aside until it ends. */
export async function inForeground<T>(work: () => Promise<T>): Promise<T> {
  running++;
  try {
    return await work();
  } finally {
    running--;
    if (running === 0) {
      const resume = waiting;
      waiting = [];
      for (const go of resume) go();
    }
  }
}

/**
 * For background work between two slices: gives the event loop a turn and, while foreground work
 * runs in this process, waits until it ends or `maxWaitMs` have passed.
 */
export async function stepAside(maxWaitMs = 1000): Promise<void> {
  if (running === 0) {
    await nextTurn();
    return;
  }
  await new Promise<void>((resolve) => {
    const timer = setTimeout(done, maxWaitMs);
    function done() {
      clearTimeout(timer);
      waiting = waiting.filter((w) => w !== done);
      resolve();
    }
    waiting.push(done);
  });
}

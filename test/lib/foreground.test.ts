import { describe, expect, it } from '@jest/globals';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { inForeground, stepAside } from '../../src/lib/foreground.ts';

/** A promise and the function that settles it. */
function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** Whether `promise` settles within a few turns of the event loop. */
async function settlesSoon(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  void promise.then(() => (settled = true));
  for (let i = 0; i < 5; i++) await nextTurn();
  return settled;
}

describe('background work stepping aside', () => {
  it('only gives the event loop a turn when nothing runs in the foreground', async () => {
    expect(await settlesSoon(stepAside(60_000))).toBe(true);
  });

  it('waits while foreground work runs, until the last of it ends', async () => {
    const first = deferred();
    const second = deferred();
    const a = inForeground(() => first.promise.then(() => 'a'));
    const b = inForeground(() => second.promise.then(() => 'b'));
    const waiting = stepAside(60_000);
    expect(await settlesSoon(waiting)).toBe(false);
    first.resolve();
    expect(await a).toBe('a');
    expect(await settlesSoon(waiting)).toBe(false);
    second.resolve();
    expect(await b).toBe('b');
    expect(await settlesSoon(waiting)).toBe(true);
    // Nothing runs in the foreground any more.
    expect(await settlesSoon(stepAside(60_000))).toBe(true);
  });

  it('waits at most maxWaitMs at a time, so long foreground work cannot hold it back for good', async () => {
    const long = deferred();
    const work = inForeground(() => long.promise);
    const waiting = stepAside(200);
    expect(await settlesSoon(waiting)).toBe(false);
    // Settles although the foreground work still runs.
    await waiting;
    expect(await settlesSoon(work)).toBe(false);
    long.resolve();
    await work;
  });

  it('ends foreground work that fails as well, and passes its error on', async () => {
    await expect(inForeground(() => Promise.reject(new Error('merge failed')))).rejects.toThrow('merge failed');
    expect(await settlesSoon(stepAside(60_000))).toBe(true);
  });
});

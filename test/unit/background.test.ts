import { describe, expect, it } from '@jest/globals';
import { BackgroundTasks } from '../../src/lib/background.ts';

describe('BackgroundTasks', () => {
  it('waits for every task, those started while draining too, and keeps a failing one from escaping', async () => {
    const tasks = new BackgroundTasks(10);
    const ended: string[] = [];
    let finishFirst!: () => void;
    tasks.run(
      () =>
        new Promise<void>((resolve) => {
          finishFirst = () => {
            ended.push('first');
            // Started by a task as it ends, after drain() was called.
            tasks.run(async () => {
              await new Promise((r) => setTimeout(r, 20));
              ended.push('second');
            });
            resolve();
          };
        }),
    );
    tasks.run(async () => {
      throw new Error('handled here');
    });
    expect(tasks.size).toBe(2);
    const drained = tasks.drain().then(() => ended.push('drained'));
    await new Promise((r) => setTimeout(r, 10));
    expect(ended).toEqual([]);
    finishFirst();
    await drained;
    expect(ended).toEqual(['first', 'second', 'drained']);
    expect(tasks.size).toBe(0);
  });

  it('starts no more than its maximum at once, and room comes back as tasks end', async () => {
    const tasks = new BackgroundTasks(2);
    const release: (() => void)[] = [];
    const started: number[] = [];
    const start = (n: number) =>
      tasks.run(async () => {
        started.push(n);
        await new Promise<void>((resolve) => release.push(resolve));
      });
    expect([start(1), start(2), start(3)]).toEqual([true, true, false]);
    expect(started).toEqual([1, 2]);
    release[0]();
    await new Promise((r) => setTimeout(r, 0));
    expect(start(4)).toBe(true);
    expect(started).toEqual([1, 2, 4]);
    release.forEach((r) => r());
    await tasks.drain();
    expect(tasks.size).toBe(0);
  });
});

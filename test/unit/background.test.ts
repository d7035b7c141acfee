import { describe, expect, it } from '@jest/globals';
import { BackgroundTasks } from '../../src/lib/background.ts';

describe('BackgroundTasks', () => {
  it('waits for every task, those started while draining too, and keeps a failing one from escaping', async () => {
    const tasks = new BackgroundTasks();
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
});

import { afterEach, describe, expect, it } from '@jest/globals';
import { BoundedParseError, boundedTask, configureTaskPool, runBounded, taskPoolState } from '../../src/lib/bounded-parse.ts';
import type * as tasks from '../support/bounded-tasks.ts';

const TASKS = new URL('../support/bounded-tasks.ts', import.meta.url);
const task = <K extends keyof typeof tasks>(name: K) => boundedTask<(typeof tasks)[K]>(TASKS, name);

async function failure(promise: Promise<unknown>): Promise<BoundedParseError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof BoundedParseError) return error;
    throw error;
  }
  throw new Error('the task succeeded');
}

/**
 * The bounded thread: what runs in it answers, and what goes wrong in it (a heap exhausted, a
 * loop that never ends, a refusal) comes back as a typed error while this process carries on.
 */
describe('runBounded', () => {
  it('returns the result, bytes included', async () => {
    const result = await runBounded(task('fill'), [3 * 1024 * 1024, 7]);
    expect(result.size).toBe(3 * 1024 * 1024);
    expect(result.bytes).toBeInstanceOf(Uint8Array);
    expect(result.bytes.byteLength).toBe(3 * 1024 * 1024);
    expect(result.bytes[12345]).toBe(7);
  });

  it('stops a thread that exhausts its heap; the process carries on and the next task runs', async () => {
    const rssBefore = process.memoryUsage().rss;
    const started = Date.now();
    const error = await failure(runBounded(task('exhaustHeap'), [], { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 8 }));
    expect(error).toMatchObject({ reason: 'out-of-memory', code: 'OUT_OF_MEMORY' });
    expect(error.message).toMatch(/64 MiB/);
    expect(Date.now() - started).toBeLessThan(60_000);
    // The thread's heap went with it.
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(256 * 1024 * 1024);
    expect((await runBounded(task('fill'), [4, 1])).size).toBe(4);
  });

  it('terminates a thread that runs past its deadline', async () => {
    const started = Date.now();
    const error = await failure(runBounded(task('spin'), [], { timeoutMs: 1000 }));
    expect(error).toMatchObject({ reason: 'timeout', code: 'TIMEOUT' });
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('terminates it when the caller aborts', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const error = await failure(runBounded(task('spin'), [], { signal: controller.signal }));
    expect(error.reason).toBe('aborted');
  });

  it("carries a task's refusal with its code", async () => {
    const error = await failure(runBounded(task('refuse'), ['TOO_LARGE']));
    expect(error).toMatchObject({ reason: 'rejected', code: 'TOO_LARGE', message: 'refused with TOO_LARGE' });
  });

  it('tells a task that cannot be loaded (not the input) from a refusal', async () => {
    const missing = boundedTask<() => void>(TASKS, 'noSuchExport');
    expect((await failure(runBounded(missing, []))).reason).toBe('crashed');
    const nowhere = boundedTask<() => void>(new URL('../support/does-not-exist.ts', import.meta.url), 'x');
    expect((await failure(runBounded(nowhere, []))).reason).toBe('crashed');
  });

  it('keeps the environment (and its secrets) out of the thread', async () => {
    process.env.BOUNDED_PARSE_TEST_SECRET = 'hunter2';
    try {
      expect(await runBounded(task('environment'), ['BOUNDED_PARSE_TEST_SECRET'])).toBeNull();
    } finally {
      delete process.env.BOUNDED_PARSE_TEST_SECRET;
    }
  });
});

/**
 * Admission: tasks wait for a thread in their lane, a bounded number of them; a long job never
 * holds up an interactive task.
 */
describe('the pool', () => {
  afterEach(() => configureTaskPool({ threads: 2, queueLimit: 1000, queueWaitMs: 30_000 }));

  it('runs an interactive task while the job lane is full', async () => {
    configureTaskPool({ threads: 1 });
    const job = runBounded(task('spin'), [], { timeoutMs: 4000 }).then(
      () => 'job',
      () => 'job',
    );
    const queuedJob = runBounded(task('fill'), [1, 1]).then(() => 'queued job');
    const interactive = runBounded(task('fill'), [8, 2], { lane: 'interactive' }).then(() => 'interactive');
    expect(await Promise.race([job, queuedJob, interactive])).toBe('interactive');
    expect(await job).toBe('job');
    expect(await queuedJob).toBe('queued job');
  });

  it('refuses a task as busy when its lane has a full queue, and one that waited too long', async () => {
    configureTaskPool({ threads: 1, queueLimit: 1, queueWaitMs: 500 });
    const running = runBounded(task('spin'), [], { timeoutMs: 2000 }).catch((error: unknown) => error);
    const waiting = failure(runBounded(task('fill'), [1, 1]));
    const refused = await failure(runBounded(task('fill'), [1, 1]));
    expect(refused).toMatchObject({ reason: 'busy', code: 'BUSY' });
    expect((await waiting).reason).toBe('busy');
    expect(await running).toMatchObject({ reason: 'timeout' });
    expect(taskPoolState().job).toEqual({ running: 0, queued: 0 });
  });
});

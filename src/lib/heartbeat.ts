import { Context } from '@temporalio/activity';

/**
 * Activity heartbeats with progress details, for the long activities (git sync, merge, PDF,
 * OpenAPI fetch, content import, search index). `heartbeating(run)` heartbeats at once and every
 * HEARTBEAT_EVERY_MS until `run` settles, re-sending the details last given to `beat`: a long step
 * (a git command, a large upload, a wait for a database lock) never looks like a dead worker, and
 * a worker that dies is noticed within the activity's heartbeat timeout, which the workflows set to
 * a few times this. The details an attempt heartbeated last are what the next attempt finds
 * (`previousAttemptDetails`), to resume from; the answer to a heartbeat is also how a cancellation
 * reaches the activity (`throwIfCancelled`, `untilCancelled`, `cancellationSignal`). The SDK sends
 * heartbeats at most every 0.8 × the heartbeat timeout, so a cancellation arrives, and details
 * reach the server, within that. All are no-ops when the function runs outside an activity
 * (called directly, as in tests).
 */
export const HEARTBEAT_EVERY_MS = 5_000;

/** The details each running activity reported last. */
const progress = new WeakMap<Context, unknown>();

function currentContext(): Context | null {
  try {
    return Context.current();
  } catch {
    return null;
  }
}

/** Reports the activity's progress now (and it is what `heartbeating` re-sends from now on). */
export function beat(details: unknown): void {
  const context = currentContext();
  if (!context) return;
  progress.set(context, details);
  context.heartbeat(details);
}

/** Runs `run`, heartbeating (`initial`, then the last progress reported) every few seconds until it settles. */
export async function heartbeating<T>(run: () => Promise<T>, initial: unknown = { phase: 'starting' }): Promise<T> {
  const context = currentContext();
  if (!context) return run();
  beat(initial);
  const timer = setInterval(() => context.heartbeat(progress.get(context)), HEARTBEAT_EVERY_MS);
  try {
    return await run();
  } finally {
    clearInterval(timer);
  }
}

/**
 * What the previous attempt of the running activity heartbeated last (`info.heartbeatDetails`),
 * when this attempt follows a lost worker, a heartbeat timeout or a failure: the progress it may
 * resume from. Undefined on a first attempt and outside an activity.
 */
export function previousAttemptDetails(): unknown {
  return currentContext()?.info.heartbeatDetails ?? undefined;
}

/** The running activity's cancellation (a cancelled workflow, a heartbeat timeout, a worker shutting down) as a signal; undefined outside an activity. */
export function cancellationSignal(): AbortSignal | undefined {
  return currentContext()?.cancellationSignal;
}

/**
 * Throws the activity's cancellation if it has come: called between the steps of a long activity,
 * and inside a transaction before it commits, so that a cancelled activity stops there and
 * writes nothing. Cancellation reaches an activity with the answer to a heartbeat.
 */
export function throwIfCancelled(): void {
  const signal = cancellationSignal();
  if (signal?.aborted) throw signal.reason;
}

/**
 * `work`, or the activity's cancellation as soon as it comes, for a step that takes no signal of
 * its own (a download, a clone): the activity stops waiting for it at once; the step itself ends
 * at its own deadline, its result unused.
 */
export function untilCancelled<T>(work: Promise<T>): Promise<T> {
  const signal = cancellationSignal();
  if (!signal) return work;
  if (signal.aborted) {
    work.catch(() => {});
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      work.catch(() => {});
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

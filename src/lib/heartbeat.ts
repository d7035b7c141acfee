import { Context } from '@temporalio/activity';

/**
 * Activity heartbeats with progress details, for the long activities (git sync, merge, PDF,
 * OpenAPI fetch). `heartbeating(run)` heartbeats at once and every HEARTBEAT_EVERY_MS until `run`
 * settles, re-sending the details last given to `beat`: a long step (a git command, a large
 * upload, a wait for a database lock) never looks like a dead worker, and a worker that dies is
 * noticed within the activity's heartbeat timeout, which the workflows set to a few times this.
 * Both are no-ops when the function runs outside an activity (called directly, as in tests).
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

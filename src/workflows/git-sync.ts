import {
  ActivityFailure,
  ApplicationFailure,
  condition,
  continueAsNew,
  defineQuery,
  defineSignal,
  patched,
  proxyActivities,
  setHandler,
  sleep,
  workflowInfo,
} from '@temporalio/workflow';
import type { GitSyncActivities, GitSyncOutcome } from '../activities/git-sync.ts';
import { heavyTaskQueue } from '../domain/task-queues.ts';
import { searchIndex, startSearchIndex } from './search-index.ts';

/**
 * `git-sync/<spaceId>`: every import and export of one space, one at a time, in timestamp order.
 * Requests arrive by signal (signal-with-start from the API and the webhook receiver); each names
 * a request row holding its parameters, so the history never carries a URL's credentials. After a
 * bounded number of requests the workflow continues as new with what is still pending; when idle
 * for a while it ends, and the next request starts it again.
 *
 * An import is two activities: the stage (fetch, read, store the files and a bundle of the
 * content) and the apply (one transaction), so a retry of the apply never fetches again. When an
 * import moved the space to a new revision, the search index follows it through a job of its own.
 */

export interface GitSyncRequestSignal {
  requestId: string;
  /** The request's timestamp (ms since the epoch): the order requests are applied in. */
  requestedAt: number;
  /**
   * An API client asked for it (`POST …/git/import` or `…/git/export`): it is taken at once, not
   * after SETTLE (absent: a webhook push, or a signal sent before clients were told apart).
   */
  client?: boolean;
}

export interface GitSyncWorkflowInput {
  spaceId: string;
  organizationId: string;
  pending?: GitSyncRequestSignal[];
}

export const gitSyncRequestSignal = defineSignal<[GitSyncRequestSignal]>('gitSyncRequest');
export const gitSyncStatusQuery = defineQuery<{ pending: string[]; running: string | null; applied: number }>('gitSyncStatus');

const STAGE_OPTIONS = {
  startToCloseTimeout: '1 hour',
  // The activity heartbeats every 5 s, also while one long git command runs: a dead worker is noticed within this.
  heartbeatTimeout: '30 seconds',
  retry: { initialInterval: '2s', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 5 },
} as const;
const { runGitSyncRequest } = proxyActivities<GitSyncActivities>(STAGE_OPTIONS);
/** The stage on the heavy jobs' queue beside the run's own (src/domain/task-queues.ts). */
const heavyStage = () =>
  proxyActivities<GitSyncActivities>({ ...STAGE_OPTIONS, taskQueue: heavyTaskQueue(workflowInfo().taskQueue) }).runGitSyncRequest;
// One transaction from a stored bundle: nothing to fetch, so it may be retried more often than the stage.
const { applyGitSyncImport } = proxyActivities<GitSyncActivities>({
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '30 seconds',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 10 },
});
const { recordGitSyncFailure } = proxyActivities<GitSyncActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1s', maximumInterval: '30s' },
});

/**
 * Changes of what a run does, each taken only by runs that reach it after the change (histories
 * written before replay the old way; see docs/development.md, "Changing workflow code"):
 * - STAGE_THEN_APPLY: an import is staged by `runGitSyncRequest` and applied by `applyGitSyncImport`
 *   (before: `runGitSyncRequest` alone, which still applies what it stages when asked so);
 * - SEARCH_INDEX_JOB: a request that moved the space's revision starts its search-index job (before:
 *   the import activity indexed in its own transaction);
 * - SETTLE_AFTER_ARRIVAL: before taking the next request the run waits only until SETTLE has passed
 *   since the latest request arrived, so a queue that built up while a request ran is taken without
 *   a timer per request (before: SETTLE before every request);
 * - HEAVY_QUEUE: the stage (fetching and reading a commit: its cost is the repository's) and the
 *   search-index job it leads to run on the heavy jobs' queue, so they never delay a merge (before:
 *   on the run's own queue);
 * - CLIENT_AT_ONCE: the settling is for webhook pushes only: the run waits until SETTLE has passed
 *   since the latest push arrived while a push is pending, and takes requests of API clients
 *   (`client` on the signal) at once when none is (before: SETTLE_AFTER_ARRIVAL for every request).
 */
export const STAGE_THEN_APPLY = 'git-sync-stage-then-apply';
export const SEARCH_INDEX_JOB = 'git-sync-search-index-job';
export const SETTLE_AFTER_ARRIVAL = 'git-sync-settle-after-arrival';
export const HEAVY_QUEUE = 'git-sync-heavy-queue';
export const CLIENT_AT_ONCE = 'git-sync-client-at-once';

/** One request, to its outcome. */
async function runRequest(requestId: string): Promise<GitSyncOutcome> {
  const first = patched(STAGE_THEN_APPLY)
    ? await (patched(HEAVY_QUEUE) ? heavyStage() : runGitSyncRequest)(requestId, { stageOnly: true })
    : await runGitSyncRequest(requestId);
  return first.state === 'staged' ? applyGitSyncImport({ requestId, bundle: first.bundle }) : first;
}

/** Requests handled by one run before it continues as new (keeps the history short). */
const MAX_PER_RUN = 100;
/** Webhook pushes arriving this close together are ordered by timestamp before the first is applied. */
const SETTLE = '500 milliseconds';
const SETTLE_MS = 500;
const IDLE = '2 minutes';

export async function gitSync(
  input: GitSyncWorkflowInput,
): Promise<{ applied: number; outcomes: Record<string, GitSyncOutcome['state']> }> {
  const pending: GitSyncRequestSignal[] = [...(input.pending ?? [])];
  const seen = new Set(pending.map((r) => r.requestId));
  let running: string | null = null;
  let applied = 0;
  const outcomes: Record<string, GitSyncOutcome['state']> = {};
  // When the latest request, and the latest webhook push, arrived (the workflow's clock); requests
  // carried over count as arriving now.
  let lastArrival = Date.now();
  let lastPushArrival = lastArrival;
  setHandler(gitSyncRequestSignal, (request) => {
    if (seen.has(request.requestId)) return;
    seen.add(request.requestId);
    pending.push(request);
    lastArrival = Date.now();
    if (request.client !== true) lastPushArrival = lastArrival;
  });
  setHandler(gitSyncStatusQuery, () => ({ pending: pending.map((r) => r.requestId), running, applied }));

  for (;;) {
    if (!(await condition(() => pending.length > 0, IDLE))) return { applied, outcomes };
    if (patched(CLIENT_AT_ONCE)) {
      // A client's request alone is taken now; a pending push waits for the pushes close behind it.
      const settling = pending.some((r) => r.client !== true) ? Math.min(SETTLE_MS, lastPushArrival + SETTLE_MS - Date.now()) : 0;
      if (settling > 0) await sleep(settling);
    } else if (patched(SETTLE_AFTER_ARRIVAL)) {
      const settling = Math.min(SETTLE_MS, lastArrival + SETTLE_MS - Date.now());
      if (settling > 0) await sleep(settling);
    } else await sleep(SETTLE);
    pending.sort((a, b) => a.requestedAt - b.requestedAt || (a.requestId < b.requestId ? -1 : a.requestId > b.requestId ? 1 : 0));
    const next = pending.shift()!;
    running = next.requestId;
    let spaceRevision: string | undefined;
    try {
      const outcome = await runRequest(next.requestId);
      outcomes[next.requestId] = outcome.state;
      spaceRevision = outcome.spaceRevision;
    } catch (error) {
      const cause =
        error instanceof ActivityFailure && error.cause instanceof ApplicationFailure ? error.cause.message : (error as Error).message;
      await recordGitSyncFailure({ requestId: next.requestId, message: `The sync failed after several attempts: ${cause}` });
      outcomes[next.requestId] = 'failed';
    }
    if (spaceRevision !== undefined && patched(SEARCH_INDEX_JOB)) {
      await startSearchIndex(input.spaceId, spaceRevision, patched(HEAVY_QUEUE) ? heavyTaskQueue(workflowInfo().taskQueue) : undefined);
    }
    running = null;
    applied++;
    if (applied >= MAX_PER_RUN || workflowInfo().continueAsNewSuggested) {
      await continueAsNew<typeof gitSync>({ spaceId: input.spaceId, organizationId: input.organizationId, pending });
    }
  }
}

// A worker bundled from this module alone runs the job it starts too.
export { searchIndex };

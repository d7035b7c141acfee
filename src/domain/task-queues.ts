/**
 * The task queues of the service (pure: the workflows read it too). Jobs whose cost depends on
 * what users send (OpenAPI processing, content imports, PDF export, search indexing, Git Sync's
 * stage) run on a queue of their own, `<TEMPORAL_TASK_QUEUE>-heavy`, so that merges, Git Sync's
 * applies and deletions on the main queue never wait behind them; a worker polls the queues its
 * WORKER_QUEUES names (both by default), so operators can give heavy jobs processes of their own.
 * Every worker registers every workflow and activity: a job started on either queue before a
 * deploy still finds its code.
 */
export type WorkerQueue = 'main' | 'heavy';

export const HEAVY_SUFFIX = '-heavy';

/** The heavy jobs' queue beside `queue` (itself when it is one already). */
export const heavyTaskQueue = (queue: string): string => (queue.endsWith(HEAVY_SUFFIX) ? queue : `${queue}${HEAVY_SUFFIX}`);

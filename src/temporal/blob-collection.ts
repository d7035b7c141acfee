import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client, type ScheduleOptionsStartWorkflowAction } from '@temporalio/client';
import { blobCollection, type BlobCollectionInput } from '../workflows/blob-collection.ts';
import { JOB_KIND } from '../workflows/search-attributes.ts';

/**
 * The blob collection's schedule, `blob-collection/<task queue>`: created (or brought up to date)
 * when a worker polling the main queue starts, it starts a `blobCollection` run every
 * BLOB_COLLECT_EVERY (docs/operations.md, "Deleting blobs"). One deployment has one schedule,
 * whichever of its workers started last.
 */

export const BLOB_COLLECTION_KIND = 'blob-collection';
export const blobCollectionScheduleId = (taskQueue: string) => `blob-collection/${taskQueue}`;

function action(taskQueue: string): ScheduleOptionsStartWorkflowAction<typeof blobCollection> {
  return {
    type: 'startWorkflow',
    workflowType: blobCollection,
    taskQueue,
    // Temporal appends the scheduled time to this id.
    workflowId: `blob-collection/${taskQueue}/scheduled`,
    args: [{}],
    typedSearchAttributes: [{ key: JOB_KIND, value: BLOB_COLLECTION_KIND }],
    memo: { requestedBy: 'schedule' },
  };
}

const spec = (everyMs: number) => ({ intervals: [{ every: everyMs }] });

/** Creates the schedule, or updates its interval and action when it exists (a paused schedule stays paused). Idempotent. */
export async function upsertBlobCollectionSchedule(client: Client, taskQueue: string, everyMs: number): Promise<void> {
  const scheduleId = blobCollectionScheduleId(taskQueue);
  const note = `Deletes blobs no row references any more (task queue ${taskQueue})`;
  try {
    await client.schedule.create({
      scheduleId,
      spec: spec(everyMs),
      action: action(taskQueue),
      // A pass that runs longer than the interval is not doubled; a missed one is not caught up.
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 minute' },
      typedSearchAttributes: [{ key: JOB_KIND, value: BLOB_COLLECTION_KIND }],
      state: { note },
    });
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
    await client.schedule.getHandle(scheduleId).update((previous) => ({
      ...previous,
      spec: spec(everyMs),
      action: action(taskQueue),
    }));
  }
}

/** Starts a pass now (operators, tests): `blob-collection/<task queue>/<time>`. Answers its handle's workflow id. */
export async function startBlobCollection(client: Client, taskQueue: string, input: BlobCollectionInput = {}): Promise<string> {
  const workflowId = `blob-collection/${taskQueue}/${new Date().toISOString()}`;
  await client.workflow.start(blobCollection, {
    taskQueue,
    workflowId,
    args: [input],
    typedSearchAttributes: [{ key: JOB_KIND, value: BLOB_COLLECTION_KIND }],
    memo: { requestedBy: 'operator' },
  });
  return workflowId;
}

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ApplicationFailure } from '@temporalio/common';
import { WorkflowFailedError, WorkflowNotFoundError } from '@temporalio/client';
import type { ChangeRequestJob, ChangeRequestMergeActivities, MergeOutcome } from '../../src/activities/change-request-merge.ts';
import type { SearchIndexActivities } from '../../src/activities/search-index.ts';
import { HttpError } from '../../src/api/errors.ts';
import type { MergeConflict } from '../../src/domain/content/merge.ts';
import { heavyTaskQueue } from '../../src/domain/task-queues.ts';
import { changeRequestJobWorkflowId, runChangeRequestJob } from '../../src/temporal/change-request-merge.ts';
import { changeRequestMerge, changeRequestUpdate } from '../../src/workflows/change-request-merge.ts';
import { searchIndexWorkflowId, startSearchIndexFromActivity } from '../../src/temporal/search-index.ts';
import { JOB_KIND, ORGANIZATION_ID, SPACE_ID } from '../../src/workflows/search-attributes.ts';
import { gate, recordingClient, startWorkflowWorker, type WorkflowWorker } from '../support/workflow-worker.ts';

/**
 * The change-request merge and update workflows, and how the API runs them (runChangeRequestJob:
 * wait, else 503, and join the same run on the next request). Activities are stubbed per change
 * request: each attempt runs the next step of its script.
 */
let w: WorkflowWorker;
type Step = (job: ChangeRequestJob) => Promise<MergeOutcome> | MergeOutcome;
const scripts = new Map<string, Step[]>();
const calls: { kind: 'merge' | 'update'; job: ChangeRequestJob }[] = [];

function stub(kind: 'merge' | 'update') {
  return async (job: ChangeRequestJob) => {
    const steps = scripts.get(job.changeRequestId)!;
    const attempt = calls.filter((c) => c.job.changeRequestId === job.changeRequestId).length;
    calls.push({ kind, job });
    return steps[Math.min(attempt, steps.length - 1)](job);
  };
}
const indexed: string[] = [];
const activities: ChangeRequestMergeActivities & SearchIndexActivities = {
  mergeChangeRequest: stub('merge'),
  updateChangeRequest: stub('update'),
  indexSpaceSearch: async (spaceId) => {
    indexed.push(spaceId);
    return { changed: true };
  },
};

beforeAll(async () => {
  w = await startWorkflowWorker('change-request-merge', 'change-request-merge.ts', activities);
});
afterAll(() => w.stop());

let n = 0;
function job(steps: Step[]): ChangeRequestJob {
  const changeRequestId = `cr-${++n}-${Date.now()}`;
  scripts.set(changeRequestId, steps);
  return { spaceId: `space-${n}-${Date.now().toString(36)}`, changeRequestId, userId: 'user-1' };
}
const callsOf = (j: ChangeRequestJob) => calls.filter((c) => c.job.changeRequestId === j.changeRequestId);
const execute = (workflow: typeof changeRequestMerge, j: ChangeRequestJob) =>
  w.client.workflow.execute(workflow, { taskQueue: w.taskQueue, workflowId: w.workflowId(j.changeRequestId), args: [j] });

describe('change-request merge and update workflows', () => {
  it('merge answers the outcome of the merge activity, and starts no index job itself (the activity does)', async () => {
    const j = job([() => ({ result: 'merge', revision: `r-merged-${Date.now()}` })]);
    const outcome = await execute(changeRequestMerge, j);
    expect(outcome).toEqual({ result: 'merge', revision: expect.stringMatching(/^r-merged-/) });
    expect(callsOf(j)).toEqual([{ kind: 'merge', job: j }]);
    const child = w.client.workflow.getHandle(searchIndexWorkflowId(j.spaceId, outcome.revision));
    await expect(child.describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
    expect(indexed).not.toContain(j.spaceId);
  });

  it('an activity starts the index job of its revision with the worker client, once however often it is asked', async () => {
    const revision = `r-indexed-${Date.now()}`;
    const start = (j: ChangeRequestJob) =>
      startSearchIndexFromActivity({ organizationId: 'org-3', spaceId: j.spaceId, revisionId: revision });
    const j = job([
      async (j) => {
        await start(j);
        throw new Error('lost after the commit');
      },
      async (j) => {
        await start(j);
        return { result: 'merge', revision };
      },
    ]);
    expect(await execute(changeRequestMerge, j)).toEqual({ result: 'merge', revision });
    const child = w.client.workflow.getHandle(searchIndexWorkflowId(j.spaceId, revision));
    expect(await child.result()).toEqual({ changed: true });
    const description = await child.describe();
    // On the heavy jobs' queue beside the activity's (src/domain/task-queues.ts).
    expect(description.taskQueue).toBe(heavyTaskQueue(w.taskQueue));
    expect(description.typedSearchAttributes.get(JOB_KIND)).toBe('search-index');
    expect(description.typedSearchAttributes.get(ORGANIZATION_ID)).toBe('org-3');
    expect(indexed.filter((s) => s === j.spaceId)).toHaveLength(1);
  });

  it('starts no index job for conflicts or refusals', async () => {
    const j = job([() => ({ result: 'refused', revision: 'r-cr', reason: 'locked' })]);
    await execute(changeRequestMerge, j);
    expect(indexed).not.toContain(j.spaceId);
  });

  it('update answers the outcome of the update activity', async () => {
    const j = job([() => ({ result: 'update', revision: 'r-updated' })]);
    expect(await execute(changeRequestUpdate, j)).toEqual({ result: 'update', revision: 'r-updated' });
    expect(callsOf(j)).toEqual([{ kind: 'update', job: j }]);
  });

  it('passes conflicts and refusals through as outcomes, not failures', async () => {
    const conflicts: MergeConflict[] = [{ pageId: 'p1', kind: 'content', message: 'Both sides changed the page' }];
    const c = job([() => ({ result: 'conflicts', revision: 'r-cr', conflicts })]);
    expect(await execute(changeRequestMerge, c)).toEqual({ result: 'conflicts', revision: 'r-cr', conflicts });
    const r = job([() => ({ result: 'refused', revision: 'r-cr', reason: 'archived' })]);
    expect(await execute(changeRequestUpdate, r)).toEqual({ result: 'refused', revision: 'r-cr', reason: 'archived' });
  });

  it('tries a failing merge again and answers the outcome of the attempt that worked', async () => {
    const j = job([
      () => {
        throw new Error('could not serialize access due to concurrent update');
      },
      () => ({ result: 'merge', revision: 'r-second-try' }),
    ]);
    expect(await execute(changeRequestMerge, j)).toEqual({ result: 'merge', revision: 'r-second-try' });
    expect(callsOf(j)).toHaveLength(2);
  });

  it('fails the workflow when the activity fails for good', async () => {
    const j = job([
      () => {
        throw ApplicationFailure.nonRetryable('the revision is corrupt', 'CORRUPT');
      },
    ]);
    const error = await execute(changeRequestUpdate, j).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(WorkflowFailedError);
    const cause = (error as WorkflowFailedError).cause?.cause;
    expect(cause).toBeInstanceOf(ApplicationFailure);
    expect((cause as ApplicationFailure).type).toBe('CORRUPT');
    expect(callsOf(j)).toHaveLength(1);
  });
});

describe('runChangeRequestJob', () => {
  it('names the run after the change request, with search attributes and memo', async () => {
    const j = job([() => ({ result: 'merge', revision: 'r1' })]);
    const workflowId = changeRequestJobWorkflowId('merge', j.spaceId, j.changeRequestId);
    expect(workflowId).toBe(`change-request-merge/${j.spaceId}/${j.changeRequestId}`);
    expect(await runChangeRequestJob(w.client, w.taskQueue, 'merge', { ...j, organizationId: 'org-7' })).toEqual({
      result: 'merge',
      revision: 'r1',
    });
    const description = await w.client.workflow.getHandle(workflowId).describe();
    expect(description.type).toBe('changeRequestMerge');
    expect(description.typedSearchAttributes.get(ORGANIZATION_ID)).toBe('org-7');
    expect(description.typedSearchAttributes.get(SPACE_ID)).toBe(j.spaceId);
    expect(description.typedSearchAttributes.get(JOB_KIND)).toBe('change-request-merge');
    expect(description.memo).toEqual({ requestedBy: 'user-1', changeRequestId: j.changeRequestId });
  });

  it('answers 503 when the job outlasts the wait, and a second request joins the same run', async () => {
    const held = gate();
    const j = job([
      async () => {
        await held.opened;
        return { result: 'update', revision: 'r-slow' };
      },
    ]);
    const input = { ...j, organizationId: 'org-1' };
    // The run each request's start reached, as Temporal answered it.
    const { client, runs, started } = recordingClient(w.client);
    const first = await runChangeRequestJob(client, w.taskQueue, 'update', input, 300).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(first).toBeInstanceOf(HttpError);
    expect(first).toMatchObject({
      statusCode: 503,
      message: 'The update is queued but did not finish within 0.3 s; ask again for its result',
    });

    const second = runChangeRequestJob(client, w.taskQueue, 'update', input);
    // The job ends only once the second request has reached its run.
    await started(2);
    held.open();
    expect(await second).toEqual({ result: 'update', revision: 'r-slow' });
    expect(runs[1]).toBe(runs[0]);
    expect(callsOf(j)).toHaveLength(1);

    // Once that run has finished, a new request starts a new run.
    expect(await runChangeRequestJob(w.client, w.taskQueue, 'update', input)).toEqual({ result: 'update', revision: 'r-slow' });
    expect(callsOf(j)).toHaveLength(2);
  });
});

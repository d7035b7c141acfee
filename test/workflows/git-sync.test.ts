import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ApplicationFailure } from '@temporalio/common';
import type { GitSyncActivities, GitSyncOutcome } from '../../src/activities/git-sync.ts';
import { gitSync, gitSyncRequestSignal, gitSyncStatusQuery, type GitSyncWorkflowInput } from '../../src/workflows/git-sync.ts';
import { eventually } from '../support/harness.ts';
import { gate, startWorkflowWorker, type WorkflowWorker } from '../support/workflow-worker.ts';

/**
 * The git-sync workflow of one space: requests arrive by signal and are applied one at a time in
 * timestamp order, each once; a request whose activity fails is recorded as failed and the next
 * one goes on; requests carried over by continue-as-new are applied first.
 */
let w: WorkflowWorker;
/** Every request the stubbed activity ran, in order, per space (the request ids start with the space). */
const ran: string[] = [];
const failures: { requestId: string; message: string }[] = [];
const holds = new Map<string, Promise<void>>();

const activities: Pick<GitSyncActivities, 'runGitSyncRequest' | 'recordGitSyncFailure'> = {
  async runGitSyncRequest(requestId: string): Promise<GitSyncOutcome> {
    ran.push(requestId);
    await holds.get(requestId);
    if (requestId.endsWith('/broken')) throw ApplicationFailure.nonRetryable('the remote refused the push', 'PUSH_REFUSED');
    return { state: 'applied', revisionId: `rev-${requestId}` };
  },
  async recordGitSyncFailure(input) {
    failures.push(input);
  },
};

beforeAll(async () => {
  w = await startWorkflowWorker('git-sync', 'git-sync.ts', activities);
});
afterAll(() => w.stop());

let n = 0;
function space(): { input: GitSyncWorkflowInput; id: (name: string) => string; workflowId: string } {
  n += 1;
  const spaceId = `space-${n}-${Date.now()}`;
  return { input: { spaceId, organizationId: 'org-1' }, id: (name) => `${spaceId}/${name}`, workflowId: w.workflowId(spaceId) };
}
const ranFor = (prefix: string) => ran.filter((r) => r.startsWith(`${prefix}/`));

/** Signal-with-start, as the API and the webhook receiver send a request. */
function send(s: ReturnType<typeof space>, requestId: string, requestedAt: number) {
  return w.client.workflow.signalWithStart(gitSync, {
    taskQueue: w.taskQueue,
    workflowId: s.workflowId,
    args: [s.input],
    signal: gitSyncRequestSignal,
    signalArgs: [{ requestId, requestedAt }],
  });
}

describe('git-sync workflow', () => {
  it('applies requests that wait together in timestamp order, not arrival order', async () => {
    const s = space();
    const t0 = Date.now();
    // The first request holds the space while three more arrive, latest first.
    const held = gate();
    holds.set(s.id('zero'), held.opened);
    await send(s, s.id('zero'), t0);
    const handle = w.client.workflow.getHandle(s.workflowId);
    await eventually(async () => (await handle.query(gitSyncStatusQuery)).running === s.id('zero'));
    await send(s, s.id('third'), t0 + 3000);
    await send(s, s.id('first'), t0 + 1000);
    await send(s, s.id('second'), t0 + 2000);
    held.open();
    await eventually(async () => (await handle.query(gitSyncStatusQuery)).applied === 4);
    expect(ranFor(s.input.spaceId)).toEqual([s.id('zero'), s.id('first'), s.id('second'), s.id('third')]);
    await handle.terminate('test over');
  });

  it('applies a request delivered twice once, also while it runs', async () => {
    const s = space();
    const held = gate();
    holds.set(s.id('once'), held.opened);
    await send(s, s.id('once'), Date.now());
    const handle = w.client.workflow.getHandle(s.workflowId);
    await eventually(async () => (await handle.query(gitSyncStatusQuery)).running === s.id('once'));
    await send(s, s.id('once'), Date.now());
    held.open();
    await send(s, s.id('once'), Date.now());
    await send(s, s.id('after'), Date.now() + 1);
    await eventually(async () => (await handle.query(gitSyncStatusQuery)).applied === 2);
    expect(ranFor(s.input.spaceId)).toEqual([s.id('once'), s.id('after')]);
    expect((await handle.query(gitSyncStatusQuery)).pending).toEqual([]);
    await handle.terminate('test over');
  });

  it('records a request whose activity fails as failed, once, and goes on with the next', async () => {
    const s = space();
    await send(s, s.id('broken'), Date.now());
    await send(s, s.id('fine'), Date.now() + 1);
    const handle = w.client.workflow.getHandle(s.workflowId);
    await eventually(async () => (await handle.query(gitSyncStatusQuery)).applied === 2);
    expect(ranFor(s.input.spaceId)).toEqual([s.id('broken'), s.id('fine')]);
    expect(failures.filter((f) => f.requestId === s.id('broken'))).toEqual([
      { requestId: s.id('broken'), message: expect.stringMatching(/^The sync failed after several attempts: the remote refused the push/) },
    ]);
    await handle.terminate('test over');
  });

  it('applies the requests a previous run carried over (continue-as-new) before new ones, skipping a repeat', async () => {
    const s = space();
    const t0 = Date.now();
    const carried = [
      { requestId: s.id('carried-2'), requestedAt: t0 + 2 },
      { requestId: s.id('carried-1'), requestedAt: t0 + 1 },
    ];
    const handle = await w.client.workflow.start(gitSync, {
      taskQueue: w.taskQueue,
      workflowId: s.workflowId,
      args: [{ ...s.input, pending: carried }],
    });
    await handle.signal(gitSyncRequestSignal, { requestId: s.id('carried-1'), requestedAt: t0 + 1 });
    await handle.signal(gitSyncRequestSignal, { requestId: s.id('new'), requestedAt: t0 + 3 });
    await eventually(async () => (await handle.query(gitSyncStatusQuery)).applied === 3);
    expect(ranFor(s.input.spaceId)).toEqual([s.id('carried-1'), s.id('carried-2'), s.id('new')]);
    await handle.terminate('test over');
  });
});

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { WorkflowNotFoundError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { GitSyncActivities, GitSyncOutcome, StagedImport } from '../../src/activities/git-sync.ts';
import type { SearchIndexActivities } from '../../src/activities/search-index.ts';
import {
  CLIENT_AT_ONCE,
  gitSync,
  gitSyncRequestSignal,
  gitSyncStatusQuery,
  HEAVY_QUEUE,
  SEARCH_INDEX_JOB,
  SETTLE_AFTER_ARRIVAL,
  STAGE_THEN_APPLY,
  type GitSyncWorkflowInput,
} from '../../src/workflows/git-sync.ts';
import { heavyTaskQueue } from '../../src/domain/task-queues.ts';
import { searchIndexWorkflowId } from '../../src/workflows/search-index.ts';
import { eventually } from '../support/harness.ts';
import { gate, startWorkflowWorker, type WorkflowWorker } from '../support/workflow-worker.ts';

/**
 * The git-sync workflow of one space: requests arrive by signal and are applied one at a time in
 * timestamp order, each once; a request whose activity fails is recorded as failed and the next
 * one goes on; requests carried over by continue-as-new are applied first. An import is staged,
 * then applied from its bundle (a retried apply does not stage again), and an import that moved
 * the space's revision starts the search-index job of that revision.
 */
let w: WorkflowWorker;
/** Every request the stubbed activity ran, in order, per space (the request ids start with the space). */
const ran: string[] = [];
const failures: { requestId: string; message: string }[] = [];
const holds = new Map<string, Promise<void>>();
/** Every stage asked to leave the apply to the workflow, and every apply, in order. */
const staged: string[] = [];
const applies: { requestId: string; bundle: string }[] = [];
/** Per import request: what each apply attempt does (the last one repeats). */
const applyScripts = new Map<string, (() => GitSyncOutcome)[]>();
/** Per import request: what its stage answers instead of a bundle (a final outcome). */
const stageOutcomes = new Map<string, GitSyncOutcome>();
const indexed: string[] = [];

const activities: Pick<GitSyncActivities, 'runGitSyncRequest' | 'applyGitSyncImport' | 'recordGitSyncFailure'> & SearchIndexActivities = {
  async runGitSyncRequest(requestId: string, step?: { stageOnly?: boolean }): Promise<GitSyncOutcome | StagedImport> {
    ran.push(requestId);
    await holds.get(requestId);
    if (requestId.endsWith('/broken')) throw ApplicationFailure.nonRetryable('the remote refused the push', 'PUSH_REFUSED');
    if (step?.stageOnly) staged.push(requestId);
    if (stageOutcomes.has(requestId)) return stageOutcomes.get(requestId)!;
    if (applyScripts.has(requestId) && step?.stageOnly) return { state: 'staged', bundle: `bundle-of-${requestId}`, commit: 'c0ffee' };
    return { state: 'applied', revisionId: `rev-${requestId}` };
  },
  async applyGitSyncImport(input) {
    const attempt = applies.filter((a) => a.requestId === input.requestId).length;
    applies.push(input);
    const script = applyScripts.get(input.requestId)!;
    return script[Math.min(attempt, script.length - 1)]();
  },
  async recordGitSyncFailure(input) {
    failures.push(input);
  },
  async indexSpaceSearch(spaceId) {
    indexed.push(spaceId);
    return { changed: true };
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

/** Signal-with-start, as the webhook receiver (or, with `client`, the API) sends a request. */
function send(s: ReturnType<typeof space>, requestId: string, requestedAt: number, client = false) {
  return w.client.workflow.signalWithStart(gitSync, {
    taskQueue: w.taskQueue,
    workflowId: s.workflowId,
    args: [s.input],
    signal: gitSyncRequestSignal,
    signalArgs: [{ requestId, requestedAt, ...(client ? { client: true } : {}) }],
  });
}

/** Sends the request `name` and waits until it runs, held there until `held` is opened. */
async function runHeld(s: ReturnType<typeof space>, name: string, requestedAt: number) {
  const held = gate();
  holds.set(s.id(name), held.opened);
  await send(s, s.id(name), requestedAt);
  const handle = w.client.workflow.getHandle(s.workflowId);
  await eventually(async () => (await handle.query(gitSyncStatusQuery)).running === s.id(name));
  return { held, handle };
}

describe('git-sync workflow', () => {
  it('applies requests that wait together in timestamp order, not arrival order', async () => {
    const s = space();
    const t0 = Date.now();
    // The first request holds the space while three more arrive, latest first.
    const { held, handle } = await runHeld(s, 'zero', t0);
    await send(s, s.id('third'), t0 + 3000);
    await send(s, s.id('first'), t0 + 1000);
    await send(s, s.id('second'), t0 + 2000);
    held.open();
    await eventually(async () => (await handle.query(gitSyncStatusQuery)).applied === 4);
    expect(ranFor(s.input.spaceId)).toEqual([s.id('zero'), s.id('first'), s.id('second'), s.id('third')]);
    await handle.terminate('test over');
  });

  it('takes a queue that built up while a request ran without settling again before each request', async () => {
    const s = space();
    const t0 = Date.now();
    const { held, handle } = await runHeld(s, 'zero', t0);
    for (const [i, name] of ['d', 'c', 'b', 'a'].entries()) await send(s, s.id(name), t0 + 4000 - i * 1000);
    // Longer than the settling time after the last arrival: nothing is left to wait for.
    await new Promise((resolve) => setTimeout(resolve, 800));
    held.open();
    await eventually(async () => (await handle.query(gitSyncStatusQuery)).applied === 5);
    expect(ranFor(s.input.spaceId)).toEqual(['zero', 'a', 'b', 'c', 'd'].map(s.id));
    const history = await handle.fetchHistory();
    const settles = (history.events ?? []).filter((e) => {
      const timeout = e.timerStartedEventAttributes?.startToFireTimeout;
      return timeout && Number(timeout.seconds ?? 0) < 1;
    });
    // One settling, before the first request; none before each of the four that waited behind it.
    expect(settles).toHaveLength(1);
    await handle.terminate('test over');
  });

  it("takes an API client's request at once, while webhook pushes still settle before they are taken", async () => {
    const s = space();
    const t0 = Date.now();
    await send(s, s.id('client'), t0, true);
    const handle = w.client.workflow.getHandle(s.workflowId);
    await eventually(async () => (await handle.query(gitSyncStatusQuery)).applied === 1);
    await send(s, s.id('push'), t0 + 1);
    await eventually(async () => (await handle.query(gitSyncStatusQuery)).applied === 2);
    expect(ranFor(s.input.spaceId)).toEqual([s.id('client'), s.id('push')]);
    // In the history, per request: the signal that brought it, then any settling timer (not the idle
    // one of minutes) before its stage was scheduled.
    const events = (await handle.fetchHistory()).events ?? [];
    const steps: string[] = [];
    for (const event of events) {
      const signalled = event.workflowExecutionSignaledEventAttributes;
      if (signalled) {
        const [payload] = signalled.input?.payloads ?? [];
        steps.push(`signal ${(JSON.parse(Buffer.from(payload.data ?? []).toString('utf8')) as { requestId: string }).requestId}`);
      }
      const timeout = event.timerStartedEventAttributes?.startToFireTimeout;
      if (timeout && Number(timeout.seconds ?? 0) < 1) steps.push('settle');
      if (event.activityTaskScheduledEventAttributes?.activityType?.name === 'runGitSyncRequest') steps.push('stage');
    }
    expect(steps).toEqual([`signal ${s.id('client')}`, 'stage', `signal ${s.id('push')}`, 'settle', 'stage']);
    const patches = events.flatMap((event) => {
      const marker = event.markerRecordedEventAttributes;
      if (marker?.markerName !== 'core_patch') return [];
      return Object.values(marker.details ?? {}).flatMap((p) => (p.payloads ?? []).map((x) => Buffer.from(x.data ?? []).toString('utf8')));
    });
    expect(patches).toContainEqual(expect.stringContaining(CLIENT_AT_ONCE));
    expect(patches).not.toContainEqual(expect.stringContaining(SETTLE_AFTER_ARRIVAL));
    await handle.terminate('test over');
  });

  it('applies a request delivered twice once, also while it runs', async () => {
    const s = space();
    const { held, handle } = await runHeld(s, 'once', Date.now());
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

  it('stages an import, then applies its bundle; a failed apply is retried without staging again, and the index follows the new revision', async () => {
    const s = space();
    const id = s.id('import');
    const revision = `rev-${n}-${Date.now()}`;
    applyScripts.set(id, [
      () => {
        throw new Error('the database went away');
      },
      () => ({ state: 'applied', revisionId: revision, commit: 'c0ffee', spaceRevision: revision }),
    ]);
    await send(s, id, Date.now());
    const handle = w.client.workflow.getHandle(s.workflowId);
    await eventually(async () => (await handle.query(gitSyncStatusQuery)).applied === 1);
    expect(staged.filter((r) => r === id)).toEqual([id]);
    expect(applies.filter((a) => a.requestId === id)).toEqual([
      { requestId: id, bundle: `bundle-of-${id}` },
      { requestId: id, bundle: `bundle-of-${id}` },
    ]);
    const child = w.client.workflow.getHandle(searchIndexWorkflowId(s.input.spaceId, revision));
    expect(await child.result()).toEqual({ changed: true });
    expect(indexed).toContain(s.input.spaceId);
    // Both changes are recorded as patches in the history, so that older histories replay the old way.
    const history = await handle.fetchHistory();
    const patches = (history.events ?? []).flatMap((event) => {
      const marker = event.markerRecordedEventAttributes;
      if (marker?.markerName !== 'core_patch') return [];
      return Object.values(marker.details ?? {}).flatMap((p) => (p.payloads ?? []).map((x) => Buffer.from(x.data ?? []).toString('utf8')));
    });
    expect(patches).toEqual([
      expect.stringContaining(CLIENT_AT_ONCE),
      expect.stringContaining(STAGE_THEN_APPLY),
      expect.stringContaining(HEAVY_QUEUE),
      expect.stringContaining(SEARCH_INDEX_JOB),
    ]);
    // The stage and the index job run on the heavy jobs' queue; the apply (retried in place) stays on the run's own.
    const queues = (history.events ?? []).flatMap((event) => {
      const scheduled = event.activityTaskScheduledEventAttributes;
      return scheduled ? [`${scheduled.activityType?.name} ${scheduled.taskQueue?.name}`] : [];
    });
    expect(queues).toEqual([`runGitSyncRequest ${heavyTaskQueue(w.taskQueue)}`, `applyGitSyncImport ${w.taskQueue}`]);
    expect((await child.describe()).taskQueue).toBe(heavyTaskQueue(w.taskQueue));
    await handle.terminate('test over');
  });

  it('starts no search-index job for an import that left the space where it was, nor applies one whose stage finished it', async () => {
    const s = space();
    const standalone = s.id('import-standalone');
    const unchanged = s.id('import-unchanged');
    applyScripts.set(standalone, [() => ({ state: 'applied', revisionId: `rev-${standalone}`, commit: 'c0ffee' })]);
    applyScripts.set(unchanged, [() => ({ state: 'applied' })]);
    stageOutcomes.set(unchanged, { state: 'unchanged', revisionId: `rev-${unchanged}`, commit: 'c0ffee' });
    const t0 = Date.now();
    await send(s, standalone, t0);
    await send(s, unchanged, t0 + 1);
    const handle = w.client.workflow.getHandle(s.workflowId);
    await eventually(async () => (await handle.query(gitSyncStatusQuery)).applied === 2);
    expect(applies.filter((a) => a.requestId === standalone)).toHaveLength(1);
    expect(applies.filter((a) => a.requestId === unchanged)).toHaveLength(0);
    for (const id of [standalone, unchanged]) {
      await expect(w.client.workflow.getHandle(searchIndexWorkflowId(s.input.spaceId, `rev-${id}`)).describe()).rejects.toBeInstanceOf(
        WorkflowNotFoundError,
      );
    }
    expect(indexed).not.toContain(s.input.spaceId);
    await handle.terminate('test over');
  });

  it('records an import whose apply fails for good as failed, once, and goes on with the next', async () => {
    const s = space();
    const id = s.id('import-doomed');
    applyScripts.set(id, [
      () => {
        throw ApplicationFailure.nonRetryable('the bundle is gone', 'BUNDLE_GONE');
      },
    ]);
    await send(s, id, Date.now());
    await send(s, s.id('fine'), Date.now() + 1);
    const handle = w.client.workflow.getHandle(s.workflowId);
    await eventually(async () => (await handle.query(gitSyncStatusQuery)).applied === 2);
    expect(ranFor(s.input.spaceId)).toEqual([id, s.id('fine')]);
    expect(failures.filter((f) => f.requestId === id)).toEqual([
      { requestId: id, message: expect.stringMatching(/^The sync failed after several attempts: the bundle is gone/) },
    ]);
    await handle.terminate('test over');
  });
});

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { BlobCollectionActivities } from '../../src/activities/blob-collection.ts';
import type { PurgeInput, SpaceDeletionActivities } from '../../src/activities/space-deletion.ts';
import { purgeNowSignal, restoreSignal, spaceDeletion, statusQuery, type SpaceDeletionInput } from '../../src/workflows/space-deletion.ts';
import { eventually } from '../support/harness.ts';
import { gate, startWorkflowWorker, type WorkflowWorker } from '../support/workflow-worker.ts';

/** The space-deletion workflow: retention timer, restore and purge-now signals, status query. */
let w: WorkflowWorker;
const calls: { purge: PurgeInput[]; restore: PurgeInput[]; collect: number } = { purge: [], restore: [], collect: 0 };
/** What the purge answers per space (default: a row was removed); a gate holds it until opened. */
const purgeAnswer = new Map<string, boolean>();
const purgeGate = new Map<string, Promise<void>>();

const activities: SpaceDeletionActivities & BlobCollectionActivities = {
  async purgeDeletedSpace(input) {
    calls.purge.push(input);
    await purgeGate.get(input.spaceId);
    return purgeAnswer.get(input.spaceId) ?? true;
  },
  async restoreDeletedSpace(input) {
    calls.restore.push(input);
    return true;
  },
  // Two calls: the first stops with a cursor, as a large queue's does, and the workflow calls again from it.
  async collectBlobs(input) {
    calls.collect += 1;
    const counts = { collected: 1, referenced: 0, recent: 0, busy: 0, adopted: 0, failed: 0 };
    return input.after ? { counts } : { counts, next: { since: new Date().toISOString(), sha256: '0'.repeat(64) } };
  },
};

beforeAll(async () => {
  w = await startWorkflowWorker('space-deletion', 'space-deletion.ts', activities);
});
afterAll(() => w.stop());

let n = 0;
function deletion(retentionMs: number): SpaceDeletionInput {
  n += 1;
  return { spaceId: `space-${n}-${Date.now()}`, organizationId: 'org-1', deletedAt: new Date().toISOString(), retentionMs };
}
const start = (input: SpaceDeletionInput) =>
  w.client.workflow.start(spaceDeletion, { taskQueue: w.taskQueue, workflowId: w.workflowId(input.spaceId), args: [input] });
const callsFor = (spaceId: string) => ({
  purge: calls.purge.filter((c) => c.spaceId === spaceId),
  restore: calls.restore.filter((c) => c.spaceId === spaceId),
});
const purgeAt = (input: SpaceDeletionInput) => new Date(Date.parse(input.deletedAt) + input.retentionMs).toISOString();

describe('space-deletion workflow', () => {
  it('purges the space once the retention has passed, for the deletion it was started with', async () => {
    const input = deletion(2000);
    const handle = await start(input);
    expect(await handle.result()).toEqual({ state: 'purged', purgeAt: purgeAt(input) });
    expect(callsFor(input.spaceId)).toEqual({ purge: [{ spaceId: input.spaceId, deletedAt: input.deletedAt }], restore: [] });
  });

  it('answers its status while waiting and while purging', async () => {
    const input = deletion(60 * 60_000);
    const held = gate();
    purgeGate.set(input.spaceId, held.opened);
    const handle = await start(input);
    expect(await handle.query(statusQuery)).toEqual({ state: 'waiting', purgeAt: purgeAt(input) });
    await handle.signal(purgeNowSignal);
    await eventually(async () => (await handle.query(statusQuery)).state === 'purging');
    held.open();
    expect(await handle.result()).toEqual({ state: 'purged', purgeAt: purgeAt(input) });
  });

  it('restores on the restore signal and never purges', async () => {
    const input = deletion(60 * 60_000);
    const handle = await start(input);
    await handle.signal(restoreSignal);
    expect(await handle.result()).toEqual({ state: 'restored', purgeAt: purgeAt(input) });
    expect(await handle.query(statusQuery)).toEqual({ state: 'restored', purgeAt: purgeAt(input) });
    expect(callsFor(input.spaceId)).toEqual({ purge: [], restore: [{ spaceId: input.spaceId, deletedAt: input.deletedAt }] });
  });

  it('purges at once on the purge-now signal', async () => {
    const input = deletion(60 * 60_000);
    const handle = await start(input);
    await handle.signal(purgeNowSignal);
    expect(await handle.result()).toEqual({ state: 'purged', purgeAt: purgeAt(input) });
    expect(callsFor(input.spaceId).purge).toHaveLength(1);
    expect(callsFor(input.spaceId).restore).toEqual([]);
  });

  it('ends "already-gone" when the deletion it was started for is no longer in place', async () => {
    const input = deletion(1000);
    purgeAnswer.set(input.spaceId, false);
    const handle = await start(input);
    expect(await handle.result()).toEqual({ state: 'already-gone', purgeAt: purgeAt(input) });
  });

  it('collects the blobs a purge freed, calling again from each cursor, and none when the space was already gone', async () => {
    const before = calls.collect;
    const input = deletion(500);
    expect(await (await start(input)).result()).toEqual({ state: 'purged', purgeAt: purgeAt(input) });
    expect(calls.collect - before).toBe(2);
    const gone = deletion(500);
    purgeAnswer.set(gone.spaceId, false);
    expect(await (await start(gone)).result()).toEqual({ state: 'already-gone', purgeAt: purgeAt(gone) });
    expect(calls.collect - before).toBe(2);
  });

  it('purges at once when the retention has already passed (a deletion resumed late)', async () => {
    const input = { ...deletion(1000), deletedAt: new Date(Date.now() - 60_000).toISOString() };
    const handle = await start(input);
    expect(await handle.result()).toEqual({ state: 'purged', purgeAt: purgeAt(input) });
  });
});

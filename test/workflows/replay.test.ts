import { beforeAll, describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { bundleWorkflowCode, DefaultLogger, Worker, type WorkflowBundle } from '@temporalio/worker';
import * as workflows from '../../src/workflows/index.ts';

/**
 * Safe deploys of workflow code: space deletions wait for days and git-sync workflows live for
 * months, so today's workflow code meets histories that earlier code wrote. Every history under
 * test/fixtures/histories (recorded from real runs with scripts/record-histories.ts) is replayed
 * against the workflows of src/workflows: a change that would take a running workflow down another
 * path (a non-deterministic change) fails here, before it is deployed. Such a change goes behind
 * `patched()` (see docs/development.md, "Changing workflow code").
 */

const dir = new URL('../fixtures/histories/', import.meta.url);
const files = readdirSync(dir).filter((f) => f.endsWith('.json'));
// `<type>.json`, or `<type>.<release>.json` for the histories an earlier release wrote.
const recorded = files.map((file) => ({
  type: file.split('.')[0],
  runs: JSON.parse(readFileSync(new URL(file, dir), 'utf8')) as { workflowId: string; status: string; history: unknown }[],
}));

let workflowBundle: WorkflowBundle;
beforeAll(async () => {
  // Bundled once, as the worker bundles it, for every replay below.
  workflowBundle = await bundleWorkflowCode({
    workflowsPath: fileURLToPath(new URL('../../src/workflows/index.ts', import.meta.url)),
    logger: new DefaultLogger('WARN'),
  });
}, 120_000);

it('keeps a recorded history of every workflow type the worker runs', () => {
  expect([...new Set(recorded.map((r) => r.type))].sort()).toEqual(Object.keys(workflows).sort());
});

describe.each(recorded.map((r, i) => ({ ...r, file: files[i] })))('$file', ({ runs }) => {
  it.each(runs.map((run) => ({ id: run.workflowId, status: run.status, run })))(
    'replays $id ($status) without a non-determinism error',
    async ({ run }) => {
      await Worker.runReplayHistory({ workflowBundle }, historyFromJSON(run.history), run.workflowId);
    },
  );
});

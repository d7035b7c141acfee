import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ApplicationFailure } from '@temporalio/common';
import type {
  BeginInput,
  BeginResult,
  FailureInput,
  FetchInput,
  FetchResult,
  OpenApiActivities,
} from '../../src/activities/openapi-processing.ts';
import { openapiProcessing, type OpenApiProcessingInput } from '../../src/workflows/openapi-processing.ts';
import {
  OPENAPI_PROCESSING_WORKFLOW,
  deleteRefreshSchedule,
  openapiRefreshScheduleId,
  upsertRefreshSchedule,
} from '../../src/temporal/openapi-refresh-schedule.ts';
import { eventually } from '../support/harness.ts';
import { startWorkflowWorker, type WorkflowWorker } from '../support/workflow-worker.ts';

/**
 * The openapi-processing workflow: each outcome of processing a spec, with the activities
 * stubbed per spec id (what `begin` answers, what `fetch` does on each attempt).
 */
let w: WorkflowWorker;

interface Script {
  begin: BeginResult;
  /** One entry per attempt; the last repeats. */
  fetch: ((input: FetchInput) => FetchResult)[];
}
const scripts = new Map<string, Script>();
const calls = { begin: [] as BeginInput[], fetch: [] as FetchInput[], failure: [] as FailureInput[], removed: [] as string[] };

const activities: OpenApiActivities = {
  async beginOpenApiProcessing(input) {
    calls.begin.push(input);
    return scripts.get(input.specId)!.begin;
  },
  async fetchOpenApiSpec(input) {
    const steps = scripts.get(input.specId)!.fetch;
    const attempt = calls.fetch.filter((c) => c.specId === input.specId).length;
    calls.fetch.push(input);
    return steps[Math.min(attempt, steps.length - 1)](input);
  },
  async recordOpenApiFailure(input) {
    calls.failure.push(input);
    return true;
  },
  async removeOpenApiRefreshSchedule(input) {
    calls.removed.push(input.specId);
  },
};

beforeAll(async () => {
  w = await startWorkflowWorker('openapi-processing', 'openapi-processing.ts', activities);
});
afterAll(() => w.stop());

let n = 0;
function spec(script: Script): string {
  const specId = `spec-${++n}-${Date.now()}`;
  scripts.set(specId, script);
  return specId;
}
const ready = (kind: 'url' | 'text' = 'url'): BeginResult => ({ status: 'ready', generation: 3, kind });
const run = (specId: string, trigger: OpenApiProcessingInput['trigger'] = 'api') =>
  w.client.workflow.execute(openapiProcessing, {
    taskQueue: w.taskQueue,
    workflowId: w.workflowId(specId),
    args: [{ specId, organizationId: 'org-1', trigger, ...(trigger === 'api' ? { generation: 3 } : {}) }],
  });
const of = <T extends { specId: string }>(list: T[], specId: string) => list.filter((c) => c.specId === specId);

describe('openapi-processing workflow', () => {
  it('records a new version: the version id is chosen by the workflow and kept across the call', async () => {
    const specId = spec({ begin: ready(), fetch: [(input) => ({ outcome: 'created', versionId: input.versionId })] });
    const result = await run(specId);
    const [fetched] = of(calls.fetch, specId);
    expect(fetched).toMatchObject({ specId, generation: 3 });
    expect(fetched.versionId).toMatch(/^[0-9a-f]{32}$/);
    expect(result).toEqual({ outcome: 'created', versionId: fetched.versionId });
    expect(of(calls.failure, specId)).toEqual([]);
  });

  it('reports unchanged content with the last version', async () => {
    const specId = spec({ begin: ready(), fetch: [() => ({ outcome: 'unchanged', versionId: 'v-old' })] });
    expect(await run(specId)).toEqual({ outcome: 'unchanged', versionId: 'v-old' });
    expect(of(calls.failure, specId)).toEqual([]);
  });

  it('records a refused fetch as a failure at once, without trying again', async () => {
    const specId = spec({
      begin: ready(),
      fetch: [
        () => {
          throw ApplicationFailure.create({ type: 'ADDRESS_NOT_ALLOWED', message: 'http://10.0.0.1/ is private', nonRetryable: true });
        },
      ],
    });
    expect(await run(specId)).toEqual({ outcome: 'failed', error: 'ADDRESS_NOT_ALLOWED' });
    expect(of(calls.fetch, specId)).toHaveLength(1);
    expect(of(calls.failure, specId)).toEqual([
      { specId, generation: 3, detail: 'ADDRESS_NOT_ALLOWED', message: 'http://10.0.0.1/ is private' },
    ]);
  });

  it('tries a failing fetch three times, then records the failure', async () => {
    const specId = spec({
      begin: ready(),
      fetch: [
        () => {
          throw ApplicationFailure.retryable('503 from the server', 'HTTP_ERROR');
        },
      ],
    });
    expect(await run(specId)).toEqual({ outcome: 'failed', error: 'HTTP_ERROR' });
    expect(of(calls.fetch, specId)).toHaveLength(3);
    expect(of(calls.failure, specId)).toEqual([{ specId, generation: 3, detail: 'HTTP_ERROR', message: '503 from the server' }]);
  });

  it('succeeds when a fetch that failed once works on the next attempt', async () => {
    const specId = spec({
      begin: ready(),
      fetch: [
        () => {
          throw ApplicationFailure.retryable('connection reset', 'NETWORK_ERROR');
        },
        (input) => ({ outcome: 'created', versionId: input.versionId }),
      ],
    });
    const result = await run(specId);
    const attempts = of(calls.fetch, specId);
    expect(attempts).toHaveLength(2);
    expect(attempts[1].versionId).toBe(attempts[0].versionId);
    expect(result).toEqual({ outcome: 'created', versionId: attempts[0].versionId });
    expect(of(calls.failure, specId)).toEqual([]);
  });

  it('never tries an invalid spec again, whatever the activity says', async () => {
    const specId = spec({
      begin: ready('text'),
      fetch: [
        () => {
          throw ApplicationFailure.retryable('Invalid OpenAPI 3.0 definition: paths is required', 'INVALID_SPEC');
        },
      ],
    });
    expect(await run(specId)).toEqual({ outcome: 'failed', error: 'INVALID_SPEC' });
    expect(of(calls.fetch, specId)).toHaveLength(1);
    expect(of(calls.failure, specId)[0]).toMatchObject({
      detail: 'INVALID_SPEC',
      message: 'Invalid OpenAPI 3.0 definition: paths is required',
    });
  });

  it('does nothing for a source that changed since the run started', async () => {
    const specId = spec({ begin: { status: 'stale' }, fetch: [] });
    expect(await run(specId)).toEqual({ outcome: 'stale' });
    expect(of(calls.fetch, specId)).toEqual([]);
    expect(calls.removed).not.toContain(specId);
  });

  it('removes the refresh schedule of a spec that is gone', async () => {
    const specId = spec({ begin: { status: 'gone' }, fetch: [] });
    expect(await run(specId, 'schedule')).toEqual({ outcome: 'gone' });
    expect(calls.removed).toContain(specId);
    expect(of(calls.fetch, specId)).toEqual([]);
  });

  it('removes the refresh schedule when a scheduled run finds a text source', async () => {
    const specId = spec({ begin: ready('text'), fetch: [] });
    expect(await run(specId, 'schedule')).toEqual({ outcome: 'not-refreshable' });
    expect(calls.removed).toContain(specId);
    expect(of(calls.fetch, specId)).toEqual([]);
  });

  it('is what the refresh schedule starts, as a scheduled run of that spec', async () => {
    expect(OPENAPI_PROCESSING_WORKFLOW).toBe(openapiProcessing.name);
    const specId = spec({ begin: { status: 'gone' }, fetch: [] });
    await upsertRefreshSchedule(w.client, {
      specId,
      organizationId: 'org-1',
      slug: 'petstore',
      shownUrl: 'https://api.example/openapi.json',
      intervalMs: 24 * 3_600_000,
      taskQueue: w.taskQueue,
    });
    try {
      await w.client.schedule.getHandle(openapiRefreshScheduleId(specId)).trigger();
      // The run found the spec gone and asked for the schedule to be removed.
      await eventually(async () => calls.removed.includes(specId));
      // A scheduled run processes whatever the source is when it runs: no generation.
      expect(of(calls.begin, specId)).toEqual([{ specId }]);
    } finally {
      await deleteRefreshSchedule(w.client, specId);
    }
  });
});

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { heavyTaskQueue } from '../../src/domain/task-queues.ts';
import { createTestOrg, eventually, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';

/**
 * Heavy jobs run on a task queue of their own (`<queue>-heavy`), so that a burst of them never
 * delays a merge on the main queue; the suite's worker polls both (WORKER_QUEUES' default).
 */
let t: TestApp;
let org: TestOrg;

beforeAll(async () => {
  t = await startTestApp();
  org = await createTestOrg(t, 'Task queues org');
});
afterAll(() => t.close());

async function queueOf(idPrefix: string): Promise<string> {
  return eventually(async () => {
    for await (const run of t.temporal.workflow.list({ query: `WorkflowId STARTS_WITH "${idPrefix}"` })) return run.taskQueue;
    return undefined;
  });
}

describe('task queues', () => {
  it('derives the heavy queue from the main one', () => {
    expect(heavyTaskQueue('docs-service')).toBe('docs-service-heavy');
    expect(heavyTaskQueue('docs-service-heavy')).toBe('docs-service-heavy');
    expect(t.config.temporalHeavyTaskQueue).toBe(heavyTaskQueue(t.config.temporalTaskQueue));
    expect(t.config.workerQueues).toEqual(['main', 'heavy']);
  });

  it('runs OpenAPI processing and search indexing on the heavy queue, to completion', async () => {
    const api = org.members.admin.api;
    const spec = await api.post(`/v1/orgs/${org.id}/openapi`, {
      slug: 'queued',
      source: { text: JSON.stringify({ openapi: '3.0.3', info: { title: 'Queued', version: '1' }, paths: {} }) },
    });
    expect(spec.status).toBe(201);
    expect(await queueOf(`openapi-processing/${spec.body.id}/`)).toBe(t.config.temporalHeavyTaskQueue);
    await eventually(async () => (await api.get(`/v1/orgs/${org.id}/openapi/queued`)).body.processingState === 'complete');

    const space = await api.post(`/v1/orgs/${org.id}/spaces`, { title: 'Indexed' });
    expect(space.status).toBe(201);
    expect(await queueOf(`search-index/${space.body.id}`)).toBe(t.config.temporalHeavyTaskQueue);
  });
});

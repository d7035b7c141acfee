import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { openapiActivities, type ValidationBudget } from '../../src/activities/openapi-processing.ts';
import { newId } from '../../src/domain/ids.ts';
import { closeTaskPool } from '../../src/lib/bounded-parse.ts';
import { fetchPolicyFromEnv } from '../../src/lib/guarded-fetch.ts';
import { sql } from '../support/fixtures.ts';
import { createTestOrg, eventually, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { json, petstore30, startFixtureServer, type FixtureServer } from '../support/openapi-fixtures.ts';

/**
 * The probe: a 5 KB OpenAPI definition of 40 schemas, each referring to the one before it twice.
 * Dereferenced, it stands for 2^40 schema nodes; the validator walked them on the worker's main
 * thread until its 60 s timeout, heartbeats were missed, and the activity ran three times: three
 * minutes of a blocked worker per spec. Now the expansion is measured before validation (in a
 * thread of its own, with a deadline and a heap of its own), and the spec fails at once, for good,
 * with PARSE_ERROR / TOO_COMPLEX.
 */
let t: TestApp;
let org: TestOrg;
let fixtures: FixtureServer;

/** `count` schemas, each referring to the one before it twice. */
function fanOut(count: number) {
  const schemas: Record<string, unknown> = { S0: { type: 'string' } };
  for (let i = 1; i < count; i++) {
    schemas[`S${i}`] = {
      type: 'object',
      properties: { a: { $ref: `#/components/schemas/S${i - 1}` }, b: { $ref: `#/components/schemas/S${i - 1}` } },
    };
  }
  return { openapi: '3.0.3', info: { title: 'Fan-out', version: '1' }, paths: {}, components: { schemas } };
}
const probe = JSON.stringify(fanOut(40));

beforeAll(async () => {
  t = await startTestApp({ FETCH_ALLOW_HOSTS: '127.0.0.1' });
  org = await createTestOrg(t, 'OpenAPI fan-out org');
  fixtures = await startFixtureServer();
  fixtures.docs.set('/fanout.json', { body: probe, type: 'application/json' });
  fixtures.docs.set('/fine.json', json(petstore30));
});
afterAll(async () => {
  await fixtures?.close();
  await t?.close();
  await closeTaskPool();
});

const admin = () => org.members.admin.api;

async function processedSpec(slug: string, source: { text: string } | { url: string }) {
  const created = await admin().post(`/v1/orgs/${org.id}/openapi`, { slug, source });
  expect(created.status).toBe(201);
  const spec = await eventually(async () => {
    const res = await admin().get(`/v1/orgs/${org.id}/openapi/${slug}`);
    return res.body.processingState === 'complete' && res.body.lastProcessedAt ? res.body : undefined;
  }, 120_000);
  return { id: created.body.id as string, spec };
}

/** Attempts of each activity of a workflow run, from its history (ActivityTaskStarted carries the attempt). */
async function activityAttempts(workflowId: string): Promise<Record<string, number[]>> {
  const history = await t.temporal.workflow.getHandle(workflowId).fetchHistory();
  const names = new Map<string, string>();
  const attempts: Record<string, number[]> = {};
  for (const event of history.events ?? []) {
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (scheduled) names.set(String(event.eventId), scheduled.activityType?.name ?? '?');
    const started = event.activityTaskStartedEventAttributes;
    if (started) (attempts[names.get(String(started.scheduledEventId)) ?? '?'] ??= []).push(started.attempt ?? 0);
  }
  return attempts;
}

async function runsOf(specId: string): Promise<string[]> {
  const runs: string[] = [];
  for await (const run of t.temporal.workflow.list({ query: `WorkflowId STARTS_WITH "openapi-processing/${specId}/"` })) {
    runs.push(run.workflowId);
  }
  return runs;
}

describe('an OpenAPI spec whose $refs fan out to 2^40 nodes', () => {
  it.each([
    ['text', () => ({ text: probe })],
    ['URL', () => ({ url: `${fixtures.base}/fanout.json` })],
  ])('given as %s, fails with PARSE_ERROR / TOO_COMPLEX after one attempt, and the next spec processes', async (kind, source) => {
    expect(probe.length).toBeLessThan(5_000);
    const { id, spec } = await processedSpec(`fanout-${kind.toLowerCase()}`, source());
    expect(spec).toMatchObject({ processingState: 'complete', lastProcessErrorCode: 'PARSE_ERROR' });
    expect(spec.lastVersion).toBeUndefined();
    expect(spec.lastProcessedErrors).toEqual([
      { code: 'TOO_COMPLEX', message: expect.stringMatching(/^The definition expands to more than 4,000,000 nodes through its \$refs/) },
    ]);

    // One run, one attempt of the processing activity: the refusal is not retried.
    const runs = await runsOf(id);
    expect(runs).toHaveLength(1);
    expect(await t.temporal.workflow.getHandle(runs[0]).result()).toEqual({ outcome: 'failed', error: 'TOO_COMPLEX' });
    expect((await activityAttempts(runs[0])).fetchOpenApiSpec).toEqual([1]);

    // The worker goes on to the next spec.
    const fine = 'url' in source() ? { url: `${fixtures.base}/fine.json` } : { text: JSON.stringify(petstore30) };
    const after = (await processedSpec(`after-fanout-${kind.toLowerCase()}`, fine)).spec;
    expect(after.lastProcessErrorCode).toBeUndefined();
    expect(after.lastVersion).toBeDefined();
  });
});

describe('the validation thread, past what the $ref measure foresees', () => {
  /** A spec row of the test's organization with a text source, as the API would write it. */
  async function textSpec(text: string): Promise<string> {
    const id = newId();
    const textId = newId();
    await sql(t, `insert into openapi_spec (id, organization_id, slug, source_text_id) values (?, ?, ?, ?)`, [
      id,
      org.id,
      `s-${id.toLowerCase()}`,
      textId,
    ]);
    await sql(t, `insert into openapi_spec_text (id, spec_id, text) values (?, ?, ?)`, [textId, id, text]);
    return id;
  }

  /** An activity context of the SDK (heartbeats and cancellation as a worker gives them), logging errors only. */
  const quietEnvironment = () => new MockActivityEnvironment(undefined, { logger: new DefaultLogger('ERROR') });

  /** The activities with the $ref measure turned off, so the validator itself meets the fan-out. */
  const unmeasured = (budget: Partial<ValidationBudget>) =>
    openapiActivities(t.orm, fetchPolicyFromEnv({ FETCH_ALLOW_HOSTS: '127.0.0.1' }), {
      maxExpandedNodes: Number.MAX_SAFE_INTEGER,
      ...budget,
    });

  it('stops the validator at its deadline (TOO_COMPLEX, not retried) while the activity keeps heartbeating', async () => {
    const specId = await textSpec(probe);
    const env = quietEnvironment();
    const beats: unknown[] = [];
    env.on('heartbeat', (details: unknown) => beats.push(details));
    const activities = unmeasured({ timeoutMs: 12_000 });
    const error = await env.run(activities.fetchOpenApiSpec, { specId, generation: 1, versionId: 'never' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ type: 'TOO_COMPLEX', nonRetryable: true, message: 'The definition could not be validated within 12 s' });
    expect(error).toBeInstanceOf(ApplicationFailure);
    // Heartbeats went on while the thread validated: the worker's own thread was never blocked.
    const validating = beats.findIndex((details) => (details as { validating?: number })?.validating === 1);
    expect(validating).toBeGreaterThanOrEqual(0);
    expect(beats.length - validating - 1).toBeGreaterThanOrEqual(2);
    expect(await sql(t, 'select id from openapi_spec_version where spec_id = ?', [specId])).toEqual([]);
  });

  it('stops the validator when the activity is cancelled', async () => {
    const specId = await textSpec(probe);
    const env = quietEnvironment();
    let started!: () => void;
    const validating = new Promise<void>((resolve) => (started = resolve));
    env.on('heartbeat', (details: unknown) => {
      if ((details as { validating?: number })?.validating === 1) started();
    });
    // A deadline the test never reaches: only the cancellation can end the validation.
    const activities = unmeasured({ timeoutMs: 600_000 });
    const run = env.run(activities.fetchOpenApiSpec, { specId, generation: 1, versionId: 'never' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    await validating;
    env.cancel('CANCELLED');
    const error = await run;
    expect(error).toBeInstanceOf(CancelledFailure);
    expect(await sql(t, 'select id from openapi_spec_version where spec_id = ?', [specId])).toEqual([]);

    // The next definition is validated as usual.
    const fine = await textSpec(JSON.stringify(petstore30));
    expect(await unmeasured({}).fetchOpenApiSpec({ specId: fine, generation: 1, versionId: `v-${newId(8)}` })).toMatchObject({
      outcome: 'created',
    });
  });
});

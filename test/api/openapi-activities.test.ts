import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ApplicationFailure } from '@temporalio/common';
import { openapiActivities } from '../../src/activities/openapi-processing.ts';
import { newId } from '../../src/domain/ids.ts';
import { fetchPolicyFromEnv } from '../../src/lib/guarded-fetch.ts';
import { createTestOrg, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { sql } from '../support/fixtures.ts';
import { petstore30, petstore31 } from '../support/openapi-fixtures.ts';

/**
 * The processing activities called directly, as a retry would call them again, on the real
 * database. Specs are written straight into the tables so no workflow runs alongside.
 */
let t: TestApp;
let org: TestOrg;
let activities: ReturnType<typeof openapiActivities>;

beforeAll(async () => {
  t = await startTestApp();
  org = await createTestOrg(t, 'OpenAPI activities org');
  activities = openapiActivities(t.orm, fetchPolicyFromEnv({ FETCH_ALLOW_HOSTS: '127.0.0.1' }));
});
afterAll(() => t.close());

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

const versions = async (specId: string) =>
  (await sql(t, 'select id from openapi_spec_version where spec_id = ? order by created_at', [specId])).map(
    (r) => (r as { id: string }).id,
  );

describe('OpenAPI processing activities', () => {
  it('record a version once, however often they are retried', async () => {
    const specId = await textSpec(JSON.stringify(petstore30));
    expect(await activities.beginOpenApiProcessing({ specId, generation: 1 })).toEqual({ status: 'ready', generation: 1, kind: 'text' });
    expect((await sql(t, 'select processing_state from openapi_spec where id = ?', [specId]))[0].processing_state).toBe('progress');

    const input = { specId, generation: 1, versionId: 'version-one' };
    expect(await activities.fetchOpenApiSpec(input)).toEqual({ outcome: 'created', versionId: 'version-one' });
    // The same attempt again (a retry after the database committed): still one version.
    expect(await activities.fetchOpenApiSpec(input)).toEqual({ outcome: 'created', versionId: 'version-one' });
    await Promise.all([activities.fetchOpenApiSpec(input), activities.fetchOpenApiSpec(input)]);
    expect(await versions(specId)).toEqual(['version-one']);

    // Another run with the same content: unchanged.
    expect(await activities.fetchOpenApiSpec({ ...input, versionId: 'version-two' })).toEqual({
      outcome: 'unchanged',
      versionId: 'version-one',
    });
    expect(await versions(specId)).toEqual(['version-one']);
    const [spec] = await sql(t, 'select processing_state, last_version_id, last_process_error_code from openapi_spec where id = ?', [
      specId,
    ]);
    expect(spec).toEqual({ processing_state: 'complete', last_version_id: 'version-one', last_process_error_code: null });
  });

  it('records nothing for a source that was replaced since the run started', async () => {
    const specId = await textSpec(JSON.stringify(petstore30));
    await sql(t, `update openapi_spec set source_generation = 2 where id = ?`, [specId]);
    expect(await activities.beginOpenApiProcessing({ specId, generation: 1 })).toEqual({ status: 'stale' });
    expect(await activities.fetchOpenApiSpec({ specId, generation: 1, versionId: 'stale-version' })).toEqual({ outcome: 'stale' });
    expect(await activities.recordOpenApiFailure({ specId, generation: 1, detail: 'HTTP_ERROR', message: 'old' })).toBe(false);
    expect(await versions(specId)).toEqual([]);
    // A scheduled run takes the current source.
    expect(await activities.beginOpenApiProcessing({ specId })).toEqual({ status: 'ready', generation: 2, kind: 'text' });
    expect(await activities.beginOpenApiProcessing({ specId: 'no-such-spec' })).toEqual({ status: 'gone' });
    expect(await activities.fetchOpenApiSpec({ specId: 'no-such-spec', generation: 1, versionId: 'x' })).toEqual({ outcome: 'gone' });
  });

  it('fail with the precise reason as a non-retryable ApplicationFailure for invalid definitions', async () => {
    const specId = await textSpec(JSON.stringify({ ...petstore31, info: undefined }));
    let error: unknown;
    try {
      await activities.fetchOpenApiSpec({ specId, generation: 1, versionId: 'never' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ApplicationFailure);
    expect((error as ApplicationFailure).type).toBe('INVALID_SPEC');
    expect((error as ApplicationFailure).nonRetryable).toBe(true);
    expect(
      await activities.recordOpenApiFailure({ specId, generation: 1, detail: 'INVALID_SPEC', message: (error as Error).message }),
    ).toBe(true);
    const [spec] = await sql(t, 'select processing_state, last_process_error_code, last_process_errors from openapi_spec where id = ?', [
      specId,
    ]);
    expect(spec).toMatchObject({
      processing_state: 'complete',
      last_process_error_code: 'PARSE_ERROR',
      last_process_errors: [{ code: 'INVALID_SPEC' }],
    });
  });
});

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ScheduleNotFoundError, type ScheduleHandle } from '@temporalio/client';
import { client, createTestOrg, eventually, startTestApp, type Api, type TestApp, type TestOrg } from '../support/harness.ts';
import { sql } from '../support/fixtures.ts';
import {
  invalid30,
  json,
  multiFileEntry,
  multiFilePets,
  multiFileSchemas,
  petstore30,
  petstore31,
  startFixtureServer,
  swagger20,
  yaml,
  type FixtureServer,
} from '../support/openapi-fixtures.ts';

let t: TestApp;
let org: TestOrg;
let other: TestOrg;
let fixtures: FixtureServer;

beforeAll(async () => {
  t = await startTestApp({ FETCH_ALLOW_HOSTS: '127.0.0.1' });
  org = await createTestOrg(t, 'OpenAPI org');
  other = await createTestOrg(t, 'Other OpenAPI org');
  fixtures = await startFixtureServer();
  fixtures.docs.set('/v30/openapi.json', json(petstore30));
  fixtures.docs.set('/v31/openapi.yaml', yaml(petstore31));
  fixtures.docs.set('/v20/swagger.json', json(swagger20));
  fixtures.docs.set('/v30/openapi.yaml', yaml(petstore30));
  fixtures.docs.set('/invalid.json', json(invalid30));
  fixtures.docs.set('/garbage.txt', { body: '{"openapi": "3.0.0", "info": ', type: 'text/plain' });
  fixtures.docs.set('/split/api/openapi.yaml', yaml(multiFileEntry));
  fixtures.docs.set('/split/api/paths/pets.yaml', yaml(multiFilePets));
  fixtures.docs.set('/split/common/schemas.json', json(multiFileSchemas));
  fixtures.docs.set(
    '/split-broken/openapi.yaml',
    yaml('openapi: 3.1.0\ninfo: {title: t, version: "1"}\npaths:\n  /x:\n    $ref: ./missing.yaml\n'),
  );
});
afterAll(async () => {
  await fixtures?.close();
  await t?.close();
});

const admin = () => org.members.admin.api;
const specsPath = (orgId = org.id) => `/v1/orgs/${orgId}/openapi`;

async function createSpec(slug: string, source: object, api: Api = admin(), orgId = org.id) {
  const res = await api.post(specsPath(orgId), { slug, source });
  expect(res.status).toBe(201);
  return res.body;
}

/** Waits until the spec's processing finished after `after` (a previous lastProcessedAt). */
async function processed(slug: string, after?: string, orgId = org.id, api: Api = admin()) {
  return eventually(async () => {
    const res = await api.get(`${specsPath(orgId)}/${slug}`);
    const spec = res.body;
    return spec.processingState === 'complete' && spec.lastProcessedAt !== undefined && spec.lastProcessedAt !== after ? spec : undefined;
  }, 60_000);
}

/**
 * Triggers the refresh schedule once its last run has ended: the schedule skips a trigger while a
 * run it started still runs (overlap policy SKIP), and a spec reads `complete` a moment before
 * its run closes.
 */
async function triggerWhenIdle(handle: ScheduleHandle) {
  await eventually(async () => ((await handle.describe()).info.runningActions.length === 0 ? true : undefined), 60_000);
  await handle.trigger();
}

async function schedule(specId: string) {
  try {
    return await t.temporal.schedule.getHandle(`openapi-refresh/${specId}`).describe();
  } catch (error) {
    if (error instanceof ScheduleNotFoundError) return null;
    throw error;
  }
}

describe('creating and processing specs', () => {
  it('creates a URL spec that answers pending at once and completes with a first version', async () => {
    const url = `${fixtures.base}/v30/openapi.json`;
    const created = await createSpec('petstore', { url });
    expect(created).toEqual({
      object: 'openapi-spec',
      id: expect.any(String),
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      slug: 'petstore',
      sourceURL: url,
      processingState: 'pending',
      lastProcessedErrors: [],
      lastProcessedErrorCount: 0,
      permissions: { view: true, edit: true },
      urls: {
        location: `http://docs.test/v1/orgs/${org.id}/openapi/petstore`,
        app: `http://docs.test/o/${org.id}/openapi/petstore`,
      },
    });
    const spec = await processed('petstore');
    expect(spec.lastVersion).toEqual(expect.any(String));
    expect(spec.lastProcessErrorCode).toBeUndefined();

    const latest = await admin().get(`${specsPath()}/petstore/versions/latest`);
    expect(latest.status).toBe(200);
    expect(latest.body).toEqual({
      object: 'openapi-spec-version',
      id: spec.lastVersion,
      createdAt: expect.any(String),
      url,
      urls: { location: `http://docs.test/v1/orgs/${org.id}/openapi/petstore/versions/${spec.lastVersion}` },
    });
    const byId = await admin().get(`${specsPath()}/petstore/versions/${spec.lastVersion}`);
    expect(byId.body).toEqual(latest.body);
    const content = await admin().get(`${specsPath()}/petstore/versions/latest/content`);
    expect(content.status).toBe(200);
    expect(content.body).toEqual({
      filesystem: [{ dir: '.', isEntrypoint: true, references: [], filename: 'openapi.json', specification: petstore30 }],
      url,
      urls: { source: url, public: null },
    });
    expect((await admin().get(`${specsPath()}/petstore/versions/${spec.lastVersion}/content`)).body).toEqual(content.body);
  });

  it('processes Swagger 2.0, OpenAPI 3.0 and 3.1 in JSON and YAML', async () => {
    const cases = [
      ['swagger-json', '/v20/swagger.json', swagger20],
      ['oas30-yaml', '/v30/openapi.yaml', petstore30],
      ['oas31-yaml', '/v31/openapi.yaml', petstore31],
    ] as const;
    for (const [slug, path] of cases) await createSpec(slug, { url: fixtures.base + path });
    for (const [slug, path, document] of cases) {
      const spec = await processed(slug);
      expect(spec.lastProcessErrorCode).toBeUndefined();
      expect(spec.lastVersion).toBeDefined();
      const content = (await admin().get(`${specsPath()}/${slug}/versions/latest/content`)).body;
      expect(content.filesystem).toEqual([
        { dir: '.', isEntrypoint: true, references: [], filename: path.split('/').pop(), specification: document },
      ]);
    }
  });

  it('starts a processing workflow named after the spec, with search attributes and who asked', async () => {
    const created = await createSpec('traced', { url: `${fixtures.base}/v30/openapi.json` });
    await processed('traced');
    const runs = await eventually(async () => {
      const found = [];
      for await (const run of t.temporal.workflow.list({
        query: `DocsOrganizationId = "${org.id}" AND DocsJobKind = "openapi-processing"`,
      })) {
        if (run.workflowId.startsWith(`openapi-processing/${created.id}/`)) found.push(run);
      }
      return found.length > 0 ? found : undefined;
    });
    const byId = [];
    for await (const run of t.temporal.workflow.list({ query: `WorkflowId STARTS_WITH "openapi-processing/${created.id}/"` }))
      byId.push(run.workflowId);
    expect(byId).toEqual(runs.map((run) => run.workflowId));
    const description = await t.temporal.workflow.getHandle(runs[0].workflowId).describe();
    expect(description.type).toBe('openapiProcessing');
    expect(await description.memo).toMatchObject({ requestedBy: org.members.admin.userId });
    expect(description.typedSearchAttributes.getAll().map((pair) => [pair.key.name, pair.value])).toEqual(
      expect.arrayContaining([
        ['DocsOrganizationId', org.id],
        ['DocsJobKind', 'openapi-processing'],
      ]),
    );
    expect(JSON.stringify(await t.temporal.workflow.getHandle(runs[0].workflowId).fetchHistory())).not.toContain(fixtures.base);
  });

  it('resolves external $refs into the filesystem, one file each, as the renderer reads them', async () => {
    await createSpec('split', { url: `${fixtures.base}/split/api/openapi.yaml` });
    const spec = await processed('split');
    expect(spec.lastProcessErrorCode).toBeUndefined();
    const content = (await admin().get(`${specsPath()}/split/versions/latest/content`)).body;
    expect(content.url).toBe(`${fixtures.base}/split/api/openapi.yaml`);
    // The entry document first; each file named relative to it, and every $ref to another file
    // names that file's `filename` (the renderer finds the file by that exact name).
    expect(content.filesystem.map(({ specification: _, ...file }: any) => file)).toEqual([
      { dir: '.', isEntrypoint: true, references: ['paths/pets.yaml', '../common/schemas.json'], filename: 'openapi.yaml' },
      { dir: 'paths', isEntrypoint: false, references: ['../common/schemas.json'], filename: 'paths/pets.yaml' },
      { dir: '../common', isEntrypoint: false, references: [], filename: '../common/schemas.json' },
    ]);
    const [entry, pets, schemas] = content.filesystem.map((file: any) => file.specification);
    expect(entry.paths['/pets']).toEqual({ $ref: 'paths/pets.yaml#' });
    expect(entry.components.schemas.Pet).toEqual({ $ref: '../common/schemas.json#/Pet' });
    expect(pets.get.responses['200'].content['application/json'].schema.items).toEqual({ $ref: '../common/schemas.json#/Pet' });
    expect(schemas).toEqual(multiFileSchemas);
    // Stored as fetched: the same content by version id.
    const byId = (await admin().get(`${specsPath()}/split/versions/${spec.lastVersion}/content`)).body;
    expect(byId).toEqual(content);
  });

  it('keeps a text source in the database and processes it', async () => {
    const text = yaml(petstore31).body;
    const created = await createSpec('from-text', { text });
    expect(created.sourceURL).toBeUndefined();
    const spec = await processed('from-text');
    expect(spec.lastProcessErrorCode).toBeUndefined();
    const version = (await admin().get(`${specsPath()}/from-text/versions/latest`)).body;
    expect(version.url).toBe(`http://docs.test/v1/orgs/${org.id}/openapi/from-text/versions/${version.id}/content`);
    const content = (await admin().get(`${specsPath()}/from-text/versions/latest/content`)).body;
    expect(content).toEqual({
      filesystem: [{ dir: '.', isEntrypoint: true, references: [], filename: 'openapi.yaml', specification: petstore31 }],
      url: version.url,
      urls: { source: version.url, public: null },
    });
    const rows = await sql(t, 'select text from openapi_spec_text where spec_id = ?', [created.id]);
    expect(rows).toEqual([{ text }]);
    expect(await schedule(created.id)).toBeNull();
    // The workflow gets ids, never the text.
    const runs = [];
    for await (const run of t.temporal.workflow.list({
      query: `DocsOrganizationId = "${org.id}" AND DocsJobKind = "openapi-processing"`,
    })) {
      if (run.workflowId.startsWith(`openapi-processing/${created.id}/`)) runs.push(run);
    }
    for (const run of runs)
      expect(JSON.stringify(await t.temporal.workflow.getHandle(run.workflowId).fetchHistory())).not.toContain('Petstore 3.1');
  });
});

describe('processing failures', () => {
  const failure = async (slug: string, source: object) => {
    await createSpec(slug, source);
    const spec = await processed(slug);
    expect(spec.lastVersion).toBeUndefined();
    expect(spec.lastProcessedErrorCount).toBe(1);
    return { code: spec.lastProcessErrorCode, detail: spec.lastProcessedErrors[0].code, message: spec.lastProcessedErrors[0].message };
  };

  it('reports an invalid definition as PARSE_ERROR / INVALID_SPEC', async () => {
    expect(await failure('invalid', { url: `${fixtures.base}/invalid.json` })).toEqual({
      code: 'PARSE_ERROR',
      detail: 'INVALID_SPEC',
      message: expect.stringMatching(/info/),
    });
  });

  it('reports text that is neither JSON nor YAML as PARSE_ERROR / SYNTAX_ERROR', async () => {
    expect(await failure('garbage', { url: `${fixtures.base}/garbage.txt` })).toMatchObject({
      code: 'PARSE_ERROR',
      detail: 'SYNTAX_ERROR',
    });
    expect(await failure('garbage-text', { text: 'openapi: [' })).toMatchObject({ code: 'PARSE_ERROR', detail: 'SYNTAX_ERROR' });
  });

  it('reports a relative $ref in a text source and a missing referenced document', async () => {
    expect(
      await failure('relative-text', { text: 'openapi: 3.1.0\ninfo: {title: t, version: "1"}\npaths:\n  /x: {$ref: ./x.yaml}\n' }),
    ).toMatchObject({
      code: 'PARSE_ERROR',
      detail: 'UNRESOLVABLE_REF',
    });
    expect(await failure('split-broken', { url: `${fixtures.base}/split-broken/openapi.yaml` })).toMatchObject({
      code: 'FETCH_ERROR',
      detail: 'HTTP_ERROR',
      message: expect.stringMatching(/404/),
    });
  });

  it('reports a slow server as FETCH_TIMEOUT', async () => {
    expect(await failure('slow', { url: `${fixtures.base}/slow.json` })).toMatchObject({ code: 'FETCH_TIMEOUT', detail: 'FETCH_TIMEOUT' });
  });

  it('reports a body over FETCH_MAX_BYTES as FETCH_ERROR / TOO_LARGE', async () => {
    expect(await failure('huge', { url: `${fixtures.base}/huge.json` })).toMatchObject({ code: 'FETCH_ERROR', detail: 'TOO_LARGE' });
  });

  it('refuses a private address that is not on the allow list, without connecting and without retrying', async () => {
    const result = await failure('private', { url: 'http://10.1.2.3/openapi.json' });
    expect(result).toMatchObject({ code: 'FETCH_ERROR', detail: 'ADDRESS_NOT_ALLOWED' });
    expect(result.message).toMatch(/10\.1\.2\.3/);
  });

  it('reports a 404 as FETCH_ERROR / HTTP_ERROR and keeps the last good version', async () => {
    fixtures.docs.set('/moving.json', json(petstore30));
    await createSpec('moving', { url: `${fixtures.base}/moving.json` });
    const good = await processed('moving');
    fixtures.docs.delete('/moving.json');
    const put = await admin().put(`${specsPath()}/moving`, { source: { url: `${fixtures.base}/moving.json` } });
    expect(put.status).toBe(200);
    expect(put.body.processingState).toBe('pending');
    const failed = await processed('moving', good.lastProcessedAt);
    expect(failed).toMatchObject({ lastProcessErrorCode: 'FETCH_ERROR', lastVersion: good.lastVersion });
    expect(failed.lastProcessedErrors[0].code).toBe('HTTP_ERROR');
  });
});

describe('versions and the refresh schedule', () => {
  it('refreshes on schedule: unchanged content records no version, changed content one', async () => {
    fixtures.docs.set('/refresh.json', json(petstore30));
    const created = await createSpec('refreshing', { url: `${fixtures.base}/refresh.json` });
    const first = await processed('refreshing');

    const described = await schedule(created.id);
    expect(described).not.toBeNull();
    expect(described!.spec.intervals?.map((i) => i.every)).toEqual([t.config.openapiRefreshIntervalMs]);
    expect(described!.action).toMatchObject({
      type: 'startWorkflow',
      workflowType: 'openapiProcessing',
      args: [{ specId: created.id, organizationId: org.id, trigger: 'schedule' }],
    });
    const handle = t.temporal.schedule.getHandle(`openapi-refresh/${created.id}`);

    // Same content, reformatted as YAML with other key order: no new version.
    fixtures.docs.set(
      '/refresh.json',
      yaml({ components: petstore30.components, paths: petstore30.paths, info: petstore30.info, openapi: petstore30.openapi }),
    );
    const hitsBefore = fixtures.hits.get('/refresh.json') ?? 0;
    await triggerWhenIdle(handle);
    const second = await processed('refreshing', first.lastProcessedAt);
    expect(fixtures.hits.get('/refresh.json')).toBeGreaterThan(hitsBefore);
    expect(second.lastVersion).toBe(first.lastVersion);
    expect(second.lastProcessErrorCode).toBeUndefined();
    expect((await admin().get(`${specsPath()}/refreshing/versions`)).body.count).toBe(1);

    // Changed content: a new version, which becomes the latest.
    fixtures.docs.set('/refresh.json', json({ ...petstore30, info: { ...petstore30.info, version: '1.1.0' } }));
    await triggerWhenIdle(handle);
    const third = await processed('refreshing', second.lastProcessedAt);
    expect(third.lastVersion).not.toBe(first.lastVersion);
    const versions = (await admin().get(`${specsPath()}/refreshing/versions`)).body;
    expect(versions.count).toBe(2);
    expect(versions.items.map((v: { id: string }) => v.id)).toEqual([first.lastVersion, third.lastVersion]);
    expect((await admin().get(`${specsPath()}/refreshing/versions/latest`)).body.id).toBe(third.lastVersion);
    const old = (await admin().get(`${specsPath()}/refreshing/versions/${first.lastVersion}/content`)).body;
    expect(old.filesystem[0].specification).toMatchObject({ info: { version: '1.0.0' } });
  });

  it('updates the schedule when the source changes, removes it for a text source and on delete', async () => {
    const created = await createSpec('scheduled', { url: `${fixtures.base}/v30/openapi.json` });
    expect(await schedule(created.id)).not.toBeNull();
    await processed('scheduled');
    const handle = t.temporal.schedule.getHandle(`openapi-refresh/${created.id}`);
    await handle.pause('operator pause');
    // A source change keeps the schedule (still paused) and updates it.
    const put = await admin().put(`${specsPath()}/scheduled`, { source: { url: `${fixtures.base}/v31/openapi.yaml` } });
    expect(put.status).toBe(200);
    expect(put.body.sourceURL).toBe(`${fixtures.base}/v31/openapi.yaml`);
    expect((await schedule(created.id))!.state.paused).toBe(true);
    await handle.unpause();

    // Idempotent: creating the schedule again updates it.
    const again = await admin().put(`${specsPath()}/scheduled`, { source: { url: `${fixtures.base}/v31/openapi.yaml` } });
    expect(again.status).toBe(200);
    expect(await schedule(created.id)).not.toBeNull();

    expect((await admin().put(`${specsPath()}/scheduled`, { source: { text: yaml(petstore31).body } })).status).toBe(200);
    expect(await schedule(created.id)).toBeNull();
    expect((await admin().put(`${specsPath()}/scheduled`, { source: { url: `${fixtures.base}/v30/openapi.json` } })).status).toBe(200);
    expect(await schedule(created.id)).not.toBeNull();
    const done = await processed('scheduled');
    expect(done.lastVersion).toBeDefined();

    const deleted = await admin().delete(`${specsPath()}/scheduled`);
    expect(deleted.status).toBe(205);
    expect(await schedule(created.id)).toBeNull();
    expect((await admin().get(`${specsPath()}/scheduled`)).status).toBe(404);
    const left = await sql(
      t,
      `select (select count(*)::int from openapi_spec_version where spec_id = ?) as versions, (select count(*)::int from openapi_spec_text where spec_id = ?) as texts`,
      [created.id, created.id],
    );
    expect(left).toEqual([{ versions: 0, texts: 0 }]);
    expect((await admin().delete(`${specsPath()}/scheduled`)).status).toBe(204);
  });

  it('a schedule left behind by a deleted spec removes itself when it fires', async () => {
    const created = await createSpec('orphan', { url: `${fixtures.base}/v30/openapi.json` });
    await processed('orphan');
    await sql(t, 'delete from openapi_spec where id = ?', [created.id]);
    await t.temporal.schedule.getHandle(`openapi-refresh/${created.id}`).trigger();
    await eventually(async () => (await schedule(created.id)) === null);
  });

  it('PUT on a new slug creates the spec (201)', async () => {
    const res = await org.members.create.api.put(`${specsPath()}/put-created`, { source: { url: `${fixtures.base}/v30/openapi.json` } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ slug: 'put-created', processingState: 'pending', permissions: { view: true, edit: true } });
    expect((await processed('put-created')).lastVersion).toBeDefined();
    expect(await schedule(res.body.id)).not.toBeNull();
  });
});

describe('listing and pagination', () => {
  it('lists specs and versions in stable pages', async () => {
    const fresh = await createTestOrg(t, 'Paging OpenAPI org');
    const api = fresh.members.admin.api;
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await createSpec(`paged-${i}`, { text: JSON.stringify(petstore30) }, api, fresh.id)).id);
    const seen: string[] = [];
    let page: string | undefined;
    do {
      const res = await api.get(`${specsPath(fresh.id)}?limit=2${page ? `&page=${encodeURIComponent(page)}` : ''}`);
      expect(res.status).toBe(200);
      expect(res.body.count).toBe(5);
      expect(res.body.items.length).toBeLessThanOrEqual(2);
      seen.push(...res.body.items.map((s: { id: string }) => s.id));
      page = res.body.next?.page;
    } while (page);
    expect(seen).toEqual(ids);

    // Three versions of one spec, listed one per page.
    fixtures.docs.set('/paged.json', json(petstore30));
    await createSpec('paged-versions', { url: `${fixtures.base}/paged.json` }, api, fresh.id);
    let last = await processed('paged-versions', undefined, fresh.id, api);
    for (const version of ['2', '3']) {
      fixtures.docs.set('/paged.json', json({ ...petstore30, info: { ...petstore30.info, version } }));
      expect((await api.put(`${specsPath(fresh.id)}/paged-versions`, { source: { url: `${fixtures.base}/paged.json` } })).status).toBe(200);
      last = await processed('paged-versions', last.lastProcessedAt, fresh.id, api);
    }
    const first = (await api.get(`${specsPath(fresh.id)}/paged-versions/versions?limit=1`)).body;
    expect(first.count).toBe(3);
    expect(first.items).toHaveLength(1);
    const second = (await api.get(`${specsPath(fresh.id)}/paged-versions/versions?limit=1&page=${encodeURIComponent(first.next.page)}`))
      .body;
    const third = (await api.get(`${specsPath(fresh.id)}/paged-versions/versions?limit=2&page=${encodeURIComponent(second.next.page)}`))
      .body;
    expect(third.next).toBeUndefined();
    expect(new Set([first.items[0].id, second.items[0].id, third.items[0].id]).size).toBe(3);
    expect(third.items[0].id).toBe(last.lastVersion);
  });
});

describe('validation, authentication and authorization', () => {
  const slugPath = (slug = 'petstore', orgId = org.id) => `${specsPath(orgId)}/${slug}`;

  it('answers 400 naming the field', async () => {
    const bad: [object, RegExp][] = [
      [{ source: { url: 'https://example.com/a.json' } }, /slug/],
      [{ slug: 'Bad_Slug', source: { url: 'https://example.com/a.json' } }, /slug/],
      [{ slug: 'x'.repeat(101), source: { url: 'https://example.com/a.json' } }, /slug/],
      [{ slug: '-lead', source: { url: 'https://example.com/a.json' } }, /slug/],
      [{ slug: 'ok' }, /source/],
      [{ slug: 'ok', source: {} }, /source/],
      [{ slug: 'ok', source: { url: 'https://example.com/a.json', text: 'openapi: 3.1.0' } }, /source/],
      [{ slug: 'ok', source: { url: 'not a url' } }, /source\.url/],
      [{ slug: 'ok', source: { url: 'ftp://example.com/a.json' } }, /source\.url/],
      [{ slug: 'ok', source: { url: `https://example.com/${'a'.repeat(2048)}` } }, /source\.url/],
      [{ slug: 'ok', source: { text: '' } }, /source\.text/],
    ];
    for (const [body, field] of bad) {
      const res = await admin().post(specsPath(), body);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe(400);
      expect(res.body.error.message).toMatch(field);
    }
    expect((await admin().put(slugPath('ok'), {})).body.error.message).toMatch(/source/);
    expect((await admin().put(slugPath('Not_OK'), { source: { text: 'x' } })).body.error.message).toMatch(/specSlug/);
    expect((await admin().get(slugPath('Not_OK'))).status).toBe(400);
    expect((await admin().get(`${specsPath()}?limit=1001`)).body.error.message).toMatch(/limit/);
    expect((await admin().get(`${specsPath()}?page=garbage`)).body.error.message).toMatch(/page/);
    expect((await admin().get(`${slugPath()}/versions?limit=0`)).status).toBe(400);
  });

  it('answers 409 for a slug that exists in the organization, and allows it in another', async () => {
    const res = await admin().post(specsPath(), { slug: 'petstore', source: { url: `${fixtures.base}/v30/openapi.json` } });
    expect(res.status).toBe(409);
    expect(res.body.error.message).toMatch(/petstore/);
    expect(
      (await other.members.admin.api.post(specsPath(other.id), { slug: 'petstore', source: { text: JSON.stringify(petstore30) } })).status,
    ).toBe(201);
  });

  it('answers 401 without a token on every endpoint', async () => {
    const anonymous = client(t.app);
    const spec = (await admin().get(slugPath())).body;
    for (const [method, path] of endpoints(spec.lastVersion)) {
      const res = await call(anonymous, method, path);
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe(401);
    }
  });

  it('answers 404 for another organization, an unknown spec or an unknown version', async () => {
    const spec = (await admin().get(slugPath())).body;
    const stranger = other.members.admin.api;
    for (const [method, path] of endpoints(spec.lastVersion)) {
      const res = await call(stranger, method, path);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe(404);
    }
    for (const path of [
      'nope',
      'nope/versions',
      'nope/versions/latest',
      'nope/versions/latest/content',
      `nope/versions/${spec.lastVersion}`,
      `nope/versions/${spec.lastVersion}/content`,
    ]) {
      expect((await admin().get(slugPath(path))).status).toBe(404);
    }
    expect((await admin().get(slugPath(`petstore/versions/unknownversion`))).status).toBe(404);
    expect((await admin().get(slugPath(`petstore/versions/unknownversion/content`))).status).toBe(404);
    // A version of another spec is not found under this one.
    const split = (await admin().get(slugPath('split'))).body;
    expect((await admin().get(slugPath(`petstore/versions/${split.lastVersion}`))).status).toBe(404);
    // A spec without any version has no latest.
    await createSpec('never', { url: 'http://10.1.2.3/never.json' });
    await processed('never');
    expect((await admin().get(slugPath('never/versions/latest'))).status).toBe(404);
    expect((await admin().get(slugPath('never/versions/latest/content'))).status).toBe(404);
  });

  it('lets every member with a role read, and only create and admin write', async () => {
    const spec = (await admin().get(slugPath())).body;
    for (const role of ['admin', 'create', 'review', 'edit', 'comment', 'read'] as const) {
      const api = org.members[role].api;
      for (const [method, path] of endpoints(spec.lastVersion).filter(([m]) => m === 'GET')) {
        expect((await call(api, method, path)).status).toBe(200);
      }
      const listed = (await api.get(specsPath())).body.items.find((s: { id: string }) => s.id === spec.id);
      expect(listed.permissions).toEqual({ view: true, edit: role === 'admin' || role === 'create' });
    }
    for (const [method, path] of endpoints(spec.lastVersion).filter(([m]) => m === 'GET')) {
      const res = await call(org.members.guest.api, method, path);
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe(403);
    }
    for (const role of ['review', 'edit', 'comment', 'read', 'guest'] as const) {
      const api = org.members[role].api;
      expect((await api.post(specsPath(), { slug: `by-${role}`, source: { text: 'openapi: 3.1.0' } })).status).toBe(403);
      expect((await api.put(slugPath(), { source: { url: `${fixtures.base}/v30/openapi.json` } })).status).toBe(403);
      expect((await api.delete(slugPath())).status).toBe(403);
    }
    expect(
      (await org.members.create.api.post(specsPath(), { slug: 'by-create', source: { text: JSON.stringify(petstore30) } })).status,
    ).toBe(201);
    expect((await org.members.create.api.delete(slugPath('by-create'))).status).toBe(205);
  });
});

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

function endpoints(versionId: string): [Method, string][] {
  const spec = `${specsPath()}/petstore`;
  return [
    ['GET', specsPath()],
    ['POST', specsPath()],
    ['GET', spec],
    ['PUT', spec],
    ['DELETE', spec],
    ['GET', `${spec}/versions`],
    ['GET', `${spec}/versions/latest`],
    ['GET', `${spec}/versions/latest/content`],
    ['GET', `${spec}/versions/${versionId}`],
    ['GET', `${spec}/versions/${versionId}/content`],
  ];
}

function call(api: Api, method: Method, path: string) {
  const body = { slug: 'petstore-x', source: { url: 'https://example.com/openapi.json' } };
  if (method === 'GET') return api.get(path);
  if (method === 'POST') return api.post(path, body);
  if (method === 'PUT') return api.put(path, { source: body.source });
  return api.delete(path);
}

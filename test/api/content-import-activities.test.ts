import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { contentImportActivities, type ContentImportInput } from '../../src/activities/content-import.ts';
import { loadConfig } from '../../src/config.ts';
import { newId } from '../../src/domain/ids.ts';
import { LocalBlobStore } from '../../src/lib/blob-store.ts';
import { fetchPolicyFromEnv } from '../../src/lib/guarded-fetch.ts';
import { secretBox } from '../../src/lib/secrets.ts';
import { createTestOrg, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { PNG, startImportFixtures, zipOf, type ImportFixtures } from '../support/import-fixtures.ts';

/**
 * The import activities called directly, as a retry or a reset from the Temporal UI would call
 * them again, on the real database: however often they run, one revision.
 */
let t: TestApp;
let org: TestOrg;
let fx: ImportFixtures;
let blobDir: string;
let activities: ReturnType<typeof contentImportActivities>;

beforeAll(async () => {
  t = await startTestApp();
  org = await createTestOrg(t, 'Import activities org');
  fx = await startImportFixtures();
  fx.routes.set('/a.zip', {
    type: 'application/zip',
    body: zipOf({ 'README.md': '# Home\n\n![p](p.png)\n', 'next.md': '# Next\n', 'p.png': PNG }),
  });
  blobDir = mkdtempSync(join(tmpdir(), 'import-blobs-'));
  const box = secretBox(Buffer.alloc(32, 7));
  activities = contentImportActivities(t.orm, {
    blobs: new LocalBlobStore(blobDir),
    policy: fetchPolicyFromEnv({ FETCH_ALLOW_HOSTS: '127.0.0.1' }),
    limits: loadConfig({}).contentImport,
    secrets: async () => box,
  });
});
afterAll(async () => {
  await fx?.close();
  await t?.close();
  rmSync(blobDir, { recursive: true, force: true });
});

const run = (query: string, params: unknown[] = []) => t.orm.em.fork().getConnection().execute(query, params);

describe('content import activities', () => {
  it('write one revision however often reading and writing are retried', async () => {
    const space = await org.members.admin.api.post(`/v1/orgs/${org.id}/spaces`, { title: 'Retried' });
    const input: ContentImportInput = {
      spaceId: space.body.id,
      changeRequestId: null,
      source: 'zip',
      url: `${fx.base}/a.zip`,
      revisionId: newId(),
      userId: org.members.admin.userId,
    };
    const first = await activities.readContentImport(input);
    const again = await activities.readContentImport(input);
    expect(first).toMatchObject({ status: 'read', pages: 2, files: 1 });
    expect(again).toMatchObject({ status: 'read', pages: 2, files: 1 });
    if (first.status !== 'read' || again.status !== 'read') throw new Error('not read');
    const written = await activities.applyContentImport({ ...input, bundle: first.bundle });
    expect(written).toEqual({ status: 'imported', revision: input.revisionId, importedResources: 3, totalResources: 3 });
    // A retry after the write (even with the other read's bundle) returns the same revision and writes nothing.
    expect(await activities.applyContentImport({ ...input, bundle: again.bundle })).toEqual(written);
    expect(await activities.applyContentImport({ ...input, bundle: first.bundle })).toEqual(written);
    const revisions = await run('select id from revision where space_id = ?', [space.body.id]);
    expect(revisions).toHaveLength(2); // the first revision of the space and the import
    const pages = await run('select page_id from revision_page where revision_id = ?', [input.revisionId]);
    expect(pages).toHaveLength(2);
    expect((await run('select revision_id from space where id = ?', [space.body.id]))[0].revision_id).toBe(input.revisionId);
  });

  it('refuse a locked space and a missing target, and report a refused source without throwing', async () => {
    const space = await org.members.admin.api.post(`/v1/orgs/${org.id}/spaces`, { title: 'Locked', editMode: 'locked' });
    const input: ContentImportInput = {
      spaceId: space.body.id,
      changeRequestId: null,
      source: 'zip',
      url: `${fx.base}/a.zip`,
      revisionId: newId(),
      userId: org.members.admin.userId,
    };
    const read = await activities.readContentImport(input);
    if (read.status !== 'read') throw new Error('not read');
    expect(await activities.applyContentImport({ ...input, bundle: read.bundle })).toEqual({ status: 'refused', reason: 'locked' });
    expect(await activities.applyContentImport({ ...input, spaceId: 'missing', bundle: read.bundle })).toEqual({
      status: 'refused',
      reason: 'not-found',
    });
    const refused = await activities.readContentImport({ ...input, url: `http://localhost:${fx.port}/a.zip` });
    expect(refused).toMatchObject({ status: 'failed', code: 'ADDRESS_NOT_ALLOWED' });
  });
});

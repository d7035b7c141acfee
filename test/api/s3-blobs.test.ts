import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { recordPdfExport } from '../../src/db/pdf-export.ts';
import { blobStoreFor, sha256 } from '../../src/lib/blob-store.ts';
import { createTestOrg, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { newChangeRequest, newSpace, postChanges } from '../support/fixtures.ts';
import { startMinio, type TestMinio } from '../support/minio.ts';

/** The API with BLOB_STORE=s3 against a real MinIO: files and PDFs go to the bucket and come back by redirect or stream. */
let minio: TestMinio;
let t: TestApp;
let streamed: TestApp;
let org: TestOrg;

beforeAll(async () => {
  minio = await startMinio();
  t = await startTestApp(minio.env);
  streamed = await startTestApp({ ...minio.env, S3_DOWNLOADS: 'stream' });
  org = await createTestOrg(t, 'S3 org');
}, 90_000);
afterAll(async () => {
  await t?.close();
  await streamed?.close();
  await minio?.stop();
});

const admin = () => org.members.admin.api;
const get = (app: TestApp, url: string, token?: string) =>
  app.app.inject({ url, headers: token ? { authorization: `Bearer ${token}` } : {} });

describe('files in an S3 blob store', () => {
  it('stores an inserted file in the bucket and serves it by redirect to a presigned URL, or streamed', async () => {
    const s = await newSpace(admin(), org.id);
    const cr = await newChangeRequest(admin(), s.id);
    const bytes = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>\n'.repeat(50));
    const res = await postChanges(admin(), s.id, cr.id, [
      { operation: 'insert_files', files: [{ name: 'shape.svg', contentType: 'image/svg+xml', base64: bytes.toString('base64') }] },
    ]);
    expect(res.status).toBe(200);
    const file = res.body.insertedFiles[0];
    expect(file).toMatchObject({ name: 'shape.svg', size: bytes.length });
    expect(await blobStoreFor(t.config).has(sha256(bytes))).toBe(true);

    const path = new URL(file.downloadURL).pathname;
    const redirect = await get(t, path, org.members.read.token);
    expect(redirect.statusCode).toBe(302);
    expect(redirect.headers['cache-control']).toBe('private, no-store');
    const location = String(redirect.headers.location);
    expect(location.startsWith(`${minio.endpoint}/${minio.bucket}/`)).toBe(true);
    const fromBucket = await fetch(location);
    expect(fromBucket.status).toBe(200);
    expect(fromBucket.headers.get('content-type')).toBe('image/svg+xml');
    expect(fromBucket.headers.get('content-disposition')).toContain('shape.svg');
    expect(Buffer.from(await fromBucket.arrayBuffer()).equals(bytes)).toBe(true);

    const direct = await get(streamed, path, org.members.read.token);
    expect(direct.statusCode).toBe(200);
    expect(direct.headers['content-type']).toBe('image/svg+xml');
    expect(direct.headers['content-length']).toBe(String(bytes.length));
    expect(direct.headers['x-content-type-options']).toBe('nosniff');
    expect(direct.rawPayload.equals(bytes)).toBe(true);

    // Access is checked before any URL is given.
    expect((await get(t, path)).statusCode).toBe(401);
    const other = await createTestOrg(t, 'Elsewhere');
    const foreign = await get(t, path, other.members.admin.token);
    expect(foreign.statusCode).toBe(404);
    expect(foreign.headers.location).toBeUndefined();
  });

  it("answers a site visitor a signed link that needs no header and redirects to the bucket's presigned URL", async () => {
    const s = await newSpace(admin(), org.id);
    const cr = await newChangeRequest(admin(), s.id);
    const bytes = Buffer.from('published bytes\n'.repeat(20));
    const res = await postChanges(admin(), s.id, cr.id, [
      { operation: 'insert_files', files: [{ name: 'notes.txt', contentType: 'text/plain', base64: bytes.toString('base64') }] },
    ]);
    const fileId = res.body.insertedFiles[0].id;
    expect((await admin().post(`/v1/spaces/${s.id}/change-requests/${cr.id}/merge`)).body.result).toBe('merge');
    const site = (await admin().post(`/v1/orgs/${org.id}/sites`, { title: 'Bucket site', spaces: [s.id] })).body;
    expect((await admin().post(`/v1/orgs/${org.id}/sites/${site.id}/publish`)).status).toBe(200);
    const lookup = await admin().post('/v1/urls/published', { url: `${t.config.sitesUrl}/${org.id}/${site.id}/` });
    const file = await get(t, `/v1/spaces/${s.id}/content/files/${fileId}`, lookup.body.apiToken);
    const signed = new URL(file.json().downloadURL);
    expect(signed.pathname).toBe(`/files/${s.id}/${fileId}/download`);
    const redirect = await get(t, `${signed.pathname}${signed.search}`);
    expect(redirect.statusCode).toBe(302);
    const location = String(redirect.headers.location);
    expect(location.startsWith(`${minio.endpoint}/${minio.bucket}/`)).toBe(true);
    const fromBucket = await fetch(location);
    expect(fromBucket.status).toBe(200);
    expect(Buffer.from(await fromBucket.arrayBuffer()).equals(bytes)).toBe(true);
    // A changed signature gets no presigned URL.
    signed.searchParams.set('signature', 'forged');
    const forged = await get(t, `${signed.pathname}${signed.search}`);
    expect(forged.statusCode).toBe(403);
    expect(forged.headers.location).toBeUndefined();
  });

  it('serves a PDF link by redirect to the bucket, and 404 once its bytes are gone', async () => {
    const s = await newSpace(admin(), org.id);
    const cr = await newChangeRequest(admin(), s.id);
    const pdf = Buffer.from('%PDF-1.4\n% a PDF recorded for this change request\n%%EOF\n');
    const hash = await blobStoreFor(t.config).put(pdf);
    const revisionId = (await admin().get(`/v1/spaces/${s.id}/change-requests/${cr.id}`)).body.revision;
    await recordPdfExport(
      t.orm.em.fork(),
      { spaceId: s.id, changeRequestId: cr.id, revisionId, only: false, pageId: null },
      { sha256: hash, size: pdf.length, pageCount: 1 },
      null,
    );
    const link = await admin().get(`/v1/spaces/${s.id}/change-requests/${cr.id}/pdf`);
    expect(link.status).toBe(200);
    const url = new URL(link.body.url);
    const answer = await get(t, url.pathname + url.search);
    expect(answer.statusCode).toBe(302);
    const fromBucket = await fetch(String(answer.headers.location));
    expect(fromBucket.status).toBe(200);
    expect(fromBucket.headers.get('content-type')).toBe('application/pdf');
    expect(fromBucket.headers.get('content-disposition')).toMatch(/\.pdf/);
    expect(Buffer.from(await fromBucket.arrayBuffer()).equals(pdf)).toBe(true);

    const direct = await get(streamed, url.pathname + url.search);
    expect(direct.statusCode).toBe(200);
    expect(direct.headers['content-type']).toBe('application/pdf');
    expect(direct.rawPayload.equals(pdf)).toBe(true);

    const tampered = await get(t, url.pathname + url.search.replace(/signature=./, 'signature=0'));
    expect([403]).toContain(tampered.statusCode);
    const unknown = sha256('no such pdf');
    const missing = await get(t, `/pdf/${unknown}?expires=${url.searchParams.get('expires')}&signature=x`);
    expect(missing.statusCode).toBe(403);
  });
});

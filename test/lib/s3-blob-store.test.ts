import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { loadConfig, type ConfigError } from '../../src/config.ts';
import { blobStoreFor, LocalBlobStore, sha256 } from '../../src/lib/blob-store.ts';
import { sharedServices } from '../../src/lib/shared-services.ts';
import { startMinio, type TestMinio } from '../support/minio.ts';

/** The S3 blob store against a real MinIO server. */
let minio: TestMinio;
beforeAll(async () => {
  minio = await startMinio();
}, 90_000);
afterAll(async () => {
  await minio?.stop();
});

const storeOf = (env: Record<string, string> = {}) => blobStoreFor(loadConfig({ ...minio.env, ...env }));

/** `total` pseudo-random bytes in chunks of 64 KiB, never held whole. */
function generated(total: number, seed: number): Readable {
  let sent = 0;
  return new Readable({
    read() {
      if (sent >= total) return this.push(null);
      const size = Math.min(65_536, total - sent);
      const chunk = Buffer.alloc(size, (sent / 65_536 + seed) % 251);
      chunk.writeUInt32BE(sent, 0);
      sent += size;
      this.push(chunk);
    },
  });
}

async function hashOf(body: Readable): Promise<{ hash: string; size: number }> {
  const hasher = createHash('sha256');
  let size = 0;
  for await (const chunk of body) {
    hasher.update(chunk as Buffer);
    size += (chunk as Buffer).length;
  }
  return { hash: hasher.digest('hex'), size };
}

describe('S3 blob store', () => {
  it('is the store the configuration selects, and the local one by default', () => {
    expect(storeOf()).not.toBeInstanceOf(LocalBlobStore);
    const config = loadConfig(minio.env);
    // A process builds its store once, with its other shared services: the one the configuration selects.
    expect(sharedServices(config).blobs).not.toBeInstanceOf(LocalBlobStore);
    expect(sharedServices(loadConfig({ BLOB_DIR: '/tmp/x' })).blobs).toBeInstanceOf(LocalBlobStore);
    expect(blobStoreFor(loadConfig({ BLOB_DIR: '/tmp/x' }))).toBeInstanceOf(LocalBlobStore);
  });

  it('puts bytes under their sha256, tells whether it has them, and reads them back', async () => {
    const store = storeOf();
    const bytes = randomBytes(1000);
    const hash = await store.put(bytes);
    expect(hash).toBe(sha256(bytes));
    expect(await store.has(hash)).toBe(true);
    expect((await store.get(hash))!.equals(bytes)).toBe(true);
    const opened = await store.open(hash);
    expect(opened!.size).toBe(1000);
    expect((await hashOf(opened!.body)).hash).toBe(hash);
  });

  it('puts the same content twice as one blob (idempotent)', async () => {
    const store = storeOf();
    const bytes = Buffer.from('same bytes twice');
    const first = await store.put(bytes);
    expect(await store.put(Buffer.from(bytes))).toBe(first);
    expect(await store.putStream(Readable.from([bytes]))).toBe(first);
    expect((await store.get(first))!.toString()).toBe('same bytes twice');
  });

  it('answers null and false for a blob it does not have', async () => {
    const store = storeOf();
    const absent = sha256('never stored');
    expect(await store.has(absent)).toBe(false);
    expect(await store.get(absent)).toBeNull();
    expect(await store.open(absent)).toBeNull();
  });

  it('streams a blob larger than one part up in parts and back down', async () => {
    const store = storeOf();
    const total = 20 * 1024 * 1024 + 12_345;
    const expected = await hashOf(generated(total, 7));
    const hash = await store.putStream(generated(total, 7));
    expect(hash).toBe(expected.hash);
    const opened = await store.open(hash);
    expect(opened!.size).toBe(total);
    expect(await hashOf(opened!.body)).toEqual({ hash, size: total });
    // The same stream again is the same blob.
    expect(await store.putStream(generated(total, 7))).toBe(hash);
  }, 60_000);

  it('gives a presigned URL that downloads the blob with the headers asked for', async () => {
    const store = storeOf();
    const bytes = Buffer.from('%PDF-1.4 presigned');
    const hash = await store.put(bytes);
    const url = await store.downloadUrl(hash, {
      contentType: 'application/pdf',
      contentDisposition: 'attachment; filename="report.pdf"',
      expiresIn: 60,
    });
    expect(url).toMatch(new RegExp(`^${minio.endpoint}/${minio.bucket}/`));
    expect(url).toContain('X-Amz-Signature=');
    const res = await fetch(url!);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="report.pdf"');
    expect(Buffer.from(await res.arrayBuffer()).equals(bytes)).toBe(true);
    // Tampering with the signature is refused by the store.
    expect((await fetch(url!.replace(/X-Amz-Signature=[0-9a-f]/, 'X-Amz-Signature=z'))).status).toBe(403);
  });

  it('gives no URL when downloads are streamed through the API', async () => {
    const store = storeOf({ S3_DOWNLOADS: 'stream' });
    const hash = await store.put(Buffer.from('streamed'));
    expect(await store.downloadUrl(hash, { contentType: 'text/plain', contentDisposition: 'inline', expiresIn: 60 })).toBeNull();
  });

  it('fails clearly when the bucket does not exist', async () => {
    const store = storeOf({ S3_BUCKET: 'no-such-bucket' });
    await expect(store.put(Buffer.from('x'))).rejects.toThrow();
  });
});

describe('S3 configuration', () => {
  const problems = (env: Record<string, string>) => {
    try {
      loadConfig(env);
      return [];
    } catch (error) {
      return (error as ConfigError).problems;
    }
  };

  it('reads BLOB_STORE and S3_* with their defaults', () => {
    const config = loadConfig({ BLOB_STORE: 's3', S3_BUCKET: 'docs', S3_ENDPOINT: 'http://minio:9000' });
    expect(config.s3).toEqual({
      endpoint: 'http://minio:9000',
      bucket: 'docs',
      region: 'us-east-1',
      accessKeyId: undefined,
      secretAccessKey: undefined,
      forcePathStyle: true,
      downloads: 'redirect',
    });
    expect(loadConfig({}).s3).toBeUndefined();
    expect(loadConfig({ BLOB_STORE: 's3', S3_BUCKET: 'docs' }).s3!.forcePathStyle).toBe(false);
  });

  it('reports every bad value at once, never printing a secret', () => {
    const found = problems({
      BLOB_STORE: 's3',
      S3_ENDPOINT: 'ftp://user:hunter2@x',
      S3_BUCKET: 'Bad_Bucket',
      S3_SECRET_ACCESS_KEY: 'super-secret-value',
      S3_FORCE_PATH_STYLE: 'maybe',
      S3_DOWNLOADS: 'sometimes',
    });
    expect(found).toEqual([
      expect.stringMatching(/^S3_ENDPOINT=.* must be an http:\/\/ or https:\/\/ URL/),
      expect.stringMatching(/^S3_BUCKET="Bad_Bucket" must be a bucket name/),
      expect.stringMatching(/^S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY are set together/),
      expect.stringMatching(/^S3_FORCE_PATH_STYLE="maybe"/),
      expect.stringMatching(/^S3_DOWNLOADS="sometimes"/),
    ]);
    expect(found.join('\n')).not.toMatch(/hunter2|super-secret-value/);
    expect(problems({ BLOB_STORE: 'ftp' })).toEqual(['BLOB_STORE="ftp" must be local or s3']);
    expect(problems({ BLOB_STORE: 's3' })).toEqual(['S3_BUCKET is required when BLOB_STORE=s3']);
  });
});

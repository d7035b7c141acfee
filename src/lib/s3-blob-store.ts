import { createHash, randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { S3Config } from '../config.ts';
import { blobKey, sha256, type BlobRegistrar, type BlobStream, type CollectedBlobStore, type DownloadOptions } from './blob-keys.ts';

/** The S3 client of a configured store (the blob store's, and the backup's listing of it). */
export function s3Client(config: S3Config): S3Client {
  return new S3Client({
    endpoint: config.endpoint,
    region: config.region,
    forcePathStyle: config.forcePathStyle,
    credentials:
      config.accessKeyId && config.secretAccessKey
        ? { accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey }
        : undefined,
    // Checksums only when an operation requires them: S3-compatible stores differ in what they accept.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

/** Parts of a multipart upload (S3's minimum part is 5 MiB; the last may be smaller). */
const PART_SIZE = 8 * 1024 * 1024;

function isNotFound(error: unknown): boolean {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e?.name === 'NotFound' || e?.name === 'NoSuchKey' || e?.$metadata?.httpStatusCode === 404;
}

/**
 * Any S3-compatible object store: blobs are objects `ab/cd/abcd…` in one bucket. Bytes in memory
 * are put with their length; streams go up in parts (at most one part in memory) under a temporary
 * key, then are copied to their sha256 key once it is known. With a registry, every write registers
 * the blob before it checks for the object and writes it.
 */
export class S3BlobStore implements CollectedBlobStore {
  private readonly client: S3Client;
  private readonly bucket: string;
  private readonly redirect: boolean;
  private readonly registry: BlobRegistrar | undefined;

  constructor(config: S3Config, registry?: BlobRegistrar) {
    this.bucket = config.bucket;
    this.redirect = config.downloads === 'redirect';
    this.client = s3Client(config);
    this.registry = registry;
  }

  async put(bytes: Buffer): Promise<string> {
    const hash = sha256(bytes);
    // Registered first, checked after: never the other way round (docs/operations.md, "Deleting blobs").
    await this.registry?.register(hash, bytes.length);
    if (await this.has(hash)) return hash;
    await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: blobKey(hash), Body: bytes, ContentLength: bytes.length }));
    return hash;
  }

  async putStream(body: Readable): Promise<string> {
    const temporary = `incoming/${randomUUID()}`;
    const hasher = createHash('sha256');
    let uploadId: string | undefined;
    const parts: { ETag: string; PartNumber: number }[] = [];
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    let size = 0;
    const flush = async () => {
      const chunk = Buffer.concat(pending, pendingBytes);
      pending = [];
      pendingBytes = 0;
      if (uploadId === undefined) {
        const created = await this.client.send(new CreateMultipartUploadCommand({ Bucket: this.bucket, Key: temporary }));
        uploadId = created.UploadId!;
      }
      const PartNumber = parts.length + 1;
      const answer = await this.client.send(
        new UploadPartCommand({
          Bucket: this.bucket,
          Key: temporary,
          UploadId: uploadId,
          PartNumber,
          Body: chunk,
          ContentLength: chunk.length,
        }),
      );
      parts.push({ ETag: answer.ETag!, PartNumber });
    };
    try {
      for await (const data of body) {
        const chunk = Buffer.isBuffer(data) ? data : Buffer.from(data as Uint8Array);
        hasher.update(chunk);
        size += chunk.length;
        pending.push(chunk);
        pendingBytes += chunk.length;
        if (pendingBytes >= PART_SIZE) await flush();
      }
      const hash = hasher.digest('hex');
      if (uploadId === undefined) {
        // Smaller than one part: it is in memory already, put it whole under its final key.
        return await this.put(Buffer.concat(pending, pendingBytes));
      }
      if (pendingBytes > 0) await flush();
      await this.client.send(
        new CompleteMultipartUploadCommand({ Bucket: this.bucket, Key: temporary, UploadId: uploadId, MultipartUpload: { Parts: parts } }),
      );
      uploadId = undefined;
      await this.registry?.register(hash, size);
      if (!(await this.has(hash))) {
        await this.client.send(
          new CopyObjectCommand({ Bucket: this.bucket, Key: blobKey(hash), CopySource: `${this.bucket}/${temporary}` }),
        );
      }
      return hash;
    } finally {
      if (uploadId !== undefined) {
        await this.client
          .send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: temporary, UploadId: uploadId }))
          .catch(() => {});
      }
      if (parts.length > 0) await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: temporary })).catch(() => {});
    }
  }

  async get(hash: string): Promise<Buffer | null> {
    const blob = await this.open(hash);
    if (!blob) return null;
    const chunks: Buffer[] = [];
    for await (const chunk of blob.body) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }

  async open(hash: string): Promise<BlobStream | null> {
    try {
      const answer = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: blobKey(hash) }));
      return { body: answer.Body as Readable, size: answer.ContentLength ?? 0 };
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  async has(hash: string): Promise<boolean> {
    try {
      await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: blobKey(hash) }));
      return true;
    } catch (error) {
      if (isNotFound(error)) return false;
      throw error;
    }
  }

  async delete(hash: string): Promise<void> {
    // S3 answers 204 for a key that does not exist.
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: blobKey(hash) }));
  }

  async downloadUrl(hash: string, options: DownloadOptions): Promise<string | null> {
    if (!this.redirect) return null;
    const command = new GetObjectCommand({
      Bucket: this.bucket,
      Key: blobKey(hash),
      ResponseContentType: options.contentType,
      ResponseContentDisposition: options.contentDisposition,
    });
    return getSignedUrl(this.client, command, { expiresIn: Math.max(1, Math.min(options.expiresIn, 7 * 86_400)) });
  }
}

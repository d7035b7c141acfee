import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';

/**
 * What every blob store shares: the interface, how bytes are hashed, and where a hash lives.
 * The stores (blob-store.ts, s3-blob-store.ts) import it; blob-store.ts re-exports it.
 */

/** The bytes of one blob, read as a stream; `size` in bytes. */
export interface BlobStream {
  body: Readable;
  size: number;
}

/** How a download's answer should look when the store serves it directly (a presigned URL). */
export interface DownloadOptions {
  contentType: string;
  contentDisposition: string;
  /** Seconds the URL works. */
  expiresIn: number;
}

/** Where file bytes live, addressed by their sha256 so identical bytes are stored once. */
export interface BlobStore {
  /** Stores bytes already in memory; answers their sha256. */
  put(bytes: Buffer): Promise<string>;
  /** Stores a stream without holding it whole in memory; answers its sha256. */
  putStream(body: Readable): Promise<string>;
  /** The whole blob in memory: only for blobs known to be small (bundles, images to inline). */
  get(sha256: string): Promise<Buffer | null>;
  /** The blob as a stream, or null when absent. */
  open(sha256: string): Promise<BlobStream | null>;
  has(sha256: string): Promise<boolean>;
  /**
   * A URL the client may download the blob from directly, or null when downloads are streamed
   * through the API (the local store, or S3 with `S3_DOWNLOADS=stream`).
   */
  downloadUrl(sha256: string, options: DownloadOptions): Promise<string | null>;
}

/**
 * A store the service collects from (docs/operations.md, "Deleting blobs"): only the collection
 * deletes, and only a blob whose registry row it holds locked (src/db/blobs.ts).
 */
export interface CollectedBlobStore extends BlobStore {
  /** Deletes the blob's object; an absent one is fine. */
  delete(sha256: string): Promise<void>;
}

/**
 * Where a store registers a blob before writing it (src/db/blobs.ts): committed before the store
 * checks for the object and writes it when missing, so a collection racing the write either sees
 * the fresh registration and keeps the blob, or has deleted it and the write puts it back.
 */
export interface BlobRegistrar {
  register(sha256: string, size: number): Promise<void>;
}

export function sha256(bytes: Buffer | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** `ab/cd/abcd…`: the path of a blob under the local directory or the bucket. */
export function blobKey(hash: string): string {
  if (!/^[0-9a-f]{64}$/.test(hash)) throw new Error('not a sha256');
  return `${hash.slice(0, 2)}/${hash.slice(2, 4)}/${hash}`;
}

import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Config, S3Config } from '../config.ts';

import { blobKey, sha256, type BlobRegistrar, type BlobStream, type CollectedBlobStore } from './blob-keys.ts';

export {
  blobKey,
  sha256,
  type BlobRegistrar,
  type BlobStore,
  type BlobStream,
  type CollectedBlobStore,
  type DownloadOptions,
} from './blob-keys.ts';

/**
 * The store the configuration selects (`BLOB_STORE`). A process builds it once
 * (lib/shared-services.ts), with the registry every write registers in first.
 */
export function blobStoreFor(config: Config, registry?: BlobRegistrar): CollectedBlobStore {
  return config.s3 ? lazyS3BlobStore(config.s3, registry) : new LocalBlobStore(config.blobDir, registry);
}

/**
 * A local directory: `<dir>/ab/cd/abcd…`. Writes are atomic (temporary file, then rename). With a
 * registry, every write registers the blob before it checks for the file and writes it.
 */
export class LocalBlobStore implements CollectedBlobStore {
  private readonly dir: string;
  private readonly registry: BlobRegistrar | undefined;
  constructor(dir: string, registry?: BlobRegistrar) {
    this.dir = dir;
    this.registry = registry;
  }

  private path(hash: string): string {
    return join(this.dir, ...blobKey(hash).split('/'));
  }

  async put(bytes: Buffer): Promise<string> {
    const hash = sha256(bytes);
    const target = this.path(hash);
    // Registered first, checked after: never the other way round (docs/operations.md, "Deleting blobs").
    await this.registry?.register(hash, bytes.length);
    if (await this.has(hash)) return hash;
    await mkdir(dirname(target), { recursive: true });
    const temporary = `${target}.${process.pid}.${randomUUID()}.tmp`;
    await writeFile(temporary, bytes);
    await rename(temporary, target);
    return hash;
  }

  async putStream(body: Readable): Promise<string> {
    const incoming = join(this.dir, 'incoming');
    await mkdir(incoming, { recursive: true });
    const temporary = join(incoming, `${process.pid}.${randomUUID()}.tmp`);
    const hasher = createHash('sha256');
    let size = 0;
    try {
      await pipeline(
        body,
        async function* (chunks: AsyncIterable<Buffer>) {
          for await (const chunk of chunks) {
            hasher.update(chunk);
            size += chunk.length;
            yield chunk;
          }
        },
        createWriteStream(temporary),
      );
      const hash = hasher.digest('hex');
      await this.registry?.register(hash, size);
      const target = this.path(hash);
      await mkdir(dirname(target), { recursive: true });
      await rename(temporary, target);
      return hash;
    } finally {
      await rm(temporary, { force: true });
    }
  }

  async get(hash: string): Promise<Buffer | null> {
    try {
      return await readFile(this.path(hash));
    } catch {
      return null;
    }
  }

  async open(hash: string): Promise<BlobStream | null> {
    const path = this.path(hash);
    try {
      const { size } = await stat(path);
      return { body: createReadStream(path), size };
    } catch {
      return null;
    }
  }

  async has(hash: string): Promise<boolean> {
    try {
      await stat(this.path(hash));
      return true;
    } catch {
      return false;
    }
  }

  async downloadUrl(): Promise<string | null> {
    return null;
  }

  async delete(hash: string): Promise<void> {
    await rm(this.path(hash), { force: true });
  }
}

/** The S3 store, its SDK loaded on first use: a process on the local store never loads it. */
function lazyS3BlobStore(config: S3Config, registry?: BlobRegistrar): CollectedBlobStore {
  let loaded: Promise<CollectedBlobStore> | undefined;
  const store = () => (loaded ??= import('./s3-blob-store.ts').then((m) => new m.S3BlobStore(config, registry)));
  return {
    put: async (bytes) => (await store()).put(bytes),
    putStream: async (body) => (await store()).putStream(body),
    get: async (hash) => (await store()).get(hash),
    open: async (hash) => (await store()).open(hash),
    has: async (hash) => (await store()).has(hash),
    downloadUrl: async (hash, options) => (await store()).downloadUrl(hash, options),
    delete: async (hash) => (await store()).delete(hash),
  };
}

import { pipeline, Transform, type Readable } from 'node:stream';
import { imageDimensions } from '../domain/files.ts';
import type { BlobStore } from '../lib/blob-store.ts';
import { catFileBatch, type BatchBlob } from '../lib/git-cli.ts';

/**
 * Git Sync's file storing: the blobs of a commit go from one `git cat-file --batch` to the blob
 * store as git reads them, a few at a time, while the caller goes on (reading the pages). Each
 * blob's bytes are read once: a small one into one buffer that is hashed, measured and written
 * (`put`, which skips bytes the store has); a large one streamed to the store, its dimensions
 * read from its first bytes. Memory is bounded by IN_FLIGHT_BYTES whatever the files' sizes.
 */

/** What storing one blob gave; dimensions only when asked for (an image) and readable. */
export interface StoredBlob {
  sha256: string;
  size: number;
  width: number | null;
  height: number | null;
}

export interface BlobToStore {
  oid: string;
  /** Whether to read its dimensions (some file of these bytes is named as an image). */
  image: boolean;
}

/**
 * Blobs up to this size are read whole into memory; larger ones are streamed. Screenshots and GIFs
 * of documentation (up to a few MB) are read whole: git goes straight on to the next blob while one
 * is written, where a stream holds git until the store has taken all but its buffer.
 */
const IN_MEMORY = 4 * 1024 * 1024;
/** At most this many blobs are being stored at once (the store's writes overlap git's reading)… */
const CONCURRENCY = 4;
/** …holding at most this many bytes between them (a stream counts for its buffer). */
const IN_FLIGHT_BYTES = 32 * 1024 * 1024;
const STREAM_WEIGHT = 2 * 1024 * 1024;
/** The first bytes of a streamed image, which its dimensions are read from… */
const HEAD_BYTES = 512 * 1024;
/** …and images up to this size are read back whole when those do not tell (as a small image is measured). */
const MEASURE_WHOLE = 10 * 1024 * 1024;

const NO_SIZE = { width: null, height: null };

async function storeOne(store: BlobStore, blob: BatchBlob, image: boolean): Promise<StoredBlob> {
  if (blob.bytes) {
    const sha256 = await store.put(blob.bytes);
    return { sha256, size: blob.size, ...(image ? imageDimensions(blob.bytes) : NO_SIZE) };
  }
  const head: Buffer[] = [];
  let headBytes = 0;
  const measuring = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      if (image && headBytes < HEAD_BYTES) {
        const part = Buffer.from(chunk.subarray(0, HEAD_BYTES - headBytes));
        head.push(part);
        headBytes += part.length;
      }
      callback(null, chunk);
    },
  });
  const body: Readable = pipeline(blob.stream, measuring, () => undefined);
  const sha256 = await store.putStream(body);
  let size = image ? imageDimensions(Buffer.concat(head, headBytes)) : NO_SIZE;
  if (image && size.width === null && blob.size <= MEASURE_WHOLE) {
    const whole = await store.get(sha256);
    if (whole) size = imageDimensions(whole);
  }
  return { sha256, size: blob.size, ...size };
}

/**
 * Stores the blobs given (each once) and answers what each gave, by oid. `onStored` is told the
 * count so far (for heartbeats). With `signal` aborted it stops between two blobs and throws the
 * reason; it never returns while a write it started is still running.
 */
export async function storeGitBlobs(
  gitDir: string,
  store: BlobStore,
  blobs: BlobToStore[],
  options: { signal?: AbortSignal; onStored?: (count: number) => void } = {},
): Promise<Map<string, StoredBlob>> {
  const image = new Map<string, boolean>();
  for (const blob of blobs) image.set(blob.oid, (image.get(blob.oid) ?? false) || blob.image);
  const results = new Map<string, StoredBlob>();
  const running = new Set<Promise<void>>();
  let held = 0;
  let failure: { error: unknown } | null = null;
  try {
    for await (const blob of catFileBatch(gitDir, [...image.keys()], IN_MEMORY)) {
      if (failure || options.signal?.aborted) break;
      const weight = blob.bytes ? blob.size : STREAM_WEIGHT;
      // A stream waits here unread (git waits on it); the writes running never wait on git.
      while (running.size >= CONCURRENCY || (running.size > 0 && held + weight > IN_FLIGHT_BYTES)) await Promise.race(running);
      held += weight;
      const task: Promise<void> = storeOne(store, blob, image.get(blob.oid)!)
        .then(
          (stored) => {
            results.set(blob.oid, stored);
            options.onStored?.(results.size);
          },
          (error: unknown) => {
            failure ??= { error };
            // A stream the store gave up on is read by no one: git's reading must not wait on it.
            blob.stream?.destroy();
          },
        )
        .finally(() => {
          held -= weight;
          running.delete(task);
        });
      running.add(task);
    }
  } finally {
    await Promise.allSettled(running);
  }
  if (failure) throw (failure as { error: unknown }).error;
  options.signal?.throwIfAborted();
  return results;
}

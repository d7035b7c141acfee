import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { dirname, join } from 'node:path';

/** Where file bytes live, addressed by their sha256 so identical bytes are stored once. */
export interface BlobStore {
  put(bytes: Buffer): Promise<string>;
  get(sha256: string): Promise<Buffer | null>;
  has(sha256: string): Promise<boolean>;
}

export function sha256(bytes: Buffer | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** A local directory: `<dir>/ab/cd/abcd…`. Writes are atomic (temporary file, then rename). */
export class LocalBlobStore implements BlobStore {
  private readonly dir: string;
  constructor(dir: string) {
    this.dir = dir;
  }

  private path(hash: string): string {
    if (!/^[0-9a-f]{64}$/.test(hash)) throw new Error('not a sha256');
    return join(this.dir, hash.slice(0, 2), hash.slice(2, 4), hash);
  }

  async put(bytes: Buffer): Promise<string> {
    const hash = sha256(bytes);
    const target = this.path(hash);
    if (await this.has(hash)) return hash;
    await mkdir(dirname(target), { recursive: true });
    const temporary = `${target}.${process.pid}.${Date.now()}.tmp`;
    await writeFile(temporary, bytes);
    await rename(temporary, target);
    return hash;
  }

  /**
   * Stores the bytes of a stream without holding them in memory (hashed while written to a
   * temporary file, then renamed into place). Rejects with a RangeError past `maxBytes`.
   */
  async putStream(stream: Readable, maxBytes = Number.POSITIVE_INFINITY): Promise<{ sha256: string; size: number }> {
    await mkdir(this.dir, { recursive: true });
    const temporary = join(this.dir, `.incoming.${process.pid}.${Date.now()}.${Math.random().toString(36).slice(2)}.tmp`);
    const hash = createHash('sha256');
    let size = 0;
    try {
      await pipeline(
        stream,
        async function* (source: AsyncIterable<Buffer>) {
          for await (const chunk of source) {
            size += chunk.length;
            if (size > maxBytes) throw new RangeError(`larger than ${maxBytes} bytes`);
            hash.update(chunk);
            yield chunk;
          }
        },
        createWriteStream(temporary),
      );
      const sha = hash.digest('hex');
      const target = this.path(sha);
      if (await this.has(sha)) await unlink(temporary);
      else {
        await mkdir(dirname(target), { recursive: true });
        await rename(temporary, target);
      }
      return { sha256: sha, size };
    } catch (error) {
      await unlink(temporary).catch(() => undefined);
      throw error;
    }
  }

  async get(hash: string): Promise<Buffer | null> {
    try {
      return await readFile(this.path(hash));
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
}

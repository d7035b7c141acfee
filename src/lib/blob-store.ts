import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
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

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { storeGitBlobs } from '../../src/activities/git-sync-assets.ts';
import { blobKey, LocalBlobStore, type BlobStore } from '../../src/lib/blob-store.ts';
import { catFileBatch } from '../../src/lib/git-cli.ts';

/** Reading git blobs as they come (`catFileBatch`) and storing them as they are read (`storeGitBlobs`). */

let root: string;
let gitDir: string;

const write = (bytes: Buffer): string =>
  execFileSync('git', [`--git-dir=${gitDir}`, 'hash-object', '-w', '--stdin'], { input: bytes })
    .toString()
    .trim();

/** A PNG header claiming `width`×`height`, then `size` bytes in all. */
function png(size: number, width: number, height: number): Buffer {
  const bytes = randomBytes(size);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]).copy(bytes, 0);
  bytes.write('IHDR', 12, 'latin1');
  bytes.writeUInt32BE(width, 16);
  bytes.writeUInt32BE(height, 20);
  return bytes;
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'git-blobs-'));
  gitDir = join(root, 'repo.git');
  execFileSync('git', ['init', '--bare', '--quiet', gitDir]);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('catFileBatch', () => {
  it('gives small blobs whole and large ones as streams, in order, byte for byte', async () => {
    const blobs = [Buffer.alloc(0), Buffer.from('# Title\n'), randomBytes(3 * 1024 * 1024 + 17), randomBytes(70_000), randomBytes(200_000)];
    const oids = blobs.map(write);
    const seen: { oid: string; size: number; bytes: Buffer; streamed: boolean }[] = [];
    const reading: Promise<void>[] = [];
    for await (const blob of catFileBatch(gitDir, oids, 100_000)) {
      if (blob.bytes) seen.push({ oid: blob.oid, size: blob.size, bytes: blob.bytes, streamed: false });
      else {
        const entry = { oid: blob.oid, size: blob.size, bytes: Buffer.alloc(0), streamed: true };
        seen.push(entry);
        reading.push(
          (async () => {
            const chunks: Buffer[] = [];
            for await (const chunk of blob.stream) chunks.push(chunk as Buffer);
            entry.bytes = Buffer.concat(chunks);
          })(),
        );
      }
    }
    await Promise.all(reading);
    expect(seen.map((s) => s.oid)).toEqual(oids);
    expect(seen.map((s) => s.streamed)).toEqual([false, false, true, false, true]);
    seen.forEach((s, i) => {
      expect(s.size).toBe(blobs[i].length);
      expect(s.bytes.equals(blobs[i])).toBe(true);
    });
  });

  it('throws for a missing object, and stops git when the loop stops early', async () => {
    const known = write(Buffer.from('known'));
    const missing = 'f'.repeat(40);
    await expect(
      (async () => {
        for await (const _ of catFileBatch(gitDir, [known, missing], 1024));
      })(),
    ).rejects.toThrow(/missing/);
    const big = write(randomBytes(2 * 1024 * 1024));
    let count = 0;
    for await (const blob of catFileBatch(gitDir, [big, known], 1024)) {
      count++;
      expect(blob.stream).toBeDefined();
      break;
    }
    expect(count).toBe(1);
  });
});

describe('storeGitBlobs', () => {
  it('stores each blob once, byte for byte, with the dimensions of images small and large', async () => {
    const store = new LocalBlobStore(join(root, 'store-a'));
    const small = png(300_000, 640, 480);
    const large = png(5_000_000, 1920, 1080);
    const other = randomBytes(1_500_000);
    const [smallOid, largeOid, otherOid] = [small, large, other].map(write);
    const stored = await storeGitBlobs(gitDir, store, [
      { oid: smallOid, image: true },
      { oid: largeOid, image: true },
      { oid: otherOid, image: false },
      { oid: smallOid, image: false },
    ]);
    expect(stored.size).toBe(3);
    expect(stored.get(smallOid)).toEqual({ sha256: sha256(small), size: small.length, width: 640, height: 480 });
    expect(stored.get(largeOid)).toEqual({ sha256: sha256(large), size: large.length, width: 1920, height: 1080 });
    expect(stored.get(otherOid)).toEqual({ sha256: sha256(other), size: other.length, width: null, height: null });
    for (const bytes of [small, large, other]) expect((await store.get(sha256(bytes)))?.equals(bytes)).toBe(true);
  });

  it('writes no blob the store has, and reports a failing store after the writes it started', async () => {
    const bytes = randomBytes(50_000);
    const oid = write(bytes);
    const dir = join(root, 'store-b');
    const store = new LocalBlobStore(dir);
    await store.put(bytes);
    const file = join(dir, ...blobKey(sha256(bytes)).split('/'));
    const before = statSync(file);
    const stored = await storeGitBlobs(gitDir, store, [{ oid, image: false }]);
    expect(stored.get(oid)?.sha256).toBe(sha256(bytes));
    const after = statSync(file);
    expect([after.ino, after.mtimeMs]).toEqual([before.ino, before.mtimeMs]);

    const disk = async (): Promise<never> => {
      throw new Error('disk full');
    };
    const failing: BlobStore = {
      put: disk,
      putStream: disk,
      get: (h) => store.get(h),
      has: (h) => store.has(h),
      open: (h) => store.open(h),
      downloadUrl: () => store.downloadUrl(),
    };
    const many = Array.from({ length: 12 }, () => ({ oid: write(randomBytes(40_000)), image: false }));
    const large = { oid: write(randomBytes(5_000_000)), image: false };
    await expect(storeGitBlobs(gitDir, failing, [...many, large])).rejects.toThrow('disk full');
    await expect(storeGitBlobs(gitDir, failing, [large, ...many])).rejects.toThrow('disk full');
  });

  it('stops between two blobs when aborted', async () => {
    const oids = Array.from({ length: 20 }, () => write(randomBytes(20_000)));
    const abort = new AbortController();
    let count = 0;
    const storing = storeGitBlobs(
      gitDir,
      new LocalBlobStore(join(root, 'store-c')),
      oids.map((oid) => ({ oid, image: false })),
      {
        signal: abort.signal,
        onStored: (n) => {
          count = n;
          if (n === 2) abort.abort(new Error('layout failed'));
        },
      },
    );
    await expect(storing).rejects.toThrow('layout failed');
    expect(count).toBeLessThan(20);
  });
});

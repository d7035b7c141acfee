import { describe, expect, it } from '@jest/globals';
import { strToU8, zipSync } from 'fflate';
import { unzipWithin, zipEntries, ZipError } from '../../../../src/domain/content-import/zip.ts';
import { bombEntry, deflatedEntry, overlappingZip, rawZip, storedEntry } from '../../../support/zip-bombs.ts';

const MiB = 1024 * 1024;
const limits = { maxFiles: 100, maxBytes: 50 * MiB };

function refusal(run: () => unknown): ZipError {
  try {
    run();
  } catch (error) {
    if (error instanceof ZipError) return error;
    throw error;
  }
  throw new Error('the archive was accepted');
}

const text = (bytes: Uint8Array) => Buffer.from(bytes).toString('utf8');

describe('unzipWithin', () => {
  it('reads an honest archive: its files (directories left out), stored and deflated', () => {
    const archive = zipSync({
      'README.md': strToU8('# Home\n'),
      'docs/': new Uint8Array(0),
      'docs/a.md': [strToU8('# A\n'.repeat(1000)), { level: 9 }],
      'img/p.png': [new Uint8Array([1, 2, 3]), { level: 0 }],
    });
    const files = unzipWithin(archive, limits);
    expect(files.map((f) => f.path)).toEqual(['README.md', 'docs/a.md', 'img/p.png']);
    expect(text(files[1].bytes)).toBe('# A\n'.repeat(1000));
    expect([...files[2].bytes]).toEqual([1, 2, 3]);
    // Every file owns its bytes (they move between threads).
    for (const file of files) expect(file.bytes.byteLength).toBe(file.bytes.buffer.byteLength);
  });

  it('stops a 200 MiB bomb (a 200 KiB file) at the limit, by what it inflates to', () => {
    const archive = rawZip([bombEntry('big.txt', Buffer.alloc(MiB, 'a'), 200)]);
    expect(archive.length).toBeLessThan(300 * 1024);
    const before = process.memoryUsage();
    const error = refusal(() => unzipWithin(archive, limits));
    expect(error.code).toBe('TOO_LARGE');
    // It stopped near 50 MiB: nowhere near the 200 MiB the entry holds.
    const after = process.memoryUsage();
    expect(after.arrayBuffers - before.arrayBuffers).toBeLessThan(120 * MiB);
  });

  it('does not believe headers that under-declare the unpacked size', () => {
    // The headers say 100 bytes; the entry inflates to 80 MiB.
    const lying = rawZip([{ ...bombEntry('small.txt', Buffer.alloc(MiB, 'b'), 80), declaredSize: 100 }]);
    expect(zipEntries(lying)[0]).toMatchObject({ path: 'small.txt', declaredSize: 100 });
    expect(refusal(() => unzipWithin(lying, limits)).code).toBe('TOO_LARGE');
    // Several entries each within the limit, together over it.
    const many = rawZip(
      Array.from({ length: 6 }, (_, i) => ({ ...bombEntry(`part-${i}.txt`, Buffer.alloc(MiB, 'c'), 10), declaredSize: 10 })),
    );
    expect(refusal(() => unzipWithin(many, limits)).code).toBe('TOO_LARGE');
  });

  it('does not allocate what headers over-declare', () => {
    const archive = rawZip([{ ...deflatedEntry('a.md', '# A\n'), declaredSize: 0xfffffffe }]);
    const files = unzipWithin(archive, limits);
    expect(text(files[0].bytes)).toBe('# A\n');
  });

  it('counts every entry of an overlapping-entries bomb', () => {
    // 1,000 names for one 1 MiB entry: 1,000 MiB from a file of some 50 KiB.
    const archive = overlappingZip(bombEntry('kernel.txt', Buffer.alloc(MiB, 'd'), 1), 1000);
    expect(archive.length).toBeLessThan(100 * 1024);
    expect(zipEntries(archive)).toHaveLength(1000);
    expect(refusal(() => unzipWithin(archive, { maxFiles: 5000, maxBytes: 50 * MiB })).code).toBe('TOO_LARGE');
  });

  it('reads a compressed size that runs past the data up to the end of the deflate stream only', () => {
    const archive = rawZip([{ ...deflatedEntry('a.md', '# A\n'), declaredCompressedSize: 5000 }, storedEntry('b.md', '# B\n')]);
    expect(unzipWithin(archive, limits).map((f) => text(f.bytes))).toEqual(['# A\n', '# B\n']);
  });

  it('refuses more files than the limit before inflating any', () => {
    const archive = rawZip(Array.from({ length: 5 }, (_, i) => storedEntry(`f${i}.md`, 'x')));
    expect(refusal(() => unzipWithin(archive, { maxFiles: 4, maxBytes: MiB })).code).toBe('TOO_MANY_FILES');
  });

  it('refuses what is not a zip, a truncated one, a lying entry count and unknown methods as INVALID_ARCHIVE', () => {
    const good = rawZip([storedEntry('a.md', 'a'), deflatedEntry('b.md', 'b'.repeat(100))]);
    const cases: Uint8Array[] = [
      Buffer.from('this is not a zip archive'),
      new Uint8Array(0),
      good.subarray(0, good.length - 10),
      good.subarray(40),
    ];
    const counted = Buffer.from(good);
    counted.writeUInt16LE(50_000, good.length - 22 + 10);
    cases.push(counted);
    cases.push(rawZip([{ ...storedEntry('c.md', 'c'), method: 12 as 0 }]));
    const corrupt = deflatedEntry('d.md', 'd'.repeat(100));
    cases.push(rawZip([{ ...corrupt, data: Buffer.from('garbage that is not deflate') }]));
    const storedPastEnd = rawZip([{ ...storedEntry('e.md', 'e'), declaredCompressedSize: 1000 }]);
    cases.push(storedPastEnd);
    for (const archive of cases) expect(refusal(() => unzipWithin(archive, limits)).code).toBe('INVALID_ARCHIVE');
  });
});

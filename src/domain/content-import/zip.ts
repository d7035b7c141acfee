/**
 * Zip archives read within limits that count what the entries ACTUALLY inflate to. The sizes a
 * zip's headers declare are the archive writer's word, and an attacker writes them: they are read
 * only to find where an entry's data starts, never trusted for how much it holds. Each entry is
 * inflated with zlib's `maxOutputLength` set to what is left of the budget, so inflating stops
 * (within one 16 KiB output chunk) as soon as the running total passes the limit; entries that
 * share their compressed data (the overlapping-entries bomb) are each counted in full. Pure
 * computation (no I/O); the import runs it in a bounded thread (`lib/bounded-parse.ts`).
 */
import { inflateRawSync } from 'node:zlib';

export interface ZipLimits {
  /** Most file entries (directories not counted). */
  maxFiles: number;
  /** Most bytes all entries together may inflate to. */
  maxBytes: number;
}

export type ZipErrorCode = 'INVALID_ARCHIVE' | 'TOO_LARGE' | 'TOO_MANY_FILES';

/** Why an archive is refused; `code` is what the import reports. */
export class ZipError extends Error {
  readonly code: ZipErrorCode;
  constructor(code: ZipErrorCode, message: string) {
    super(message);
    this.name = 'ZipError';
    this.code = code;
  }
}

export interface ZipEntry {
  /** The name as the central directory gives it (UTF-8 when flagged so, else CP437 read as Latin-1). */
  path: string;
  /** 0 stored, 8 deflated. */
  method: number;
  /** Where the entry's compressed data starts in the archive. */
  start: number;
  /** The compressed size the central directory declares (bounded by the archive's end when used). */
  declaredCompressed: number;
  /** The size the central directory declares once inflated: reported, never trusted. */
  declaredSize: number;
}

export interface UnzippedFile {
  path: string;
  bytes: Uint8Array;
}

const EOCD = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_EOCD = 0x06064b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const MAX32 = 0xffffffff;

const utf8 = new TextDecoder('utf-8');
const latin1 = new TextDecoder('latin1');

function invalid(message: string): never {
  throw new ZipError('INVALID_ARCHIVE', `The file is not a readable zip archive: ${message}`);
}

/** The entries of the central directory, in order, with where each one's data starts. Throws ZipError INVALID_ARCHIVE. */
export function zipEntries(bytes: Uint8Array): ZipEntry[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const length = bytes.byteLength;
  const u16 = (at: number) => (at >= 0 && at + 2 <= length ? view.getUint16(at, true) : invalid('a header runs past the end of the file'));
  const u32 = (at: number) => (at >= 0 && at + 4 <= length ? view.getUint32(at, true) : invalid('a header runs past the end of the file'));
  const u64 = (at: number) => {
    if (at < 0 || at + 8 > length) invalid('a header runs past the end of the file');
    const value = view.getBigUint64(at, true);
    return value > BigInt(Number.MAX_SAFE_INTEGER) ? invalid('a ZIP64 field is out of range') : Number(value);
  };

  // The end-of-central-directory record: within the last 64 KiB (+22) of the file, the last one found.
  let eocd = -1;
  for (let at = length - 22; at >= 0 && at >= length - 22 - 0xffff; at--) {
    if (view.getUint32(at, true) === EOCD) {
      eocd = at;
      break;
    }
  }
  if (eocd < 0) invalid('no end of central directory record');
  let count = u16(eocd + 10);
  let offset = u32(eocd + 16);
  let zip64 = false;
  if (eocd >= 20 && u32(eocd - 20) === ZIP64_LOCATOR) {
    const at = u64(eocd - 12);
    if (at + 56 <= length && u32(at) === ZIP64_EOCD) {
      zip64 = true;
      count = u64(at + 32);
      offset = u64(at + 48);
    }
  }

  const entries: ZipEntry[] = [];
  let at = offset;
  for (let i = 0; i < count; i++) {
    // A lying count runs into the end of the file or into non-header bytes: both stop here.
    if (u32(at) !== CENTRAL) invalid(`central directory entry ${i + 1} is missing`);
    const flags = u16(at + 8);
    const method = u16(at + 10);
    let compressed = u32(at + 20);
    let size = u32(at + 24);
    const nameLength = u16(at + 28);
    const extraLength = u16(at + 30);
    const commentLength = u16(at + 32);
    let local = u32(at + 42);
    const nameStart = at + 46;
    if (nameStart + nameLength + extraLength > length) invalid('a central directory entry runs past the end of the file');
    const path = (flags & 0x800 ? utf8 : latin1).decode(bytes.subarray(nameStart, nameStart + nameLength));
    if (compressed === MAX32 || size === MAX32 || local === MAX32) {
      // ZIP64 extra field (id 1): the original size, the compressed size and the offset, each only if its field is all ones.
      let extra = nameStart + nameLength;
      const end = extra + extraLength;
      let found = false;
      while (extra + 4 <= end) {
        const id = u16(extra);
        const fieldLength = u16(extra + 2);
        if (id === 1) {
          let field = extra + 4;
          const take = () => {
            if (field + 8 > extra + 4 + fieldLength) invalid('a ZIP64 extra field is too short');
            const value = u64(field);
            field += 8;
            return value;
          };
          if (size === MAX32) size = take();
          if (compressed === MAX32) compressed = take();
          if (local === MAX32) local = take();
          found = true;
          break;
        }
        extra += 4 + fieldLength;
      }
      if (!found && zip64) invalid('a ZIP64 entry has no ZIP64 extra field');
    }
    if (u32(local) !== LOCAL) invalid(`the local header of "${path}" is missing`);
    const start = local + 30 + u16(local + 26) + u16(local + 28);
    if (start > length) invalid(`the data of "${path}" starts past the end of the file`);
    entries.push({ path, method, start, declaredCompressed: compressed, declaredSize: size });
    at = nameStart + nameLength + extraLength + commentLength;
  }
  return entries;
}

/** Whether an entry is a directory (its name ends with `/`). */
const isDirectory = (entry: ZipEntry) => entry.path.endsWith('/');

/**
 * The files of an archive (directories left out), each inflated within what is left of
 * `limits.maxBytes`. Throws ZipError: TOO_MANY_FILES (before inflating anything), TOO_LARGE
 * (as soon as the inflated total passes the limit), INVALID_ARCHIVE (unreadable structure or
 * data, or an unsupported compression method).
 */
export function unzipWithin(bytes: Uint8Array, limits: ZipLimits): UnzippedFile[] {
  const entries = zipEntries(bytes).filter((entry) => !isDirectory(entry));
  if (entries.length > limits.maxFiles) throw new ZipError('TOO_MANY_FILES', `The archive holds more than ${limits.maxFiles} files`);
  const tooLarge = () => new ZipError('TOO_LARGE', `The archive unpacks to more than ${limits.maxBytes} bytes`);
  const files: UnzippedFile[] = [];
  let total = 0;
  for (const entry of entries) {
    const data = bytes.subarray(entry.start, Math.min(bytes.byteLength, entry.start + entry.declaredCompressed));
    const left = limits.maxBytes - total;
    let out: Uint8Array;
    if (entry.method === 0) {
      if (entry.start + entry.declaredCompressed > bytes.byteLength) invalid(`the data of "${entry.path}" runs past the end of the file`);
      if (data.byteLength > left) throw tooLarge();
      out = new Uint8Array(data); // a copy: the file owns its bytes (they are transferred between threads)
    } else if (entry.method === 8) {
      try {
        // maxOutputLength is checked after each 16 KiB chunk zlib writes: inflating stops there.
        out = inflateRawSync(data, { maxOutputLength: Math.max(1, left) });
      } catch (error) {
        if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge();
        invalid(`"${entry.path}" cannot be inflated (${(error as Error).message})`);
      }
      // An empty budget still lets zlib write nothing: anything it did write is over.
      if (out.byteLength > left) throw tooLarge();
      // zlib's result may be a view of a larger buffer: the file gets bytes of its own.
      if (out.byteOffset !== 0 || out.byteLength !== out.buffer.byteLength) out = new Uint8Array(out);
    } else {
      invalid(`"${entry.path}" uses compression method ${entry.method} (only stored and deflated entries are read)`);
    }
    total += out.byteLength;
    files.push({ path: entry.path, bytes: out });
  }
  return files;
}

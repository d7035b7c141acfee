import { constants, crc32, deflateRawSync } from 'node:zlib';

/**
 * Hostile archives, built byte by byte as an attacker would: compression bombs whose content is
 * never held in memory while building them, and zips whose headers lie about sizes.
 */

export interface RawEntry {
  name: string;
  /** 0 stored, 8 deflated. */
  method: 0 | 8;
  /** The entry's data as stored in the archive (raw deflate for method 8). */
  data: Uint8Array;
  crc: number;
  /** What the entry really inflates to. */
  size: number;
  /** What the headers claim instead (the lie), when given. */
  declaredSize?: number;
  declaredCompressedSize?: number;
}

/** A stored entry of a text. */
export function storedEntry(name: string, text: string | Uint8Array): RawEntry {
  const data = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
  return { name, method: 0, data, crc: crc32(data), size: data.length };
}

/** A deflated entry of a text. */
export function deflatedEntry(name: string, text: string | Uint8Array): RawEntry {
  const plain = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
  return { name, method: 8, data: deflateRawSync(plain, { level: 9 }), crc: crc32(plain), size: plain.length };
}

/**
 * A deflated entry of `repeat` copies of `chunk` (e.g. 200 × 1 MiB), built without ever holding
 * them: the chunk compressed once with a sync flush, the pieces concatenated, a final empty block.
 */
export function bombEntry(name: string, chunk: Uint8Array, repeat: number): RawEntry {
  const piece = deflateRawSync(chunk, { level: 9, finishFlush: constants.Z_SYNC_FLUSH });
  const end = deflateRawSync(Buffer.alloc(0));
  let crc = 0;
  for (let i = 0; i < repeat; i++) crc = crc32(chunk, crc);
  return { name, method: 8, data: Buffer.concat([...Array<Buffer>(repeat).fill(piece), end]), crc, size: chunk.length * repeat };
}

/** A zip of the entries, with local headers, a central directory and its end record (sizes as declared). */
export function rawZip(entries: RawEntry[]): Buffer {
  const parts: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, 'utf8');
    const compressed = entry.declaredCompressedSize ?? entry.data.length;
    const size = entry.declaredSize ?? entry.size;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x800, 6);
    local.writeUInt16LE(entry.method, 8);
    local.writeUInt32LE(entry.crc >>> 0, 14);
    local.writeUInt32LE(compressed, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    const header = Buffer.alloc(46);
    header.writeUInt32LE(0x02014b50, 0);
    header.writeUInt16LE(20, 4);
    header.writeUInt16LE(20, 6);
    header.writeUInt16LE(0x800, 8);
    header.writeUInt16LE(entry.method, 10);
    header.writeUInt32LE(entry.crc >>> 0, 16);
    header.writeUInt32LE(compressed, 20);
    header.writeUInt32LE(size, 24);
    header.writeUInt16LE(name.length, 28);
    header.writeUInt32LE(offset, 42);
    parts.push(local, name, Buffer.from(entry.data));
    central.push(header, name);
    offset += 30 + name.length + entry.data.length;
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...parts, directory, end]);
}

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';

/** The package parts every .docx has besides its document. */
function docxParts(): RawEntry[] {
  return [
    storedEntry(
      '[Content_Types].xml',
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>' +
        '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
    ),
    storedEntry(
      '_rels/.rels',
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
        '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>',
    ),
    storedEntry(
      'word/_rels/document.xml.rels',
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"></Relationships>',
    ),
  ];
}

/**
 * A .docx whose word/document.xml unpacks to `megabytes` MiB of paragraphs (a valid document:
 * head, repeated paragraphs, tail as three deflate pieces of one stream) while the file stays a
 * few hundred KiB. `declaredSize` makes the headers claim another unpacked size.
 */
export function docxBomb(megabytes: number, options: { declaredSize?: number } = {}): Buffer {
  const head = Buffer.from(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="${W}"><w:body>`);
  const paragraph = '<w:p><w:r><w:t>All work and no play makes Jack a dull boy.</w:t></w:r></w:p>';
  const chunk = Buffer.from(paragraph.repeat(Math.floor((1024 * 1024) / paragraph.length)));
  const tail = Buffer.from('</w:body></w:document>');
  const flush = { level: 9, finishFlush: constants.Z_SYNC_FLUSH };
  const piece = deflateRawSync(chunk, flush);
  const data = Buffer.concat([deflateRawSync(head, flush), ...Array<Buffer>(megabytes).fill(piece), deflateRawSync(tail)]);
  let crc = crc32(head);
  for (let i = 0; i < megabytes; i++) crc = crc32(chunk, crc);
  crc = crc32(tail, crc);
  const size = head.length + chunk.length * megabytes + tail.length;
  const document: RawEntry = { name: 'word/document.xml', method: 8, data, crc, size, declaredSize: options.declaredSize };
  return rawZip([...docxParts(), document]);
}

/** A small, honest .docx with one paragraph of text. */
export function smallDocx(text: string): Buffer {
  const xml = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="${W}"><w:body><w:p><w:r><w:t>${text}</w:t></w:r></w:p></w:body></w:document>`;
  return rawZip([...docxParts(), deflatedEntry('word/document.xml', xml)]);
}

/**
 * The overlapping-entries bomb: one local file, and `count` central directory entries (each
 * under its own name) that all point at it, so the archive's size does not grow with the count.
 */
export function overlappingZip(entry: RawEntry, count: number): Buffer {
  const single = rawZip([entry]);
  const localLength = 30 + Buffer.byteLength(entry.name) + entry.data.length;
  const record = single.subarray(localLength, single.length - 22);
  const records: Buffer[] = [];
  for (let i = 0; i < count; i++) {
    const name = Buffer.from(`${entry.name}.${i}`, 'utf8');
    const header = Buffer.from(record.subarray(0, 46));
    header.writeUInt16LE(name.length, 28);
    records.push(header, name);
  }
  const directory = Buffer.concat(records);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(count, 8);
  end.writeUInt16LE(count, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(localLength, 16);
  return Buffer.concat([single.subarray(0, localLength), directory, end]);
}

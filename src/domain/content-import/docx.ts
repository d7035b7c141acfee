/**
 * A .docx document as markdown: mammoth converts it to HTML (images collected, not inlined), then
 * `htmlToMarkdown` writes the markdown. The archive is first unpacked within the import's limits
 * by the bytes its entries actually inflate to (`unzipWithin`), and mammoth reads a copy of it
 * repacked from those bytes (stored, uncompressed): what mammoth parses is exactly what was
 * counted, however the original headers lie. mammoth never reads files (`externalFileAccess`
 * off), so this is pure computation; the import runs it in a bounded thread (lib/bounded-parse.ts),
 * which also bounds what parsing the (counted) XML costs.
 */
import { zipSync, type Zippable } from 'fflate';
import mammoth from 'mammoth';
import { extensionOf } from '../files.ts';
import { htmlToMarkdown } from './html.ts';
import { unzipWithin, ZipError, type ZipLimits } from './zip.ts';

export type DocxErrorCode = 'INVALID_DOCX' | 'TOO_LARGE' | 'TOO_MANY_FILES';

export class DocxError extends Error {
  readonly code: DocxErrorCode;
  constructor(code: DocxErrorCode, message: string) {
    super(message);
    this.name = 'DocxError';
    this.code = code;
  }
}

export interface DocxImage {
  /** Where the markdown points at it: `images/image-<n>.<ext>`. */
  path: string;
  contentType: string;
  bytes: Uint8Array;
}

export interface ConvertedDocx {
  /** The first level-1 heading, else null. */
  title: string | null;
  /** The markdown, without the title heading. */
  body: string;
  images: DocxImage[];
}

/** The archive unpacked within the limits, then zipped again uncompressed (the bytes counted, and only those). */
function repack(bytes: Uint8Array, limits: ZipLimits): Uint8Array {
  let files;
  try {
    files = unzipWithin(bytes, limits);
  } catch (error) {
    if (!(error instanceof ZipError)) throw error;
    if (error.code === 'INVALID_ARCHIVE')
      throw new DocxError('INVALID_DOCX', `The file is not a readable .docx document: ${error.message}`);
    throw new DocxError(error.code, error.message.replace('The archive', 'The document'));
  }
  const entries: Zippable = {};
  for (const file of files) entries[file.path] = [file.bytes, { level: 0 }];
  return zipSync(entries, { level: 0 });
}

/**
 * Converts a .docx. Throws DocxError: TOO_LARGE / TOO_MANY_FILES when the archive unpacks past
 * the limits, INVALID_DOCX when it is not a readable zip or mammoth cannot read the document.
 */
export async function docxToMarkdown(bytes: Uint8Array, limits: ZipLimits): Promise<ConvertedDocx> {
  const repacked = repack(bytes, limits);
  const images: DocxImage[] = [];
  let html: string;
  try {
    const result = await mammoth.convertToHtml(
      { buffer: Buffer.from(repacked.buffer, repacked.byteOffset, repacked.byteLength) },
      {
        externalFileAccess: false,
        convertImage: mammoth.images.imgElement(async (image) => {
          const read = await image.readAsBuffer();
          const path = `images/image-${images.length + 1}.${extensionOf(image.contentType)}`;
          images.push({ path, contentType: image.contentType, bytes: new Uint8Array(read) });
          return { src: path };
        }),
      },
    );
    html = result.value;
  } catch (error) {
    throw new DocxError('INVALID_DOCX', `The file is not a readable .docx document: ${(error as Error).message}`);
  }
  const converted = htmlToMarkdown(html);
  return { title: converted.title, body: converted.body, images };
}

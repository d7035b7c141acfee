/** Stored files (imports, Git Sync, files inserted by URL): their content types by name, and image sizes. Pure. */
import { imageSize } from 'image-size';

const TYPES: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  avif: 'image/avif',
  svg: 'image/svg+xml',
  bmp: 'image/bmp',
  ico: 'image/x-icon',
  tif: 'image/tiff',
  tiff: 'image/tiff',
  emf: 'image/emf',
  wmf: 'image/wmf',
  pdf: 'application/pdf',
  zip: 'application/zip',
  json: 'application/json',
  yaml: 'application/yaml',
  yml: 'application/yaml',
  txt: 'text/plain',
  csv: 'text/csv',
  xml: 'application/xml',
  html: 'text/html',
  mp4: 'video/mp4',
  webm: 'video/webm',
  mp3: 'audio/mpeg',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};

/** The content type of a file by its extension; `application/octet-stream` when unknown. */
export function contentTypeOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return (dot === -1 ? undefined : TYPES[name.slice(dot + 1).toLowerCase()]) ?? 'application/octet-stream';
}

/** Width and height of an image in pixels (read from its header); nulls for other files and unreadable images. */
export function measureImage(bytes: Uint8Array, contentType: string): { width: number | null; height: number | null } {
  if (!contentType.startsWith('image/')) return { width: null, height: null };
  try {
    const size = imageSize(bytes);
    return { width: size.width ?? null, height: size.height ?? null };
  } catch {
    return { width: null, height: null };
  }
}

/** The extension for a content type (`image/png` → `png`); `bin` when unknown. */
export function extensionOf(contentType: string): string {
  const type = contentType.split(';')[0].trim().toLowerCase();
  if (type === 'image/jpeg') return 'jpg';
  for (const [ext, t] of Object.entries(TYPES)) if (t === type) return ext;
  return 'bin';
}

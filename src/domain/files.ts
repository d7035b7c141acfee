/** Stored files (imports, Git Sync, files inserted by URL): their content types by name, and image sizes. Pure. */
import { imageSize } from 'image-size';
import mime from 'mime-types';

/**
 * Where this service answers differently from the MIME database: the types browsers and GitBook
 * use for these extensions (`application/yaml` is the registered type; `.ico` as browsers send it).
 */
const PREFERRED: Record<string, string> = { yaml: 'application/yaml', yml: 'application/yaml', ico: 'image/x-icon' };
const PREFERRED_EXTENSION: Record<string, string> = {
  'image/jpeg': 'jpg',
  'application/yaml': 'yaml',
  'audio/mpeg': 'mp3',
  'image/x-icon': 'ico',
};

/** The content type of a file by its extension; `application/octet-stream` when unknown. */
export function contentTypeOf(name: string): string {
  const dot = name.lastIndexOf('.');
  if (dot === -1) return 'application/octet-stream';
  const extension = name.slice(dot + 1).toLowerCase();
  return PREFERRED[extension] ?? (mime.lookup(extension) || 'application/octet-stream');
}

/** Width and height of an image in pixels (read from its header); nulls for other files and unreadable images. */
export function measureImage(bytes: Uint8Array, contentType: string): { width: number | null; height: number | null } {
  if (!contentType.startsWith('image/')) return { width: null, height: null };
  return imageDimensions(bytes);
}

/** Width and height of the image these bytes start (its header is enough for most formats); nulls when they do not tell. */
export function imageDimensions(bytes: Uint8Array): { width: number | null; height: number | null } {
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
  return PREFERRED_EXTENSION[type] ?? (mime.extension(type) || 'bin');
}

/** Files an import stores: their content types by name. Pure. */

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

/** The extension for a content type (`image/png` → `png`); `bin` when unknown. */
export function extensionOf(contentType: string): string {
  const type = contentType.split(';')[0].trim().toLowerCase();
  if (type === 'image/jpeg') return 'jpg';
  for (const [ext, t] of Object.entries(TYPES)) if (t === type) return ext;
  return 'bin';
}

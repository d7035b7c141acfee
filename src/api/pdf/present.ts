import type { PdfSource } from '../../db/pdf-export.ts';

/**
 * `content-disposition` for a downloaded PDF: an ASCII `filename` every client understands and
 * the exact name as UTF-8 in `filename*` (RFC 6266 / RFC 5987). Quotes, backslashes, control
 * characters and path separators never reach the header.
 */
export function pdfContentDisposition(source: PdfSource): string {
  const fallback = source.kind === 'space' ? 'Space' : `Change request ${source.number}`;
  const name =
    (source.kind === 'space' ? source.title : source.subject)
      .replace(/[\u0000-\u001f\u007f/\\]+/g, ' ')
      .replace(/\s+/g, ' ')
      .trim()
      .slice(0, 100) || fallback;
  const ascii = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^\x20-\x7e]|["%;]/g, '_');
  const encoded = encodeURIComponent(`${name}.pdf`).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `inline; filename="${ascii}.pdf"; filename*=UTF-8''${encoded}`;
}

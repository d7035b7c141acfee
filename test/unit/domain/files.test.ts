import { describe, expect, it } from '@jest/globals';
import { contentTypeOf, extensionOf, measureImage } from '../../../src/domain/files.ts';

describe('content types of stored files', () => {
  it('names a type by extension, whatever its case, from the MIME database', () => {
    expect(contentTypeOf('diagram.PNG')).toBe('image/png');
    expect(contentTypeOf('photo (1).jpeg')).toBe('image/jpeg');
    expect(contentTypeOf('clip.mov')).toBe('video/quicktime');
    expect(contentTypeOf('report.docx')).toBe('application/vnd.openxmlformats-officedocument.wordprocessingml.document');
  });

  it('answers the types browsers use where the database has several', () => {
    expect(contentTypeOf('openapi.yml')).toBe('application/yaml');
    expect(contentTypeOf('favicon.ico')).toBe('image/x-icon');
  });

  it('falls back to octet-stream without a known extension', () => {
    expect(contentTypeOf('README')).toBe('application/octet-stream');
    expect(contentTypeOf('archive.unknownext')).toBe('application/octet-stream');
  });

  it('names the usual extension of a type, ignoring parameters', () => {
    expect(extensionOf('image/jpeg')).toBe('jpg');
    expect(extensionOf('image/png; charset=binary')).toBe('png');
    expect(extensionOf('audio/mpeg')).toBe('mp3');
    expect(extensionOf('application/x-nothing-known')).toBe('bin');
  });

  it('measures images from their header and nothing else', () => {
    // A 3×2 GIF header is enough for the measurer.
    const gif = Uint8Array.from([0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 3, 0, 2, 0, 0, 0, 0]);
    expect(measureImage(gif, 'image/gif')).toEqual({ width: 3, height: 2 });
    expect(measureImage(gif, 'application/pdf')).toEqual({ width: null, height: null });
    expect(measureImage(Uint8Array.from([1, 2, 3]), 'image/png')).toEqual({ width: null, height: null });
  });
});

import { describe, expect, it } from '@jest/globals';
import {
  LAYOUT_DEFAULTS,
  layoutFrontMatter,
  layoutOptionsOf,
  presentCover,
  presentLayout,
  storedLayout,
} from '../../../../src/domain/content/page-layout.ts';

describe('page layout', () => {
  const frontMatter = {
    width: 'wide',
    cover: { visible: false, size: 'full', mask: 'radial' },
    title: { visible: false },
    description: { visible: true },
    tableOfContents: { visible: false },
    outline: { visible: true },
    pagination: { visible: false },
    metadata: { visible: true },
    tags: { visible: false },
    actions: { visible: true },
  };
  const api = {
    width: 'wide',
    cover: false,
    coverSize: 'full',
    coverMask: 'radial',
    title: false,
    description: true,
    tableOfContents: false,
    outline: true,
    pagination: false,
    metadata: true,
    tags: false,
    actions: true,
  };

  it("reads GitBook's front matter form as the API's booleans and enums", () => {
    expect(layoutOptionsOf(frontMatter)).toEqual(api);
  });

  it('writes the API form back as the same front matter, in GitBook’s order', () => {
    expect(layoutFrontMatter(api)).toEqual(frontMatter);
    expect(Object.keys(layoutFrontMatter(api)!)).toEqual(Object.keys(frontMatter));
    expect(layoutFrontMatter(layoutOptionsOf(frontMatter))).toEqual(frontMatter);
  });

  it('keeps a hidden cover hidden: the API answers cover false, not the front matter object', () => {
    const presented = presentLayout({ cover: { visible: false } });
    expect(presented.cover).toBe(false);
    expect(presented).toEqual({ ...LAYOUT_DEFAULTS, cover: false });
    expect(presentLayout(storedLayout({ cover: { visible: false } }))).toEqual(presented);
  });

  it('answers only GitBook’s options: unknown keys and values are left out, the rest defaults', () => {
    expect(presentLayout({ width: 'huge', cover: 'yes', custom: 1, anchors: false })).toEqual({ ...LAYOUT_DEFAULTS, anchors: false });
    expect(presentLayout(null)).toEqual(LAYOUT_DEFAULTS);
    expect(Object.keys(presentLayout({ title: { visible: false }, extra: true })).sort()).toEqual(Object.keys(LAYOUT_DEFAULTS).sort());
    expect(storedLayout({ nothing: true })).toBeNull();
    expect(layoutFrontMatter({})).toBeNull();
  });

  it('reads a mix of both forms (rows written before the API form)', () => {
    expect(layoutOptionsOf({ width: 'default', cover: true, coverSize: 'background', title: { visible: false } })).toEqual({
      width: 'default',
      cover: true,
      coverSize: 'background',
      title: false,
    });
  });
});

describe('page cover', () => {
  it("answers GitBook's RevisionPageDocumentCover from what is stored", () => {
    expect(presentCover({ ref: { kind: 'file', file: 'f1' }, yPos: 0, height: 461 })).toEqual({
      ref: { kind: 'file', file: 'f1' },
      yPos: 0,
      height: 461,
    });
    expect(
      presentCover({ ref: { kind: 'url', url: 'https://x/y.png' }, refDark: { kind: 'file', file: 'd' }, textColor: 'white' }),
    ).toEqual({
      ref: { kind: 'url', url: 'https://x/y.png' },
      refDark: { kind: 'file', file: 'd' },
      textColor: 'white',
      yPos: 0,
    });
  });

  it('answers no cover for a value that names no image, and keeps the height within 10–700', () => {
    expect(presentCover({ visible: false })).toBeNull();
    expect(presentCover('hero.png')).toBeNull();
    expect(presentCover(null)).toBeNull();
    expect(presentCover({ ref: { kind: 'file', file: 'f' }, yPos: 'top', height: 5000 })).toEqual({
      ref: { kind: 'file', file: 'f' },
      yPos: 0,
      height: 700,
    });
  });
});

/**
 * A page's layout and cover, in the two forms they take: GitBook's API form
 * (`RevisionPageLayoutOptions`: booleans and enums; `RevisionPageDocumentCover`: content
 * references) and the front matter GitBook's Git Sync writes (`layout: {width, cover: {visible,
 * size, mask}, title: {visible}, …}`). Pages store the API form, possibly partial (only what was
 * set); rows written before that hold the front matter form, which every reader here still reads.
 * Pure.
 */

export type PageWidth = 'default' | 'wide';
export type CoverSize = 'hero' | 'full' | 'background';
export type CoverMask = 'none' | 'radial';

/** GitBook's `RevisionPageLayoutOptions`. */
export interface PageLayoutOptions {
  width: PageWidth;
  cover: boolean;
  coverSize: CoverSize;
  coverMask: CoverMask;
  title: boolean;
  description: boolean;
  tableOfContents: boolean;
  outline: boolean;
  pagination: boolean;
  metadata: boolean;
  tags: boolean;
  actions: boolean;
  anchors: boolean;
}

/** GitBook's defaults for every option. */
export const LAYOUT_DEFAULTS: Readonly<PageLayoutOptions> = Object.freeze({
  width: 'default',
  cover: true,
  coverSize: 'hero',
  coverMask: 'none',
  title: true,
  description: true,
  tableOfContents: true,
  outline: true,
  pagination: true,
  metadata: true,
  tags: true,
  actions: true,
  anchors: true,
});

/** The boolean options, in the order GitBook writes them in front matter (after `width` and `cover`). */
const VISIBILITY = ['title', 'description', 'tableOfContents', 'outline', 'pagination', 'metadata', 'tags', 'actions', 'anchors'] as const;

const WIDTHS: readonly string[] = ['default', 'wide'];
const SIZES: readonly string[] = ['hero', 'full', 'background'];
const MASKS: readonly string[] = ['none', 'radial'];

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** A boolean option in either form: `true`/`false` (API) or `{visible: true}` (front matter). */
function visibleOf(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (isObject(value) && typeof value.visible === 'boolean') return value.visible;
  return undefined;
}

/**
 * The options a stored or written layout sets, in the API form; keys it does not set (or sets to
 * something GitBook does not know) are left out. Reads the API form and the front matter form,
 * mixed or not; anything else gives `{}`.
 */
export function layoutOptionsOf(value: unknown): Partial<PageLayoutOptions> {
  const out: Partial<PageLayoutOptions> = {};
  if (!isObject(value)) return out;
  if (typeof value.width === 'string' && WIDTHS.includes(value.width)) out.width = value.width as PageWidth;
  const cover = value.cover;
  const coverVisible = visibleOf(cover);
  if (coverVisible !== undefined) out.cover = coverVisible;
  const size = isObject(cover) && cover.size !== undefined ? cover.size : value.coverSize;
  if (typeof size === 'string' && SIZES.includes(size)) out.coverSize = size as CoverSize;
  const mask = isObject(cover) && cover.mask !== undefined ? cover.mask : value.coverMask;
  if (typeof mask === 'string' && MASKS.includes(mask)) out.coverMask = mask as CoverMask;
  for (const key of VISIBILITY) {
    const visible = visibleOf(value[key]);
    if (visible !== undefined) out[key] = visible;
  }
  return out;
}

/** The layout the API answers: every option, the stored ones over GitBook's defaults. */
export function presentLayout(stored: unknown): PageLayoutOptions {
  return { ...LAYOUT_DEFAULTS, ...layoutOptionsOf(stored) };
}

/** What a page stores for a layout: the API form of what is set, or null when nothing is. */
export function storedLayout(value: unknown): Partial<PageLayoutOptions> | null {
  const options = layoutOptionsOf(value);
  return Object.keys(options).length === 0 ? null : options;
}

/**
 * The `layout:` front matter GitBook writes for a layout: `width`, `cover: {visible, size, mask}`
 * (when a cover option is set), then `{visible}` for each option that is set, in GitBook's order.
 * Null when nothing is set.
 */
export function layoutFrontMatter(stored: unknown): Record<string, unknown> | null {
  const options = layoutOptionsOf(stored);
  if (Object.keys(options).length === 0) return null;
  const out: Record<string, unknown> = {};
  if (options.width !== undefined) out.width = options.width;
  if (options.cover !== undefined || options.coverSize !== undefined || options.coverMask !== undefined) {
    out.cover = {
      visible: options.cover ?? LAYOUT_DEFAULTS.cover,
      size: options.coverSize ?? LAYOUT_DEFAULTS.coverSize,
      mask: options.coverMask ?? LAYOUT_DEFAULTS.coverMask,
    };
  }
  for (const key of VISIBILITY) if (options[key] !== undefined) out[key] = { visible: options[key] };
  return out;
}

/** A content reference a cover points at. */
export type CoverRef = { kind: 'file'; file: string } | { kind: 'url'; url: string };

/** GitBook's `RevisionPageDocumentCover`. */
export interface PageCover {
  ref?: CoverRef;
  refDark?: CoverRef;
  textColor?: 'black' | 'white';
  textColorDark?: 'black' | 'white';
  yPos: number;
  height?: number;
}

function refOf(value: unknown): CoverRef | undefined {
  if (!isObject(value)) return undefined;
  if (value.kind === 'file' && typeof value.file === 'string' && value.file !== '') return { kind: 'file', file: value.file };
  if (value.kind === 'url' && typeof value.url === 'string' && value.url !== '') return { kind: 'url', url: value.url };
  return undefined;
}

/**
 * A stored cover in GitBook's form, or null when it names no image (a cover without `ref`, or a
 * value that is no cover at all). `yPos` defaults to 0; `height` is kept within GitBook's 10–700.
 */
export function presentCover(stored: unknown): PageCover | null {
  if (!isObject(stored)) return null;
  const ref = refOf(stored.ref);
  if (ref === undefined) return null;
  const refDark = refOf(stored.refDark);
  const color = (v: unknown) => (v === 'black' || v === 'white' ? v : undefined);
  const textColor = color(stored.textColor);
  const textColorDark = color(stored.textColorDark);
  const finite = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
  return {
    ref,
    ...(refDark ? { refDark } : {}),
    ...(textColor ? { textColor } : {}),
    ...(textColorDark ? { textColorDark } : {}),
    yPos: finite(stored.yPos) ? stored.yPos : 0,
    ...(finite(stored.height) ? { height: Math.min(700, Math.max(10, stored.height)) } : {}),
  };
}
